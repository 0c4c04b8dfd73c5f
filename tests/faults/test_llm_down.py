"""Fault: the LLM server behind the generator is down — a closed port, an
HTTP 500, a timeout. Asking through the editor's page (POST /tanya/, a real
worker answers, then the answer page) and through POST /api/ask gives the
answerer's answer flagged ``generator_unavailable``: never a 500 page or a
stack trace. The worker asks Ollama's API, the API request OpenAI's."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.urls import reverse

from nalarku_site.celery import app as celery_app
from retrieval.ingestion import RevisionInput, revision_index, revision_submit
from review.models import Answer
from review.tokens import token_issue

from .conftest import ModelServer, RedisServer, launch_worker, stop_worker, use_broker, wait_for

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

QUESTION = "Apakah fitur Sinar sudah tersedia untuk semua pelanggan?"
LABEL = "Model bahasa tidak tersedia — jawaban berupa kutipan dari sumber"


@pytest.fixture(scope="module")
def llm_server() -> ModelServer:
    server = ModelServer().start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def llm_worker(django_db_setup, tmp_path_factory, llm_server):  # noqa: ANN001
    """One worker for the module, on its own Redis, answering with
    NALARKU_GENERATOR=ollama at ``llm_server`` (a 1 s timeout keeps the
    timeout case short)."""
    workdir = tmp_path_factory.mktemp("llm")
    broker = RedisServer(workdir / "redis").start()
    previous = celery_app.conf.broker_url
    use_broker(broker.url)
    worker = launch_worker(
        workdir / "worker.log",
        {
            "NALARKU_GENERATOR": "ollama",
            "NALARKU_LLM_URL": llm_server.url,
            "NALARKU_LLM_MODEL": "fault-llm",
            "NALARKU_LLM_TIMEOUT": "1",
        },
    )
    try:
        worker.wait_log(r"ready\.", timeout=60)
        yield worker
    finally:
        stop_worker(worker)
        use_broker(previous)
        broker.stop()


@pytest.fixture
def failing(request, llm_server, settings):  # noqa: ANN001
    """``llm_server`` failing the requested way; this process asks it through
    the OpenAI-compatible API (same 1 s timeout)."""
    failure = request.param
    if failure == "refused":
        llm_server.stop()
    else:
        llm_server.mode = {"http_500": "error", "timeout": "hang"}[failure]
    llm_server.requests.clear()
    settings.NALARKU_GENERATOR = "openai"
    settings.NALARKU_LLM = {**settings.NALARKU_LLM, "url": llm_server.url, "model": "fault-llm", "timeout": 1.0}
    yield failure
    if failure == "refused":
        llm_server.start()
    llm_server.mode = "ok"


@pytest.fixture
def archive():
    data = RevisionInput(
        key="S1",
        title="Dokumentasi Sinar",
        public=True,
        source_type="documentation",
        content="# Sinar\n\nSejak 2 Mei 2026 fitur Sinar tersedia untuk semua pelanggan di semua paket.",
    )
    revision_index(revision_id=revision_submit(data=data).revision.pk)


def chat_requests(server: ModelServer, path: str) -> int:
    return sum(1 for p, _ in server.requests if p == path)


@pytest.mark.parametrize("failing", ["refused", "http_500", "timeout"], indirect=True)
def test_llm_down_gives_the_answerer_answer_flagged(failing, archive, llm_worker, llm_server, client):
    editor = User.objects.create_user("editor", password="rahasia-uji")
    client.force_login(editor)

    # The editor's page: the question is saved, a real worker answers it.
    asked = client.post(reverse("ask"), {"question": QUESTION})
    assert asked.status_code == 302
    progress_url = asked["Location"]
    pages = []

    def answered() -> bool:
        page = client.get(progress_url)
        pages.append(page)
        return page.status_code == 302

    assert wait_for(answered, timeout=60, interval=0.3), llm_worker.log_text()
    assert all(p.status_code in (200, 302) for p in pages)
    page = client.get(pages[-1]["Location"])
    assert page.status_code == 200
    html = page.content.decode()
    assert LABEL in html and "Traceback" not in html
    answer = Answer.objects.get(question__asked_by=editor)
    assert answer.generator == "answerer" and "generator_unavailable" in answer.degraded
    assert answer.contract["claims"] and answer.contract["claims"][0]["evidence_ids"] == ["S1:r1:p1"]
    if failing != "refused":
        assert chat_requests(llm_server, "/api/chat") == 3  # tried, with the client's two retries

    # The JSON API, answered in the request.
    _, token = token_issue(user=editor, name="uji")
    response = client.post(
        reverse("api-ask"),
        {"question": QUESTION},
        content_type="application/json",
        HTTP_AUTHORIZATION=f"Bearer {token}",
    )
    assert response.status_code == 200, response.content
    body = response.json()
    assert "generator_unavailable" in body["degraded"]
    assert body["status"] in ("answered", "needs_review")
    assert [c["evidence_ids"] for c in body["claims"]] == [["S1:r1:p1"]]
    if failing != "refused":
        assert chat_requests(llm_server, "/v1/chat/completions") == 3
