"""Celery tasks: thin, idempotent, ids in, services do the work."""

from __future__ import annotations

import logging

from celery import shared_task
from django.db import transaction

from . import ingestion
from .http import ServiceError
from .models import RevisionStatus

logger = logging.getLogger(__name__)


@shared_task(bind=True, acks_late=True, reject_on_worker_lost=True, max_retries=5)
def index_revision(self, revision_id: int, force: bool = False) -> str:  # noqa: ANN001
    """Index one revision. Transient failures (embedding server down) retry
    with exponential backoff; a deleted revision is skipped quietly."""
    try:
        result = ingestion.revision_index(revision_id=revision_id, force=force)
    except ingestion.RevisionGone:
        logger.info("revision %s no longer exists; nothing to index", revision_id)
        return "gone"
    except ServiceError as exc:
        if not exc.transient:
            # Already recorded as failed by the service (a 4xx, a malformed
            # reply). Retrying only flipped the revision back to indexing
            # five more times over 2½ minutes before failing it again.
            return RevisionStatus.FAILED
        if self.request.retries >= self.max_retries:
            ingestion.mark_failed(
                revision_id=revision_id, message=f"{exc} (menyerah setelah {self.max_retries + 1} percobaan)"
            )
            return RevisionStatus.FAILED
        raise self.retry(exc=exc, countdown=min(600, 5 * 2**self.request.retries)) from exc
    return result.status


def index_later(revision_id: int, *, force: bool = False) -> bool:
    """Hand the revision to the workers. If the broker is unreachable the
    revision simply stays pending: the sweep enqueues it later."""
    try:
        index_revision.delay(revision_id, force=force)
    except Exception as exc:  # noqa: BLE001 - kombu raises several types for a broker that is down
        logger.warning("broker unavailable, revision %s stays pending for the sweep: %s", revision_id, exc)
        return False
    return True


def index_after_commit(revision_id: int) -> None:
    """``index_later`` once the transaction that saved the revision commits
    (at once outside a transaction): a worker never looks for a revision
    that is not there yet."""
    transaction.on_commit(lambda: index_later(revision_id))


def sweep(**age: object) -> list[int]:
    """Enqueue again the revisions left pending or stuck (``age``: see
    ``ingestion.revisions_to_sweep``); the ids the broker took."""
    return [revision_id for revision_id in ingestion.revisions_to_sweep(**age) if index_later(revision_id)]


@shared_task(acks_late=True)
def sweep_pending() -> int:
    """Periodic safety net: re-enqueue revisions left pending or stuck."""
    return len(sweep())


@shared_task(acks_late=True)
def refresh_lexical_weights() -> bool:
    """Periodic: BM25 weights depend on the average chunk length."""
    from .lexical import weights_refresh

    return weights_refresh()


@shared_task(acks_late=True)
def fetch_due_sources() -> dict[str, int]:
    """Periodic: fetch documents again from their URL when they are due.
    Idempotent: a re-run finds nothing due, and unchanged content makes no revision."""
    from .fetching import sources_fetch

    report = sources_fetch()
    for revision_id in report.new_revisions:
        index_after_commit(revision_id)
    return report.counts
