"""The Celery app. Workers: ``celery -A nalarku_site worker``."""

import os

from celery import Celery
from celery.signals import task_failure, worker_process_init

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "nalarku_site.settings")

app = Celery("nalarku_site")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@worker_process_init.connect
def _warm_start(**_: object) -> None:
    """Each prefork child loads the embedding model and the answer scorer as
    it starts, not on its first task (nalarku_site/warm.py)."""
    from nalarku_site.warm import warm_start_enabled, warm_up

    if warm_start_enabled():
        warm_up()


@task_failure.connect
def _count_failure(sender: object = None, **_: object) -> None:
    """Every failed task, counted in Redis for /metrics wherever the worker runs."""
    from nalarku_site.metrics import task_failure_count

    task_failure_count(getattr(sender, "name", "tidak-dikenal"))
