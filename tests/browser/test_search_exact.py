"""The walk's case, in Debian's Chromium on part of the demo archive:
``crypto-shredding``, a term D21 holds verbatim, searched in hybrid and in
semantic mode under the real floor. It used to say "kemiripannya 0,84, di
bawah ambang 0,84" and show nothing; now the hit is shown, and the floor's
figures read lower than the bar."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from retrieval.ingestion import revision_index, revision_submit
from retrieval.sources import ManifestEntry, read_manifest

from .conftest import ROOT
from .test_editor_flow import login

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]
KEYS = {"D21", "D12", "D13", "D05", "D06"}


@pytest.fixture
def archive(transactional_db, make_user):
    for entry in read_manifest(ROOT / "demo" / "archive.jsonl"):
        if isinstance(entry, ManifestEntry) and entry.doc_id in KEYS:
            result = revision_submit(data=entry.to_input())
            revision_index(revision_id=result.revision.pk)
    return make_user("editor", "redaksi", "hukum", "produk", reviewer=True)


@pytest.mark.parametrize("mode", ["Hibrida", "Semantik"])
def test_a_term_held_verbatim_is_shown_under_the_floor(page, live_server, archive, mode, shoot):
    login(page, live_server.url, "editor")
    page.goto(f"{live_server.url}/cari/")
    page.get_by_label("Kata kunci atau pertanyaan").fill("crypto-shredding")
    page.get_by_label(mode).check()
    page.get_by_role("button", name="Cari", exact=True).click()
    hit = page.locator(".hit").first
    expect(hit).to_contain_text("D21:r3:p")
    expect(hit.locator(".snippet")).to_contain_text(re.compile("crypto-shredding", re.IGNORECASE))
    note = page.locator("#results .note")
    expect(note).to_contain_text("crypto-shredding")
    expect(note).to_contain_text("persis seperti diketik")
    message = page.locator("#results .empty").inner_text()
    best, bar = re.search(r"kemiripannya ([\d,]+), di bawah ambang ([\d,]+)", message).groups()
    assert float(best.replace(",", ".")) < float(bar.replace(",", "."))
    shoot(page, f"search-exact-{mode.lower()}")
    # The rest on request, as before.
    page.get_by_role("link", name="tampilkan semua").click()
    expect(page.locator(".hit")).to_have_count(10)
