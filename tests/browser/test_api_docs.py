"""The API's interactive docs in Debian's Chromium, under the site's
Content-Security-Policy: Swagger UI renders the schema (title, the three
endpoints, the bearer scheme's Authorize button) and nothing is blocked."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from .test_editor_flow import login

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]


def test_api_docs_render_for_a_logged_in_user(page, live_server, demo_subset):
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    login(page, live_server.url, "pembaca")
    page.goto(f"{live_server.url}/api/docs")
    expect(page.locator("#swagger-ui .info .title")).to_contain_text("Nalarku API")
    for path in ("/api/search", "/api/ask", "/api/claims/{pk}/review"):
        expect(page.locator(".opblock-summary-path", has_text=path).first).to_be_visible()
    expect(page.get_by_role("button", name="Authorize")).to_be_visible()
    assert not errors, errors
