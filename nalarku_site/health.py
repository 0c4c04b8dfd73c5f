"""Probes for a load balancer, without authentication and without detail a
stranger could use: no host names, versions, error texts or timings.

- ``/healthz``: the process is up and serving (no dependency is touched, so
  a database outage does not make every web process look dead and get it
  restarted in a loop);
- ``/readyz``: this process can do its work now — the primary database
  answers, Redis (the broker and the cache) answers, and the answer scorer's
  artefact is loaded. 200 when all hold, 503 otherwise, with the names of
  the checks and whether each holds.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

import redis
from django.conf import settings
from django.db import connections
from django.http import HttpRequest, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

logger = logging.getLogger(__name__)


def _database() -> None:
    with connections["default"].cursor() as cursor:
        cursor.execute("SELECT 1")


def _redis() -> None:
    client = redis.Redis.from_url(settings.CELERY_BROKER_URL, socket_connect_timeout=2, socket_timeout=2)
    try:
        client.ping()
    finally:
        client.close()


def _answer_scorer() -> None:
    from review.answers.scorer import artefact

    artefact()


CHECKS: dict[str, Callable[[], None]] = {"database": _database, "redis": _redis, "answer_scorer": _answer_scorer}


@require_GET
@never_cache
def healthz(request: HttpRequest) -> JsonResponse:
    return JsonResponse({"status": "ok"})


@require_GET
@never_cache
def readyz(request: HttpRequest) -> JsonResponse:
    results = {}
    for name, check in CHECKS.items():
        try:
            check()
        except Exception as exc:  # noqa: BLE001 — any failure means not ready; the reason goes to the log only
            logger.warning("readyz: %s not ready: %s", name, exc)
            results[name] = False
        else:
            results[name] = True
    ready = all(results.values())
    return JsonResponse({"status": "ok" if ready else "unready", "checks": results}, status=200 if ready else 503)
