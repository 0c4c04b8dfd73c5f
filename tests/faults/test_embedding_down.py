"""Fault: the embedding server is down. Search falls back to the lexical arm
(still under permissions) and says so, in the service and through
GET /api/search; ingestion retries with exponential backoff, indexes the
revision once the server is back, and after its last retry marks it failed
with the error kept while the previous revision keeps serving."""

from __future__ import annotations

import re
import time

import pytest
from django.contrib.auth.models import Group, User
from django.urls import reverse

from retrieval.ingestion import RevisionInput, revision_index, revision_submit
from retrieval.models import Chunk, Revision
from retrieval.search import search
from retrieval.tasks import index_after_commit, index_revision
from review.tokens import token_issue

from .conftest import assert_indexed_once, embedding_config, embedding_env, wait_for

PUBLIC = "# Headset LX-700BT\n\nWaktu pemutaran baterai LX-700BT 30 jam."
SECRET = "# Memo\n\nBaterai cadangan LX-700BT proyek Garuda 40 jam."


def doc(key: str, content: str, **extra: object) -> RevisionInput:
    return RevisionInput(key=key, title=key, content=content, **extra)


@pytest.fixture
def indexed(settings, model_server):
    """A public and a restricted document, indexed while the server was up."""
    settings.NALARKU_EMBEDDING = embedding_config(model_server)
    for data in (doc("P1", PUBLIC, public=True), doc("S1", SECRET, groups=["hukum"])):
        revision_index(revision_id=revision_submit(data=data).revision.pk)
    assert Revision.objects.filter(status="active").count() == 2


@pytest.mark.django_db
@pytest.mark.parametrize("failure", ["refused", "hung"])
def test_search_falls_back_to_lexical_and_says_so(indexed, settings, model_server, make_user, client, failure):
    up = search("berapa jam baterai LX-700BT", None, expand=False)
    assert up.degraded == [] and up.mode == "hybrid"
    if failure == "refused":
        model_server.stop()
    else:  # accepts the connection, never answers
        model_server.mode = "hang"
        settings.NALARKU_EMBEDDING = {**settings.NALARKU_EMBEDDING, "query_timeout": 1.0}
    # The same words would (rightly) be served from the recent-query cache
    # without the server; the outage is what this test is about.
    from retrieval.embeddings import query_cache_clear

    query_cache_clear()

    started = time.monotonic()
    down = search("berapa jam baterai LX-700BT", None, expand=False)
    elapsed = time.monotonic() - started
    assert down.degraded == ["semantic_unavailable"] and down.mode == "lexical"
    assert [h.evidence_id for h in down.results] == ["P1:r1:p1"]  # the restricted memo stays hidden
    assert all(h.semantic_rank is None and h.lexical_rank for h in down.results)
    assert elapsed < 2.5, f"the fallback took {elapsed:.1f} s"  # one short attempt, no retry ladder

    _, token = token_issue(user=make_user("skrip"), name="uji")
    response = client.get(reverse("api-search"), {"q": "baterai LX-700BT"}, HTTP_AUTHORIZATION=f"Bearer {token}")
    assert response.status_code == 200
    body = response.json()
    assert body["degraded"] == ["semantic_unavailable"] and body["mode"] == "lexical"
    assert [h["evidence_id"] for h in body["results"]] == ["P1:r1:p1"]


RETRY = r"index_revision\[[^\]]+\] retry: Retry in (\d+)s"


def lexical_ids(query: str) -> list[str]:
    return [h.evidence_id for h in search(query, None, mode="lexical", expand=False).results]


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_ingestion_retries_with_backoff_and_gives_up_after_the_last_retry(
    indexed, model_server, private_redis, start_worker
):
    model_server.stop()
    worker = start_worker(embedding_env(model_server))
    # P1 revision 2: saved and enqueued as usual, first delivery.
    second = revision_submit(data=doc("P1", PUBLIC + "\n\nDengan ANC: 26 jam.", public=True)).revision
    index_after_commit(second.pk)
    # S1 revision 2: the delivery that follows five retries, with the header
    # it would carry (waiting 5+10+20+40+80 s for it proves nothing more).
    last = revision_submit(data=doc("S1", SECRET + "\n\nRevisi memo.", groups=["hukum"])).revision
    index_revision.apply_async((last.pk,), retries=index_revision.max_retries)

    first_retry = worker.wait_log(RETRY, timeout=30)
    assert [m.group(1) for m in first_retry] == ["5"]
    second.refresh_from_db()
    # A transient failure: back to pending with the error kept, nothing half-written.
    assert second.status == "pending" and "Ollama: tidak dapat dihubungi" in second.error
    assert not Chunk.objects.filter(revision=second).exists()
    assert lexical_ids("baterai LX-700BT") == ["P1:r1:p1"]  # revision 1 keeps serving

    # After the last retry: failed, the error kept, no retry scheduled, and
    # the previous revision still serves.
    assert wait_for(lambda: Revision.objects.get(pk=last.pk).status == "failed", timeout=30), worker.log_text()
    last.refresh_from_db()
    assert "Ollama: tidak dapat dihubungi" in last.error and "menyerah setelah 6 percobaan" in last.error
    assert not Chunk.objects.filter(revision=last).exists()
    previous = Revision.objects.get(document__key="S1", number=1)
    assert previous.status == "active" and previous.document.current_revision_id == previous.pk
    legal = User.objects.create_user("legal")
    legal.groups.add(Group.objects.get(name="hukum"))
    assert [h.evidence_id for h in search("cadangan Garuda", legal, mode="lexical", expand=False).results] == [
        "S1:r1:p1"
    ]

    retries = worker.wait_log(RETRY, count=2, timeout=30)
    assert [m.group(1) for m in retries] == ["5", "10"]  # 5 · 2^retries, and none for S1
    model_server.start()  # back, on the same port

    assert wait_for(lambda: Revision.objects.get(pk=second.pk).status == "active", timeout=30), worker.log_text()
    second.refresh_from_db()
    assert second.attempts == 3 and second.error == ""
    assert Revision.objects.get(document__key="P1", number=1).status == "superseded"
    assert assert_indexed_once(second.pk) == 1
    assert [h.evidence_id for h in search("baterai ANC", None, expand=False).results] == ["P1:r2:p1"]
    assert len(re.findall(RETRY, worker.log_text())) == 2
    assert Revision.objects.get(pk=last.pk).status == "failed"


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_a_permanent_embedding_error_fails_at_once(indexed, model_server, private_redis, start_worker):
    model_server.mode = "bad_request"  # HTTP 400: retrying cannot help
    worker = start_worker(embedding_env(model_server))
    second = revision_submit(data=doc("P1", PUBLIC + "\n\nDengan ANC: 26 jam.", public=True)).revision
    index_after_commit(second.pk)

    outcome = worker.wait_log(r"index_revision\[[^\]]+\] (succeeded in [\d.]+s: '\w+'|retry)", timeout=30)
    assert outcome[0].group(1).endswith("'failed'"), worker.log_text()
    second.refresh_from_db()
    assert second.status == "failed" and second.attempts == 1 and "Ollama: HTTP 400" in second.error
    assert Revision.objects.get(document__key="P1", number=1).status == "active"
