"""/metrics: refused to strangers, and what it reports is what happened —
request latency by view, search and ask stages, queue depth and task
failures read from Redis, whichever host counted them."""

from __future__ import annotations

import re

import pytest
import redis
from django.test import Client

from nalarku_site.metrics import FAILURES_KEY, task_failure_count

pytestmark = pytest.mark.django_db


def _value(text: str, name: str, **labels: str) -> float:
    """One sample of a scrape, whatever order its labels come in."""
    for line in text.splitlines():
        match = re.fullmatch(rf"{re.escape(name)}\{{(.*)\}} (\S+)", line)
        if match and dict(re.findall(r'(\w+)="([^"]*)"', match.group(1))) == labels:
            return float(match.group(2))
    raise AssertionError(f"{name}{labels} not in the scrape")


def test_metrics_refuse_anonymous_readers_and_non_staff(client: Client, make_user, settings):
    settings.NALARKU_METRICS_TOKEN = "rahasia-metrik"
    assert client.get("/metrics").status_code == 403
    assert client.get("/metrics", HTTP_AUTHORIZATION="Bearer salah").status_code == 403
    client.force_login(make_user("editor", reviewer=True))
    response = client.get("/metrics")
    assert response.status_code == 403 and "nalarku_" not in response.content.decode()


def test_an_empty_token_setting_never_lets_anyone_in(client: Client, settings):
    settings.NALARKU_METRICS_TOKEN = ""
    assert client.get("/metrics", HTTP_AUTHORIZATION="Bearer ").status_code == 403


def test_metrics_report_requests_stages_queues_and_failures(client: Client, make_user, make_revision, settings):
    settings.NALARKU_METRICS_TOKEN = "rahasia-metrik"
    auth = {"HTTP_AUTHORIZATION": "Bearer rahasia-metrik"}
    make_revision("# Sinar\n\nFitur Sinar tersedia untuk semua pelanggan sejak Mei.", key="M1", public=True)
    before = client.get("/metrics", **auth).content.decode()
    searches = _value(before, "nalarku_search_stage_seconds_count", stage="sql") if 'stage="sql"' in before else 0

    client.force_login(make_user("editor", reviewer=True))
    assert client.get("/cari/", {"q": "fitur Sinar"}).status_code == 200
    client.logout()
    broker = redis.Redis.from_url(settings.CELERY_BROKER_URL)
    broker.delete(FAILURES_KEY)
    broker.rpush("celery", b"{}", b"{}")
    task_failure_count("retrieval.tasks.index_revision")
    try:
        text = client.get("/metrics", **auth).content.decode()
    finally:
        broker.delete("celery", FAILURES_KEY)
    assert _value(text, "nalarku_search_stage_seconds_count", stage="sql") == searches + 1
    assert _value(text, "nalarku_http_request_seconds_count", view="search", method="GET", status="2xx") >= 1
    assert _value(text, "nalarku_queue_depth", queue="celery") == 2
    assert _value(text, "nalarku_task_failures_total", task="retrieval.tasks.index_revision") == 1


def test_a_staff_session_may_read_the_metrics(client: Client, make_user):
    client.force_login(make_user("admin", is_staff=True))
    response = client.get("/metrics")
    assert response.status_code == 200 and response["Content-Type"].startswith("text/plain")
    assert "nalarku_http_request_seconds" in response.content.decode()


def test_the_admin_says_when_there_is_no_replica(client: Client, make_user):
    client.force_login(make_user("admin", is_staff=True, is_superuser=True))
    page = client.get("/admin/").content.decode()
    assert 'id="replicas"' in page and "Tidak ada replika baca" in page
