"""CSRF on every state change, and production settings that pass Django's
own deployment checks."""

from __future__ import annotations

import os
import secrets
import subprocess
import sys
from pathlib import Path

import pytest
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver

pytestmark = pytest.mark.django_db
ROOT = Path(__file__).resolve().parents[2]
SAMPLE_ARGS = {"pk": "1", "number": "1", "key": "D1", "evidence_id": "D1:r1:p1"}


def site_paths() -> list[str]:
    """Every path of the site outside the admin, with sample arguments."""
    paths = []
    for pattern in get_resolver().url_patterns:
        if isinstance(pattern, URLResolver):  # the admin, checked on its own below
            continue
        assert isinstance(pattern, URLPattern)
        route = str(pattern.pattern)
        for name, value in SAMPLE_ARGS.items():
            for converter in ("int:", "str:", ""):  # django-ninja writes "<pk>"
                route = route.replace(f"<{converter}{name}>", value)
        paths.append("/" + route)
    return paths


def test_every_post_without_a_csrf_token_is_refused(make_user):
    client = Client(enforce_csrf_checks=True)
    client.force_login(make_user("editor", is_staff=True, is_superuser=True))
    paths = site_paths() + [
        "/admin/auth/group/add/",
        "/admin/retrieval/document/add/",
        "/admin/review/apitoken/add/",
        "/admin/logout/",
    ]
    assert len(paths) > 20 and "/klaim/1/nilai/" in paths and "/api/ask" in paths
    assert not any("<" in path for path in paths), paths  # every argument given a sample
    refused = []
    for path in paths:
        response = client.post(path, {"status": "supported", "question": "x", "name": "g"})
        if response.status_code == 405:
            # A csrf_exempt route that takes no POST at all (the API's GET
            # endpoints, token-friendly) refuses the method itself; its Allow
            # header, written from the view's own methods, must not offer POST.
            allowed = {m.strip() for m in response["Allow"].split(",")}
            assert "POST" not in allowed, (path, allowed)
            continue
        assert response.status_code == 403, path
        refused.append(path)
    # Every route that changes state is among those refused for want of the token.
    writes = ["/tanya/", "/klaim/1/nilai/", "/klaim/1/lihat/", "/api/ask", "/api/claims/1/review", "/keluar/"]
    assert set(writes) <= set(refused), set(writes) - set(refused)
    anonymous = Client(enforce_csrf_checks=True)
    assert anonymous.post("/masuk/", {"username": "editor", "password": "rahasia-uji"}).status_code == 403


def test_a_post_with_the_token_goes_through(make_user):
    """The refusal above is the CSRF check, not the view refusing anything."""
    client = Client(enforce_csrf_checks=True)
    client.force_login(make_user("editor"))
    token = client.get("/").cookies["csrftoken"].value
    response = client.post("/tanya/", {"question": "   ", "csrfmiddlewaretoken": token})
    assert response.status_code == 400  # reached the view: an empty question is explained


def deploy_env(**extra: str) -> dict[str, str]:
    # The browser tests allow async-unsafe ORM calls in this process; a deployment never would.
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("NALARKU_SECURE", "NALARKU_HSTS", "DJANGO_ALLOW_ASYNC_UNSAFE"))
    }
    return {**env, "NALARKU_DEBUG": "0", "NALARKU_ALLOWED_HOSTS": "nalarku.contoh.id", **extra}


def test_production_settings_pass_check_deploy():
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT,
        env=deploy_env(NALARKU_SECRET_KEY=secrets.token_urlsafe(50)),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


def test_development_settings_fail_check_deploy_so_the_check_means_something():
    env = {**os.environ, "NALARKU_DEBUG": "1"}
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode != 0 and "security.W018" in result.stdout + result.stderr  # DEBUG on


def test_production_without_a_secret_key_stops_with_a_clear_message():
    env = deploy_env()
    env.pop("NALARKU_SECRET_KEY", None)
    result = subprocess.run(
        [sys.executable, "manage.py", "check"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )
    assert result.returncode != 0 and "NALARKU_SECRET_KEY must be set" in result.stderr


def test_production_responses_carry_the_security_headers(settings, make_user):
    settings.DEBUG = False
    settings.SECURE_HSTS_SECONDS, settings.SECURE_SSL_REDIRECT = 31_536_000, True
    settings.SESSION_COOKIE_SECURE = settings.CSRF_COOKIE_SECURE = True
    client = Client()
    assert client.get("/masuk/").status_code == 301  # plain HTTP is sent to HTTPS
    response = client.get("/masuk/", secure=True)
    assert response["Strict-Transport-Security"].startswith("max-age=31536000")
    assert response["X-Frame-Options"] == "DENY" and response["X-Content-Type-Options"] == "nosniff"
    assert "frame-ancestors 'none'" in response["Content-Security-Policy"]
    assert response.cookies["csrftoken"]["secure"]


def test_production_error_pages_are_the_apps_own_in_indonesian(make_user, monkeypatch):
    """DEBUG is off under test, as in `make demo`: a missing page and a
    crashing view get the app's pages, never Django's debug page."""
    from django.test import Client

    from review.desk import views

    client = Client(raise_request_exception=False)
    client.force_login(make_user("editor"))
    missing = client.get("/tidak-ada-halaman-ini/")
    assert missing.status_code == 404 and "Tidak ditemukan" in missing.content.decode()
    assert "URLconf" not in missing.content.decode()

    def crash(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        raise RuntimeError("boom")

    monkeypatch.setattr(views, "_claims_for", crash)
    monkeypatch.setattr(views, "contract_for", crash)
    from review.models import Answer, Question

    answer = Answer.objects.create(
        question=Question.objects.create(text="x", asked_by=None), status="answered", generator="answerer"
    )
    from django.contrib.auth.models import User

    Question.objects.filter(pk=answer.question_id).update(asked_by=User.objects.get(username="editor"))
    failed = client.get(f"/jawaban/{answer.pk}/")
    assert failed.status_code == 500 and "Terjadi kesalahan di server" in failed.content.decode()
    assert "boom" not in failed.content.decode() and "Traceback" not in failed.content.decode()
