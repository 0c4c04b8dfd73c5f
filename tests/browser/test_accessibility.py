"""axe-core (the engine behind Lighthouse's accessibility audit, through
axe-playwright-python) on every page of the desk, as an editor with the
review right and as a read-only reader: no serious or critical violation,
and no console error (a missing favicon, a CSP refusal) on the way."""

from __future__ import annotations

import re

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Page

from review.asking import question_ask

from .test_editor_flow import QUESTION, login

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]
SERIOUS = {"serious", "critical"}


def audit(page: Page, url: str) -> list[str]:
    page.goto(url)
    page.wait_for_load_state("networkidle")
    results = Axe().run(page)
    assert results.response["testEngine"]["name"] == "axe-core"  # the engine did run on the page
    return [
        f"{url}: {v['id']} ({v['impact']}) × {len(v['nodes'])} — {v['help']}"
        for v in results.response["violations"]
        if v["impact"] in SERIOUS
    ]


@pytest.mark.parametrize("who", ["editor", "pembaca"])
def test_no_serious_accessibility_violation_and_no_console_error(page, live_server, demo_subset, who):
    errors: list[str] = []
    page.on("console", lambda m: errors.append(f"{page.url}: {m.text}") if m.type == "error" else None)
    answer = question_ask(text=QUESTION, user=demo_subset[who]).answer  # each reader's own question
    evidence = next(iter(answer.contract["evidence"]))
    base = live_server.url
    login(page, base, who)
    document, revision = re.match(r"(\w+):r(\d+):", evidence).groups()
    pages = [
        "/",
        f"/jawaban/{answer.pk}/",
        "/riwayat/",
        "/cari/?q=Smart+Sync",
        "/arsip/",
        f"/dokumen/{document}/",
        f"/dokumen/{document}/r{revision}/",
        f"/bukti/{evidence}/",
        "/laporan/",
        "/tidak-ada/",
    ]
    if who == "editor":
        pages += ["/antrean/", "/waktu/"]
    found = [v for path in pages for v in audit(page, base + path)]
    assert not found, "\n".join(found)
    # The 404 page's own status is the only "error" a browser reports.
    assert all("status of 404" in e and "/tidak-ada/" in e for e in errors), errors
