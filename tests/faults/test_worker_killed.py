"""Fault: the pool process indexing a revision is killed (SIGKILL) while it
waits for the embedding server. The task is redelivered (acks_late +
reject_on_worker_lost), revision 1 serves until revision 2 is complete, and
revision 2 ends up indexed exactly once."""

from __future__ import annotations

import os
import signal

import pytest

from retrieval.ingestion import RevisionInput, revision_index, revision_submit
from retrieval.models import Chunk, Revision
from retrieval.search import search
from retrieval.tasks import index_after_commit

from .conftest import assert_indexed_once, embedding_config, embedding_env, wait_for

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

MARKER = "revisikedua"  # only revision 2's passages carry it; the server holds those


def doc(content: str) -> RevisionInput:
    return RevisionInput(key="K1", title="Panduan sinkronisasi", content=content, public=True)


def evidence_ids(query: str) -> set[str]:
    return {h.evidence_id for h in search(query, None, k=10, expand=False).results}


def test_worker_killed_mid_ingestion_is_redelivered_and_never_half_visible(
    settings, model_server, private_redis, start_worker
):
    settings.NALARKU_EMBEDDING = embedding_config(model_server)
    first = revision_submit(
        data=doc("# Sinkronisasi\n\nSinkronisasi berjalan tiap jam.\n\n## Konflik\n\nKonflik diselesaikan manual."),
    ).revision
    revision_index(revision_id=first.pk)  # through the HTTP provider: the active space is its space
    assert Revision.objects.get(pk=first.pk).status == "active"
    assert evidence_ids("sinkronisasi konflik") == {"K1:r1:p1", "K1:r1:p2"}

    model_server.hold = lambda texts: any(MARKER in t for t in texts)
    is_second = model_server.hold
    worker = start_worker(embedding_env(model_server))
    second = revision_submit(
        data=doc(
            f"# Sinkronisasi\n\nSinkronisasi berjalan tiap menit ({MARKER}).\n\n"
            f"## Konflik\n\nKonflik diselesaikan otomatis ({MARKER}).\n\n"
            f"## Jadwal\n\nJadwal bisa diatur ({MARKER})."
        )
    ).revision
    index_after_commit(second.pk)
    assert model_server.wait_for_requests(is_second, timeout=60), worker.log_text()

    children = worker.children()
    assert len(children) == 1
    os.kill(children[0], signal.SIGKILL)
    # The redelivered task reaches the (still holding) server again: that is
    # the redelivery, seen from outside.
    assert model_server.wait_for_requests(is_second, count=2, timeout=60), worker.log_text()
    assert worker.children() and worker.children() != children

    # While revision 2 is stuck, nothing of it is visible; revision 1 serves.
    assert Revision.objects.get(pk=second.pk).status == "indexing"
    assert not Chunk.objects.filter(revision=second).exists()
    assert evidence_ids("sinkronisasi konflik") == {"K1:r1:p1", "K1:r1:p2"}
    assert Revision.objects.get(pk=first.pk).status == "active"

    model_server.release()
    assert wait_for(lambda: Revision.objects.get(pk=second.pk).status == "active", timeout=60), worker.log_text()
    second.refresh_from_db()
    assert second.attempts == 2 and second.error == ""
    assert Revision.objects.get(pk=first.pk).status == "superseded"
    assert second.document.current_revision_id == second.pk
    assert assert_indexed_once(second.pk) == 3
    assert evidence_ids("sinkronisasi konflik jadwal") == {"K1:r2:p1", "K1:r2:p2", "K1:r2:p3"}
    received = worker.wait_log(r"index_revision\[([0-9a-f-]+)\] received", count=2)
    assert len({m.group(1) for m in received}) == 1  # the same message, delivered again
    assert "WorkerLostError" in worker.log_text()
