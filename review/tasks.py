"""Celery tasks of the review app: thin wrappers around services."""

from __future__ import annotations

from celery import shared_task

from .answers.pipeline import question_run


@shared_task(acks_late=True, reject_on_worker_lost=True)
def answer_question(question_id: int) -> str:
    """Draft the answer of a saved question; a re-run after a worker crash
    does nothing if the answer was already saved."""
    answer = question_run(question_id=question_id)
    return f"answer {answer.pk}" if answer else "skipped"
