"""Prometheus metrics for operators (prometheus-client, the official Python
client: its Django view and its multiprocess mode for gunicorn are what a
hand-written exporter would have to copy).

- ``nalarku_http_request_seconds``: request latency by view and status class
  (``MetricsMiddleware``);
- ``nalarku_search_stage_seconds`` and ``nalarku_ask_stage_seconds``: the
  stage timings every search and every answer already measure;
- ``nalarku_queue_depth``: tasks waiting in each Celery queue (read from
  Redis at scrape time);
- ``nalarku_task_failures_total``: tasks that failed, by task; counted in
  Redis by whichever worker failed, on whatever host, and read at scrape time;
- ``nalarku_replica_lag_seconds``: each read replica's replay lag, when
  replicas are configured.

Under gunicorn, ``gunicorn.conf.py`` points ``PROMETHEUS_MULTIPROC_DIR`` at a
folder the workers share, so a scrape sums every worker, not the one that
answered. ``/metrics`` is not public: a staff session or
``Authorization: Bearer <NALARKU_METRICS_TOKEN>``; anyone else gets a 403.
"""

from __future__ import annotations

import hmac
import logging
import os
import time
from collections.abc import Callable, Iterable

import redis
from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET
from prometheus_client import CollectorRegistry, Histogram, generate_latest, multiprocess
from prometheus_client.core import REGISTRY, CounterMetricFamily, GaugeMetricFamily
from prometheus_client.exposition import CONTENT_TYPE_LATEST
from prometheus_client.registry import Collector

from .replicas import replica_lags

logger = logging.getLogger(__name__)

STAGE_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30)
REQUEST_SECONDS = Histogram(
    "nalarku_http_request_seconds",
    "Latensi permintaan HTTP per view dan kelas status",
    ["view", "method", "status"],
    buckets=STAGE_BUCKETS,
)
SEARCH_STAGE_SECONDS = Histogram(
    "nalarku_search_stage_seconds", "Waktu tiap tahap pencarian", ["stage"], buckets=STAGE_BUCKETS
)
ASK_STAGE_SECONDS = Histogram(
    "nalarku_ask_stage_seconds", "Waktu tiap tahap menjawab", ["stage"], buckets=STAGE_BUCKETS
)
FAILURES_KEY = "nalarku:metrics:task_failures"


def stages_observe(histogram: Histogram, timings_ms: dict[str, float]) -> None:
    for stage, ms in timings_ms.items():
        histogram.labels(stage=stage).observe(ms / 1000)


def _redis() -> redis.Redis:
    return redis.Redis.from_url(settings.CELERY_BROKER_URL, socket_connect_timeout=2, socket_timeout=2)


def task_failure_count(task_name: str) -> None:
    """Called by Celery's ``task_failure`` signal in the worker that failed."""
    try:
        client = _redis()
        client.hincrby(FAILURES_KEY, task_name, 1)
        client.close()
    except redis.RedisError as exc:  # the failure itself is logged by Celery; the count is best effort
        logger.warning("task failure not counted: %s", exc)


class ScrapeTimeCollector(Collector):
    """What lives outside the web processes, read when Prometheus scrapes."""

    def collect(self) -> Iterable[GaugeMetricFamily | CounterMetricFamily]:
        depth = GaugeMetricFamily("nalarku_queue_depth", "Tugas yang menunggu di antrean Celery", labels=["queue"])
        failures = CounterMetricFamily("nalarku_task_failures", "Tugas Celery yang gagal", labels=["task"])
        try:
            client = _redis()
            for queue in settings.NALARKU_QUEUES:
                depth.add_metric([queue], client.llen(queue))
            for task, count in sorted(client.hgetall(FAILURES_KEY).items()):
                failures.add_metric([task.decode()], int(count))
            client.close()
        except redis.RedisError as exc:
            logger.warning("metrics: Redis not readable: %s", exc)
        yield depth
        yield failures
        lag = GaugeMetricFamily(
            "nalarku_replica_lag_seconds", "Ketertinggalan replay tiap replika baca", labels=["replica"]
        )
        for alias, seconds in replica_lags().items():
            if seconds is not None:
                lag.add_metric([alias], seconds)
        yield lag


_collector = ScrapeTimeCollector()
REGISTRY.register(_collector)


def _allowed(request: HttpRequest) -> bool:
    if request.user.is_authenticated and request.user.is_staff:
        return True
    token = settings.NALARKU_METRICS_TOKEN
    given = request.headers.get("Authorization", "")
    return bool(token) and hmac.compare_digest(given.encode(), f"Bearer {token}".encode())


@require_GET
@never_cache
def metrics_view(request: HttpRequest) -> HttpResponse:
    if not _allowed(request):
        return HttpResponse(
            "Tidak diizinkan: metrik hanya untuk admin atau token metrik.",
            status=403,
            content_type="text/plain; charset=utf-8",
        )
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)
        registry.register(_collector)
    else:
        registry = REGISTRY
    return HttpResponse(generate_latest(registry), content_type=CONTENT_TYPE_LATEST)


class MetricsMiddleware:
    """Request latency, labelled by the resolved view's name (never the raw
    path: ids in paths would make a series per answer)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        started = time.perf_counter()
        response = self.get_response(request)
        match = getattr(request, "resolver_match", None)
        view = (match.view_name if match else "") or "tidak-dikenal"
        REQUEST_SECONDS.labels(view=view, method=request.method, status=f"{response.status_code // 100}xx").observe(
            time.perf_counter() - started
        )
        return response
