"""The lookup clock in Chromium (static/js/nalarku.js; review/lookups.py
says what it measures). Time is Playwright's clock, moved by the test: an
editor looks at a claim, hides the tab for 30 s, comes back, leaves the
window idle for 150 s, leaves the page; opens the answer again in a new
session and decides after 4 s. The page's clock is paused: real time does
not flow, however loaded the machine. The record holds the seconds spent looking
(a minute of the idle stretch at most), not the 190 s of wall time."""

from __future__ import annotations

import time

import pytest
from playwright.sync_api import Page, expect

from review.asking import question_ask
from review.models import EvidenceLookup

from .test_editor_flow import QUESTION, login

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

START = 1_767_600_000_000  # 2026-01-05, in ms: any fixed instant
HIDE = """hidden => {
  Object.defineProperty(document, "visibilityState", {configurable: true, get: () => hidden ? "hidden" : "visible"});
  document.dispatchEvent(new Event("visibilitychange"));
}"""


def _look(page: Page, seconds: int) -> None:
    """The editor active for ``seconds``: the mouse moves every second."""
    for n in range(seconds):
        page.mouse.move(200 + n % 7, 300 + n % 5)
        page.clock.run_for(1000)


def _looked(claim_pk: int, at_least: int) -> int:
    """The server's sum of the reports, once the beacon has arrived."""
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        looked = EvidenceLookup.objects.get(claim_id=claim_pk).looked_ms
        if looked >= at_least:
            return looked
        time.sleep(0.2)
    return EvidenceLookup.objects.get(claim_id=claim_pk).looked_ms


def _open(browser, base: str, answer_pk: int) -> tuple[Page, int]:  # noqa: ANN001
    context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="id-ID")
    context.set_default_timeout(60_000)
    page = context.new_page()
    login(page, base, "editor")
    # Paused from the start, so only run_for moves the page's time: a loaded
    # machine's own delays (page load, the beacon's round trip) are not
    # looking, and the bands below hold however slow the host is.
    page.clock.install(time=START)
    page.clock.pause_at(START + 1000)
    page.goto(f"{base}/jawaban/{answer_pk}/")
    row = page.locator("[data-lookup]").first
    row.scroll_into_view_if_needed()
    return page, int(row.get_attribute("id").removeprefix("claim-"))


def test_hidden_tab_idle_window_and_a_reopened_answer_count_only_looking(browser, live_server, demo_subset):
    answer = question_ask(text=QUESTION, user=demo_subset["editor"]).answer
    page, claim_pk = _open(browser, live_server.url, answer.pk)

    _look(page, 6)  # on screen from the start: 6 s counted
    page.evaluate(HIDE, True)  # the tab hidden: the clock pauses, the 6 s go out in a beacon
    assert 5500 <= _looked(claim_pk, 5500) <= 6500
    page.clock.run_for(30_000)
    page.evaluate(HIDE, False)
    _look(page, 3)
    page.clock.run_for(150_000)  # nobody at the window: a minute counts at most
    page.goto(f"{live_server.url}/")  # leaving the page sends what is left
    first_visit = _looked(claim_pk, 60_000)
    assert 65_000 <= first_visit <= 71_000, first_visit
    page.context.close()

    # Reopened in a new session: 4 s, then "Didukung".
    page, again = _open(browser, live_server.url, answer.pk)
    assert again == claim_pk
    _look(page, 4)
    row = page.locator(f"#claim-{claim_pk}")
    row.get_by_role("button", name="Didukung").click()
    expect(page.locator(f"#claim-{claim_pk} .decided")).to_be_visible()
    lookup = EvidenceLookup.objects.get(claim_id=claim_pk)
    assert lookup.outcome == "supported"
    assert first_visit + 3500 <= lookup.duration_ms <= first_visit + 5000, (first_visit, lookup.duration_ms)
    assert EvidenceLookup.objects.filter(claim_id=claim_pk).count() == 1
    page.context.close()
