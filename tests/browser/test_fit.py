"""Claim cards and evidence tables fit a phone (390 px) and a laptop
(1366 px) in real Chromium (issue 44 item 4): the page never runs wider than
the window, every table lies inside its card and scrolls there (its last
column, the highlighted cell included, reachable), and claim text is never
cut. Screenshots only when NALARKU_SCREENSHOTS_DIR is set."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from django.utils import timezone
from playwright.sync_api import Page, expect

from review.asking import question_ask
from review.models import ClaimEvidence, EvidenceLookup, Question
from review.reviewing import claim_review

from .test_editor_flow import login
from .test_tables_phone import WIDE_TABLE

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

# Every table in the page: its card, the box it scrolls in, and whether its
# last column can be scrolled into view; the page's width and cut claim text.
MEASURE = """() => {
  const problems = [];
  const width = window.innerWidth;
  for (const table of document.querySelectorAll('main table')) {
    if (!table.offsetParent) continue;  // folded away (a closed <details>)
    const card = table.closest('.evidence, .chunk-card, .claim-row, .card, .stats, .report, #results, main');
    const box = table.closest('.table-scroll, .table-wrap') || table;
    const c = card.getBoundingClientRect(), b = box.getBoundingClientRect();
    const name = (card.id || card.className) + ' > table';
    if (b.left < c.left - 1 || b.right > c.right + 1) problems.push(name + ' sticks out of its card');
    if (c.left < -1 || c.right > width + 1) problems.push(name + ': card outside the window');
    box.scrollLeft = box.scrollWidth;
    for (const row of table.querySelectorAll('tr')) {
      const last = row.lastElementChild;
      if (last && last.getBoundingClientRect().right > box.getBoundingClientRect().right + 1) {
        problems.push(name + ': last column out of reach');
        break;
      }
    }
    box.scrollLeft = 0;
  }
  for (const label of document.querySelectorAll('svg.chart text')) {
    const svg = label.closest('svg').getBoundingClientRect(), r = label.getBoundingClientRect();
    if (r.left < svg.left - 1 || r.right > svg.right + 1) problems.push('chart label cut: ' + label.textContent);
  }
  for (const text of document.querySelectorAll('.claim-text')) {
    const r = text.getBoundingClientRect();
    if (text.scrollWidth > text.clientWidth + 1 || r.right > width + 1) problems.push('claim text cut: ' + text.id);
  }
  for (const row of document.querySelectorAll('.claim-row, .evidence, .review button')) {
    const r = row.getBoundingClientRect();
    if (r.width && (r.left < -1 || r.right > width + 1)) problems.push('off screen: ' + (row.id || row.className));
  }
  return {scrollWidth: document.documentElement.scrollWidth, innerWidth: width, problems};
}"""


def _shoot(page: Page, name: str) -> None:
    folder = os.environ.get("NALARKU_SCREENSHOTS_DIR")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(folder) / f"{name}.png"), full_page=True)


@pytest.mark.parametrize("width", [390, 1366])
def test_claim_cards_and_evidence_tables_fit(page: Page, live_server, make_user, make_revision, width):
    revision = make_revision(WIDE_TABLE, fmt="html", key="D50", title="Kode perangkat Zamrud", public=True)
    editor = make_user("editor", reviewer=True)
    answer = question_ask(text="Berapa SLA uptime kode LD-4032 dan keterangannya?", user=editor).answer
    cited = ClaimEvidence.objects.filter(claim__answer=answer, chunk__kind="table").first()
    assert cited is not None, answer.contract  # the answer quotes the wide table
    claim_review(claim=cited.claim, reviewer=editor, status="needs_review", note="kolom terakhir dicek")
    # A long lookup under a long category, so the /waktu/ chart draws its widest value label.
    Question.objects.filter(answers=answer).update(category="ketersediaan fitur untuk semua pelanggan korporat")
    now = timezone.now()
    EvidenceLookup.objects.update_or_create(
        editor=editor,
        claim=cited.claim,
        defaults={
            "shown_at": now,
            "decided_at": now,
            "duration_ms": 1_234_567,
            "looked_ms": 1_234_567,
            "outcome": "needs_review",
        },
    )

    page.set_viewport_size({"width": width, "height": 900})
    login(page, live_server.url, "editor")
    pages = {
        "answer": f"/jawaban/{answer.pk}/",
        "revision": f"/dokumen/D50/r{revision.number}/?potongan={cited.chunk.position}#p{cited.chunk.position}",
        "queue": "/antrean/",
        "history": "/riwayat/",
        "lookups": "/waktu/",
        "report": "/laporan/",
    }
    for name, path in pages.items():
        page.goto(live_server.url + path)
        expect(page.locator("main h1").first).to_be_visible()
        if name == "lookups":
            expect(page.locator("svg.chart text").first).to_be_visible()
            # Issue 51 item 6: the chart needs no sideways scroll, its longest label is drawn
            # inside it, and the median and p90 columns are on screen without scrolling.
            seen = page.evaluate(
                """() => ({
                  wraps: [...document.querySelectorAll('.chart-wrap')].map(w => w.scrollWidth - w.clientWidth),
                  labels: [...document.querySelectorAll('svg.chart .lbl')].map(t => {
                    const svg = t.ownerSVGElement.getBoundingClientRect(), r = t.getBoundingClientRect();
                    return [r.left - svg.left, svg.right - r.right, r.top - svg.top];
                  }),
                  columns: [...document.querySelectorAll('.stats th')]
                    .filter(th => /^(Median|p90)/.test(th.textContent))
                    .map(th => th.getBoundingClientRect().right <= window.innerWidth),
                })"""
            )
            assert seen["wraps"] and all(extra <= 1 for extra in seen["wraps"]), (width, seen)
            assert seen["labels"] and all(min(gaps) >= -1 for gaps in seen["labels"]), (width, seen)
            # The longest label whole, not cut with an ellipsis.
            drawn = page.locator("svg.chart .lbl").all_text_contents()
            assert any(t.startswith("ketersediaan fitur untuk semua pelanggan korporat") for t in drawn), drawn
            assert seen["columns"] and all(seen["columns"]), (width, seen)
        if name == "answer":
            row = page.locator(f"#claim-{cited.claim_id}")
            expect(row.locator(".table-scroll mark.cited").first).to_be_attached()
            page.locator("details.evidence-list:not([open]) > summary").evaluate_all(
                "els => els.forEach(s => s.parentElement.open = true)"
            )
        measured = page.evaluate(MEASURE)
        assert measured["scrollWidth"] <= measured["innerWidth"], (name, width, measured)
        assert not measured["problems"], (name, width, measured["problems"])
        _shoot(page, f"fit-{name}-{width}")
    # The highlighted cell of the quoted row scrolls into view inside its box, not past the card.
    page.goto(live_server.url + pages["answer"])
    mark = page.locator(f"#claim-{cited.claim_id} .table-scroll mark.cited").last
    mark.scroll_into_view_if_needed()
    box = page.locator(f"#claim-{cited.claim_id} .table-scroll").first.bounding_box()
    seen = mark.bounding_box()
    assert box and seen and seen["x"] >= box["x"] - 1 and seen["x"] + seen["width"] <= box["x"] + box["width"] + 1
