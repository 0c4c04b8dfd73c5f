"""The answer scorer in a prefork Celery worker: the child process loads the
artefact (and the embedder) itself after the fork and answers."""

from __future__ import annotations

import time

import pytest

from answering.answerer import artefact
from nalarku_site.celery import app as celery_app
from review.asking import question_submit
from review.models import Answer
from review.tasks import answer_after_commit
from tests.workers import worker_process

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]


def test_a_prefork_worker_scores_answers(make_revision, make_user, tmp_path):
    make_revision(
        "# KR-220X\n\nWaktu pemutaran: hingga 30 jam dengan sekali pengisian daya",
        key="W9",
        title="Spesifikasi KR-220X",
        public=True,
        source_type="spec",
    )
    artefact()  # the parent has its copy; the child must not depend on it
    celery_app.control.purge()
    log = tmp_path / "worker.log"
    worker = worker_process(log)
    try:
        question = question_submit(text="Berapa jam waktu pemutaran KR-220X?", user=make_user("editor"))
        answer_after_commit(question.pk)  # as the desk's view does
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and not Answer.objects.filter(question=question).exists():
            time.sleep(0.3)
        answer = Answer.objects.filter(question=question).first()
        assert answer is not None, log.read_text() if log.exists() else "worker wrote no log"
        # The reader (ONNX Runtime) loads in a forked worker child, after the fork.
        assert answer.generator == "reader"
        assert not {"answerer_unavailable", "reader_unavailable"} & set(answer.degraded)
        assert "30 jam" in answer.contract["claims"][0]["text"]
    finally:
        worker.terminate()
        worker.wait(timeout=30)
        celery_app.control.purge()
