"""What the desk says on its own rather than leaving to the browser or to
internals (issue 51 item 6), as an editor sees it in Chromium: the ask
form's own Indonesian messages (an empty question, an "as of" day before
the archive holds anything), and a search mode typed into the URL."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from playwright.sync_api import expect

from retrieval.in_force import archive_starts

from .test_editor_flow import login

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]


def test_the_ask_form_speaks_indonesian_not_the_browsers_language(page, live_server, demo_subset):
    login(page, live_server.url, "editor")
    starts = archive_starts(User.objects.get(username="editor"))
    assert starts is not None
    expect(page.locator("#as-of-help")).to_have_text(f"Arsip berisi dokumen sejak {starts:%Y-%m-%d}.")
    # Empty: the page's own message, not the browser's bubble (which would block the request).
    page.get_by_role("button", name="Cari bukti dan susun jawaban").click()
    expect(page.get_by_role("alert")).to_have_text("Tulis pertanyaan Anda dulu: kolom pertanyaan masih kosong.")
    # A day before the archive's first document: said, with that date.
    page.get_by_label("Pertanyaan").fill("Apakah Smart Sync tersedia untuk semua pelanggan?")
    page.locator("#as_of").fill("2001-01-01")
    page.get_by_role("button", name="Cari bukti dan susun jawaban").click()
    expect(page.get_by_role("alert")).to_contain_text(f"Arsip baru berisi dokumen sejak {starts:%Y-%m-%d}")
    expect(page.get_by_label("Pertanyaan")).to_have_value("Apakah Smart Sync tersedia untuk semua pelanggan?")


def test_a_search_mode_typed_in_the_url_is_understood_or_said_unknown(page, live_server, demo_subset):
    login(page, live_server.url, "editor")
    page.goto(f"{live_server.url}/cari/?q=Smart+Sync&mode=semantic")
    expect(page.locator("#results .meta").first).to_contain_text("cara mencari: makna")
    expect(page.get_by_label("Semantik")).to_be_checked()
    page.goto(f"{live_server.url}/cari/?q=Smart+Sync&mode=cepat")
    expect(page.get_by_role("status").filter(has_text="tidak dikenal")).to_contain_text(
        "Cara mencari “cepat” tidak dikenal; dicari dengan cara Hibrida."
    )
    expect(page.locator("#results .meta").first).to_contain_text("gabungan kata persis dan makna")
