"""No template comment reaches a page. Django's ``{# #}`` is one line only:
one that spans lines is printed as text (it was, on every search page). Every
template is checked for it, and every page a user sees is rendered — the
desk as an editor, the login and logout pages, error pages, the API docs, and
each admin list, add and change page as the superuser — and must not hold
``{#``."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.conf import settings
from django.contrib import admin
from django.template import engines
from django.urls import reverse

from review.asking import question_ask

pytestmark = pytest.mark.django_db
HX = {"HTTP_HX_REQUEST": "true"}


def _template_files() -> list[Path]:
    roots = [Path(d) for d in engines["django"].engine.dirs]
    roots += [Path(app.path) / "templates" for app in __import__("django.apps").apps.apps.get_app_configs()]
    ours = Path(settings.BASE_DIR)
    return [
        path
        for root in roots
        if root.exists() and ours in root.parents and ".venv" not in root.parts
        for path in root.rglob("*.html")
    ]


def test_no_template_has_a_comment_spanning_lines():
    files = _template_files()
    assert any(p.name == "search.html" for p in files)  # the finder sees the project's templates
    unclosed = [
        f"{path}:{number}"
        for path in files
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if re.search(r"\{#(?!.*#\})", line)
    ]
    assert not unclosed, f"{{# without #}} on the same line (use {{% comment %}}): {unclosed}"


@pytest.fixture
def archive(make_revision):
    make_revision("# Sinar\n\nFitur Sinar masih private preview.", key="S1", title="Dokumentasi Sinar", public=True)
    make_revision(
        "# Sinar\n\nSejak 2 Mei 2026 fitur Sinar tersedia untuk semua pelanggan.",
        key="S1",
        title="Dokumentasi Sinar",
        public=True,
    )


def _assert_clean(client, url: str, **extra) -> str:  # noqa: ANN001, ANN003
    response = client.get(url, **extra)
    assert response.status_code < 500, (url, response.status_code)
    if response.get("Content-Type", "").startswith("text/html"):
        html = response.content.decode()
        assert "{#" not in html and "#}" not in html, f"a template comment reached {url}"
        return html
    return ""


def test_no_page_a_user_sees_holds_a_template_comment(client, archive, make_user):
    editor = make_user("editor", reviewer=True)
    answer = question_ask(text="Apakah fitur Sinar sudah tersedia untuk semua pelanggan?", user=editor).answer
    claim = answer.claims.order_by("position").first()
    evidence_id = claim.evidence.first().evidence_id if claim else "S1:r2:p1"

    # Signed out: the login page, and the pages everyone reaches.
    for url in ("/masuk/", "/masuk/?next=/cari/", "/tidak-ada/"):
        _assert_clean(client, url)
    client.post("/masuk/", {"username": "editor", "password": "salah"})  # the failed-login page

    client.force_login(editor)
    pages = [
        reverse("home"),
        reverse("search"),
        reverse("search") + "?q=Sinar",
        reverse("search") + "?q=Sinar&mode=lexical",
        reverse("search") + "?q=crypto-shredding&mode=vector",
        reverse("question", args=[answer.question.pk]),
        reverse("answer", args=[answer.pk]),
        reverse("evidence", args=[evidence_id]),
        reverse("queue"),
        reverse("history"),
        reverse("dashboard"),
        reverse("report"),
        reverse("archive"),
        reverse("document", args=["S1"]),
        reverse("revision", args=["S1", 1]),
        reverse("diff", args=["S1"]) + "?a=1&b=2",
        "/api/docs",
        "/dokumen/TIDAK-ADA/",
    ]
    for url in pages:
        _assert_clean(client, url)
    _assert_clean(client, reverse("search") + "?q=Sinar", **HX)
    _assert_clean(client, reverse("answer", args=[answer.pk]), **HX)

    # A refused form post (stale CSRF token) gets the 403 page.
    strict = client.__class__(enforce_csrf_checks=True)
    strict.force_login(editor)
    refused = strict.post(reverse("ask"), {"question": "x"})
    assert refused.status_code == 403 and "{#" not in refused.content.decode()

    # Signing out: the page it lands on.
    response = client.post(reverse("logout"), follow=True)
    assert "{#" not in response.content.decode()


def test_no_admin_page_holds_a_template_comment(client, archive, make_user):
    boss = make_user("boss", is_staff=True, is_superuser=True)
    question_ask(text="Apakah fitur Sinar sudah tersedia?", user=boss)
    client.force_login(boss)
    _assert_clean(client, reverse("admin:index"))
    checked = 0
    for model, model_admin in admin.site._registry.items():
        opts = model._meta
        base = f"admin:{opts.app_label}_{opts.model_name}"
        html = _assert_clean(client, reverse(f"{base}_changelist"))
        assert html, f"{base}_changelist"
        if model_admin.has_add_permission(_request(boss)):
            _assert_clean(client, reverse(f"{base}_add"))
        first = model_admin.get_queryset(_request(boss)).first()
        if first is not None:
            _assert_clean(client, reverse(f"{base}_change", args=[first.pk]))
        checked += 1
    assert checked >= 10


def _request(user):  # noqa: ANN001, ANN202
    from django.test import RequestFactory

    request = RequestFactory().get("/admin/")
    request.user = user
    return request
