"""The API's interactive docs in Debian's Chromium, under the site's
Content-Security-Policy: Swagger UI renders the schema (title, the three
endpoints, the bearer scheme's button), nothing is blocked, its labels are
Indonesian where Swagger UI has labels of its own, the page links back to
the app, and "Coba" (Try it out) on POST /api/ask answers 200 for the
logged-in session: the page sends its CSRF token."""

from __future__ import annotations

import json
import re

import pytest
from playwright.sync_api import expect

from review.models import Question

from .test_editor_flow import login

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

ENGLISH = (
    "Try it out",
    "Execute",
    "Authorize",
    "Parameters",
    "Responses",
    "Request body",
    "Example Value",
    "Edit Value",
    # The schema's reply descriptions and Swagger UI's media-type note (issue 51 item 6).
    "Bad Request",
    "Unauthorized",
    "Not Found",
    "Controls",
)


def test_api_docs_render_for_a_logged_in_user(page, live_server, demo_subset):
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    login(page, live_server.url, "pembaca")
    page.goto(f"{live_server.url}/api/docs")
    expect(page.locator("#swagger-ui .info .title")).to_contain_text("Nalarku API")
    for path in ("/api/search", "/api/ask", "/api/claims/{pk}/review"):
        expect(page.locator(".opblock-summary-path", has_text=path).first).to_be_visible()
    expect(page.get_by_role("button", name="Otorisasi")).to_be_visible()
    back = page.get_by_role("link", name="← Kembali ke Nalarku")
    expect(back).to_have_attribute("href", "/")
    assert not errors, errors


def test_try_it_out_asks_with_the_session(page, live_server, demo_subset, shoot):
    requests: list[dict] = []
    page.on("request", lambda r: requests.append(r.headers) if r.url.endswith("/api/ask") else None)
    login(page, live_server.url, "pembaca")
    page.goto(f"{live_server.url}/api/docs")
    ask = page.locator(".opblock-post", has=page.locator(".opblock-summary-path", has_text="/api/ask"))
    ask.locator(".opblock-summary").click()
    expect(ask.get_by_text("Badan permintaan")).to_be_visible()
    expect(ask.get_by_text("Respons", exact=True)).to_be_visible()
    ask.get_by_role("button", name="Coba").click()
    body = {"question": "Apakah fitur Sinar sekarang sudah tersedia untuk semua pelanggan?"}
    ask.locator("textarea.body-param__text").fill(json.dumps(body))
    ask.get_by_role("button", name="Jalankan").click()
    status = ask.locator(".live-responses-table .response .response-col_status").first
    expect(status).to_have_text("200", timeout=90_000)
    expect(ask.locator(".live-responses-table")).to_contain_text('"status"')
    assert requests and requests[-1].get("x-csrftoken")  # the session's write carried the token
    assert Question.objects.filter(asked_by__username="pembaca", text=body["question"]).exists()
    # Swagger UI's own labels, in Indonesian wherever they appear on the page.
    text = page.locator("#swagger-ui").inner_text()
    for english in ENGLISH:
        assert english not in text, english
    assert not re.search(r"\bOK\b", text) and "Berhasil" in text
    # The generated curl shows no secret of the session.
    token = page.evaluate("document.body.dataset.csrfToken")
    assert token and token not in text and "curl" in text and "<token CSRF sesi>" in text
    expect(ask.get_by_role("button", name="Bersihkan")).to_be_visible()
    # One written by Swagger UI's stylesheet, not its markup.
    after = ask.locator(".parameter__name.required").first.evaluate("el => getComputedStyle(el, '::after').content")
    assert after == '"wajib"', after
    shoot(page, "api-docs-try-it-out")
