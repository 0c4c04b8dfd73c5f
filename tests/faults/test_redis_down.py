"""Fault: Redis is down when a document is saved. The save succeeds, the
revision stays pending (nothing enqueued, nothing lost), and once Redis is
back the sweep enqueues it and a real worker — one that lived through the
outage — indexes it."""

from __future__ import annotations

import time

import pytest
from django.core.management import call_command

from retrieval.ingestion import RevisionInput, revision_submit
from retrieval.models import Revision
from retrieval.tasks import index_after_commit

from .conftest import assert_indexed_once, wait_for

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]


def test_redis_down_at_save_then_swept_and_indexed(private_redis, start_worker, capsys):
    worker = start_worker()
    private_redis.stop()

    started = time.monotonic()
    result = revision_submit(
        data=RevisionInput(
            key="R1", title="Catatan rilis", content="# Rilis 4.2\n\nPerbaikan sinkronisasi.", public=True
        )
    )
    index_after_commit(result.revision.pk)
    assert time.monotonic() - started < 10  # the save does not hang on the broker
    revision = Revision.objects.get(pk=result.revision.pk)
    assert revision.status == "pending" and not revision.chunks.exists()

    private_redis.start()  # same port, empty: whatever was queued before is gone
    call_command("sweep_pending", minutes=0)
    assert "1 revisi diantrikan ulang" in capsys.readouterr().out
    assert wait_for(lambda: Revision.objects.get(pk=revision.pk).status == "active", timeout=60), worker.log_text()
    assert assert_indexed_once(revision.pk) == 1
    assert Revision.objects.get(pk=revision.pk).attempts == 1
