"""Celery tasks of the review app: thin wrappers around services, and how
their callers hand work to them."""

from __future__ import annotations

import logging

from celery import shared_task
from django.db import transaction

from .asking import question_run

logger = logging.getLogger(__name__)


@shared_task(acks_late=True, reject_on_worker_lost=True)
def answer_question(question_id: int) -> str:
    """Draft the answer of a saved question; a re-run after a worker crash
    does nothing if the answer was already saved."""
    answer = question_run(question_id=question_id)
    return f"answer {answer.pk}" if answer else "skipped"


def answer_after_commit(question_id: int) -> None:
    """Hand a saved question to a worker once its transaction commits. With
    the broker down the question is answered in the request instead: an
    editor who asked must get an answer."""

    def enqueue() -> None:
        try:
            answer_question.delay(question_id)
        except Exception as exc:  # noqa: BLE001 - any broker failure: the question must still be answered
            logger.warning("broker unavailable, answering question %s in the request: %s", question_id, exc)
            question_run(question_id=question_id)

    transaction.on_commit(enqueue)
