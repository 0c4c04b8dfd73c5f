"""The Celery app. Workers: ``celery -A nalarku_site worker``."""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "nalarku_site.settings")

app = Celery("nalarku_site")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
