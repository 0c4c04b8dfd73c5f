"""Handing work to the workers by the task's name. A service that enqueues
(saving a revision, saving a question) names the task it hands the work to
and never imports the module that defines it: that module imports the
service, and each would otherwise need the other to be read.

The name is looked up in the Celery app's registry, which imports every
app's ``tasks`` module itself (``autodiscover_tasks``), so routing
(``CELERY_TASK_ROUTES``) and eager mode (``NALARKU_TASKS_EAGER``) hold as
for ``task.delay``.
"""

from __future__ import annotations

from celery.result import AsyncResult

from .celery import app

INDEX_REVISION = "retrieval.tasks.index_revision"
ANSWER_QUESTION = "review.tasks.answer_question"


def enqueue(task_name: str, *args: object, **kwargs: object) -> AsyncResult:
    """``task.delay(*args, **kwargs)`` for the task registered as ``task_name``;
    raises what the broker raises when it cannot take the message."""
    return app.tasks[task_name].delay(*args, **kwargs)
