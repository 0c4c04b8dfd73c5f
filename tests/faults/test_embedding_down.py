"""Fault: the embedding server is down. Search falls back to the lexical arm
(still under permissions) and says so, in the service and through
GET /api/search; ingestion retries with exponential backoff, indexes the
revision once the server is back, and after its last retry marks it failed
with the error kept while the previous revision keeps serving."""

from __future__ import annotations

import time

import pytest
from django.urls import reverse

from retrieval.ingestion import RevisionInput, revision_index, revision_submit
from retrieval.models import Chunk, Revision
from retrieval.search import search
from retrieval.tasks import index_revision
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
        revision_index(revision_id=revision_submit(data=data, enqueue=False).revision.pk)
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
