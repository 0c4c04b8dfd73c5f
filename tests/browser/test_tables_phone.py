"""An HTML source's wide table on a phone (390 px, real Chromium): the
table scrolls sideways inside its evidence box, the page itself does not,
and a code in a cell ("LD-4032") stays on one line instead of breaking
into one character per line."""

from __future__ import annotations

import pytest
from django.urls import reverse
from playwright.sync_api import Page, expect

from retrieval.models import Chunk

from .test_editor_flow import login

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

WIDE_TABLE = """<h1>Kode perangkat Zamrud</h1>
<p>Kode yang tercetak di label perangkat:</p>
<table>
  <thead><tr><th>Kode</th><th>Kategori</th><th>Harga per bulan</th><th>Penyimpanan termasuk</th>
  <th>Dukungan</th><th>SLA uptime</th><th>Keterangan</th></tr></thead>
  <tbody>
    <tr><td>LD-4032</td><td>Penyimpanan</td><td>Rp1.350.000</td><td>5 TB</td><td>Chat &amp; telepon 24/7</td>
    <td>99,95%</td><td>Kontrak minimum 12 bulan, dihitung pro-rata harian</td></tr>
    <tr><td>ERR_SYNC_TIMEOUT</td><td>Jaringan</td><td>Rp2.100.000</td><td>50 TB</td><td>TAM khusus 24/7</td>
    <td>99,5%</td><td>Sewa perangkat LD-Edge X200 per unit/bulan</td></tr>
  </tbody>
</table>
"""

# Where a text's line boxes are: one distinct top per line it takes.
MEASURE = """text => {
  const box = document.querySelector('.chunk-card .table-scroll');
  const walker = document.createTreeWalker(box, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const at = node.data.indexOf(text);
    if (at < 0) continue;
    const range = document.createRange();
    range.setStart(node, at);
    range.setEnd(node, at + text.length);
    const tops = new Set([...range.getClientRects()].map(r => Math.round(r.top)));
    const probe = document.createElement('span');
    probe.style.whiteSpace = 'nowrap';
    probe.textContent = text;
    node.parentElement.appendChild(probe);
    const natural = probe.getBoundingClientRect().width;
    probe.remove();
    return {lines: tops.size, width: range.getBoundingClientRect().width, natural};
  }
  return null;
}"""


def test_a_wide_table_scrolls_and_its_codes_stay_whole_on_a_phone(page: Page, live_server, make_user, make_revision):
    revision = make_revision(WIDE_TABLE, fmt="html", title="Kode perangkat", public=True)
    chunk = Chunk.objects.get(revision=revision, kind="table")
    make_user("editor")
    page.set_viewport_size({"width": 390, "height": 844})
    login(page, live_server.url, "editor")
    page.goto(live_server.url + reverse("revision", args=[revision.document.key, revision.number]))
    scroller = page.locator(f"#p{chunk.position} .table-scroll")
    expect(scroller.locator("th", has_text="Kategori")).to_be_visible()

    for code in ("LD-4032", "ERR_SYNC_TIMEOUT", "Kategori", "Rp1.350.000"):
        measured = page.evaluate(MEASURE, code)
        assert measured is not None, code
        assert measured["lines"] == 1, (code, measured)  # not "LD -4 03 2", not one character per line
        assert measured["width"] >= measured["natural"] - 1, (code, measured)

    # The table is wider than the phone and scrolls inside its box; the page does not.
    sizes = scroller.evaluate("e => ({scroll: e.scrollWidth, client: e.clientWidth})")
    assert sizes["scroll"] > sizes["client"], sizes
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    card = page.locator(f"#p{chunk.position}").bounding_box()
    assert card["x"] >= 0 and card["x"] + card["width"] <= 390, card
    scroller.evaluate("e => { e.scrollLeft = e.scrollWidth; }")
    assert scroller.evaluate("e => e.scrollLeft") > 0
