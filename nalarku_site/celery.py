"""The Celery app. Workers: ``celery -A nalarku_site worker``."""

import os

from celery import Celery
from celery.signals import worker_process_init

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
