"""A conflict as an editor sees it, in Debian's Chromium: the demo's
Smart Sync question, whose sources disagree (the article D16 still says
private preview; the FAQ D11 r2 of the same day and the announcement D14
say everyone has it). Each source is on the side its own text takes, the
sources are grouped under their side and folded, the head says which side
is more authoritative and that the newest dates are the same, and on a
phone the sides fold under the head so that the first claim is on the
first screen, not three screens down."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from .test_editor_flow import ask, login

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

PHONE = {"width": 390, "height": 844}


def _sides(page: Page) -> list[dict]:
    """Each side of the first conflict: its label and the documents of its cards."""
    return (
        page.locator(".conflict")
        .first.locator(".conflict-side")
        .evaluate_all(
            """sides => sides.map(side => ({
             label: side.querySelector('.side-label').textContent.trim(),
             docs: [...side.querySelectorAll('.side-sources .eid')].map(e => e.textContent.split(':')[0]),
             folded: !side.querySelector('details.side-sources').open,
             authoritative: side.classList.contains('is-authoritative'),
             newer: !!side.querySelector('.badge.info')}))"""
        )
    )


def test_conflict_sides_weighed_grouped_and_claims_first_on_a_phone(page, live_server, demo_subset, worker):
    login(page, live_server.url, "editor")
    ask(page)
    expect(page.get_by_role("heading", name="Sumber bertentangan")).to_be_visible()
    sides = _sides(page)
    assert len(sides) == 2, sides
    by_doc = {doc: side for side in sides for doc in side["docs"]}
    # Each source on the side its own text takes.
    assert re.search(r"private preview", by_doc["D16"]["label"], re.I), sides
    assert "D14" in by_doc and by_doc["D14"] is not by_doc["D16"], sides
    assert not re.search(r"private preview", by_doc["D14"]["label"], re.I), sides
    # Grouped: every source card sits under exactly one side, folded until asked for.
    assert all(side["folded"] for side in sides)
    assert all(
        len(set(side["docs"]) & set(other["docs"])) == 0 for side in sides for other in sides if side is not other
    )

    head = page.locator(".conflict .conflict-head").first.inner_text()
    assert re.search(r"Lebih berwenang: “[^”]+” — \w+", head) or "Sama berwenang" in head, head
    # The newest dates of the two sides are both 2026-05-20: never "newer".
    assert "Tanggal sama (2026-05-20)" in head, head
    assert not any(side["newer"] for side in sides), sides
    note = page.locator(".conflict .conflict-note p").first.text_content()
    assert not re.search(r"\((\d{4}-\d\d-\d\d)\) lebih baru dari [^()]+\(\1\)", note), note

    # Unfolding a side shows its cards, newest first.
    first_side = page.locator(".conflict-side").first
    first_side.locator("summary").click()
    expect(first_side.locator(".side-sources .evidence").first).to_be_visible()

    # A phone: the conflict is its head, its sides folded; the first claim is on screen one.
    page.set_viewport_size(PHONE)
    page.reload()
    claim_top = page.locator(".claim-row").first.evaluate("e => e.getBoundingClientRect().top + window.scrollY")
    assert claim_top < PHONE["height"], f"the first claim starts at {claim_top:.0f} px"
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    conflict = page.locator(".conflict").first
    expect(conflict.locator(".conflict-head")).to_contain_text("Tanggal sama (2026-05-20)")
    expect(conflict.locator(".conflict-side").first).to_be_hidden()
    conflict.get_by_text("Kedua sisi dan sumbernya").click()
    expect(conflict.locator(".conflict-side").first).to_be_visible()
    # The skip link takes the editor straight to the claims.
    page.get_by_role("link", name="Langsung ke klaim").click()
    expect(page.get_by_role("heading", name="Klaim dan buktinya")).to_be_in_viewport()
