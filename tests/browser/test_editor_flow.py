"""An editor's day in a real browser: log in, ask the demo's
feature-availability question, read claims beside their evidence with the
conflict and superseded badges, mark a claim supported, see the lookup time
recorded; a reader outside a group cannot reach restricted evidence by URL.
Saves screenshots of the main pages under docs/screenshots/."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from review.models import EvidenceLookup

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

QUESTION = "Apakah Smart Sync sekarang sudah tersedia untuk semua pelanggan?"


def login(page: Page, base: str, username: str) -> None:
    page.goto(f"{base}/masuk/")
    page.get_by_label("Nama pengguna").fill(username)
    page.get_by_label("Kata sandi").fill("rahasia-uji")
    page.get_by_role("button", name="Masuk").click()
    expect(page.get_by_role("heading", name="Tanya arsip")).to_be_visible()


def ask(page: Page, question: str = QUESTION) -> None:
    """Ask from the home page and wait for the answer's page."""
    page.get_by_label("Pertanyaan").fill(question)
    page.get_by_role("button", name="Cari bukti dan susun jawaban").click()
    page.wait_for_url(re.compile(r"/jawaban/\d+/"), timeout=90_000)


def test_editor_asks_reviews_and_the_lookup_is_timed(page, live_server, demo_subset, worker, shoot):
    base = live_server.url
    page.goto(f"{base}/masuk/")
    shoot(page, "login")
    login(page, base, "editor")

    page.get_by_label("Pertanyaan").fill(QUESTION)
    page.get_by_label("Kategori").fill("ketersediaan fitur")
    shoot(page, "ask")
    page.get_by_role("button", name="Cari bukti dan susun jawaban").click()
    page.wait_for_url(re.compile(r"/(pertanyaan|jawaban)/\d+/"))
    if "/pertanyaan/" in page.url:
        expect(page.locator("#progress .stages")).to_be_visible()
        shoot(page, "progress")
    page.wait_for_url(re.compile(r"/jawaban/\d+/"))

    expect(page.locator("#answer-status")).to_have_text("Perlu ditinjau")
    expect(page.get_by_role("heading", name="Sumber bertentangan")).to_be_visible()
    conflict = page.locator(".conflict").first
    expect(conflict).to_contain_text("private preview")
    expect(conflict).to_contain_text("tersedia untuk semua pelanggan")
    first = page.locator(".claim-row").first
    expect(first.locator(".badge", has_text="Sumber bertentangan")).to_be_visible()
    # The first claims' evidence is open, rendered as its source reads, with the unit marked.
    expect(first.locator(".evidence").first).to_be_visible()
    expect(first.locator(".evidence mark.cited").first).to_be_visible()
    expect(first.locator(".evidence .eid").first).to_have_text(re.compile(r"^D\d+:r\d+:p\d+$"))
    shoot(page, "answer")

    first.get_by_label("Catatan").fill("Sesuai dokumentasi resmi r3.")
    first.get_by_role("button", name="Didukung").click()
    expect(page.locator(".claim-row").first.locator(".decided")).to_contain_text("Didukung")
    lookup = EvidenceLookup.objects.get(editor=demo_subset["editor"], decided_at__isnull=False)
    assert lookup.outcome == "supported" and lookup.duration_ms > 0

    page.goto(f"{base}/waktu/")
    expect(page.locator("table").first).to_contain_text("editor")
    shoot(page, "dashboard")

    # As of a date before GA: the private-preview revision, flagged as superseded since.
    page.goto(f"{base}/")
    page.get_by_label("Pertanyaan").fill("Apa status Smart Sync untuk pelanggan?")
    page.get_by_label("Menurut arsip per tanggal").fill("2026-03-15")
    page.get_by_role("button", name="Cari bukti dan susun jawaban").click()
    page.wait_for_url(re.compile(r"/jawaban/\d+/"))
    # Judged against the revision in force that day: no "Revisi lama", and what came since said apart.
    expect(page.locator("#newer-since")).to_contain_text(re.compile(r"Sejak tanggal itu, .*D\d+ kini r\d"))
    expect(page.locator(".badge", has_text="Revisi lama")).to_have_count(0)
    shoot(page, "answer-as-of")

    page.goto(f"{base}/cari/?q=Smart+Sync+private+preview&mode=hybrid&lama=1")
    expect(page.locator(".hit").first).to_be_visible()
    shoot(page, "search")
    page.goto(f"{base}/dokumen/D13/beda/?dari=1&ke=3")
    expect(page.locator("tr.add").first).to_be_visible()
    shoot(page, "diff")
    page.goto(f"{base}/antrean/")
    shoot(page, "queue")


def test_reader_outside_the_group_cannot_reach_restricted_evidence(page, live_server, demo_subset, shoot):
    base = live_server.url
    login(page, base, "pembaca")
    for path in ("/bukti/D24:r1:p1/", "/dokumen/D24/", "/dokumen/D24/r1/"):
        response = page.goto(f"{base}{path}")
        assert response.status == 404, path
        expect(page.get_by_role("heading", name="Tidak ditemukan")).to_be_visible()
        assert "Garuda" not in page.content()
    page.goto(f"{base}/cari/?q=Proyek+Garuda+Biru")
    assert "Garuda Biru" not in page.locator("#results").inner_text()
    page.set_viewport_size({"width": 390, "height": 844})  # a phone
    page.goto(f"{base}/dokumen/D13/r3/#p1")
    expect(page.locator("#p1")).to_be_visible()
    shoot(page, "revision-phone")


def test_form_errors_show_in_place_without_debug(page, live_server, demo_subset, settings):
    """With DEBUG off (as the test server runs), htmx swaps the 400 into the
    form: whitespace only, too long (counted as the editor types, refused
    whole rather than cut) and a future date each say what is wrong; no
    console error on the way but the browser's own note of each 400."""
    assert not settings.DEBUG
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" and "status of 400" not in m.text else None)
    base = live_server.url
    login(page, base, "pembaca")
    ask = page.get_by_role("button", name="Cari bukti dan susun jawaban")
    page.get_by_label("Pertanyaan").fill("   ")
    ask.click()
    expect(page.get_by_role("alert").filter(has_text="kolom pertanyaan masih kosong")).to_be_visible()

    page.get_by_label("Pertanyaan").fill("Apakah Smart Sync sudah GA? " * 80)  # 2,240 characters
    expect(page.locator("#question-count")).to_contain_text("2240 / 2000 karakter — terlalu panjang")
    page.get_by_role("button", name="Cari bukti dan susun jawaban").click()
    expect(page.get_by_role("alert").filter(has_text="terlalu panjang")).to_be_visible()
    assert len(page.get_by_label("Pertanyaan").input_value()) == 2240  # kept, not cut

    page.get_by_label("Pertanyaan").fill("Apakah Smart Sync sudah GA?")
    page.evaluate("document.getElementById('as_of').removeAttribute('max')")
    page.get_by_label("Menurut arsip per tanggal").fill("2999-01-01")
    page.get_by_role("button", name="Cari bukti dan susun jawaban").click()
    expect(page.get_by_role("alert").filter(has_text="masa depan")).to_be_visible()
    assert "/tanya/" not in page.url and not errors, errors


def test_an_editor_reviews_from_the_keyboard_alone(page, live_server, demo_subset, worker):
    """d / t decide the current claim, the pressed button says so
    (aria-pressed), and focus moves on to the next undecided claim; in tab
    order a claim's evidence comes before its buttons."""
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    base = live_server.url
    login(page, base, "editor")
    page.get_by_label("Pertanyaan").fill(QUESTION)
    page.keyboard.press("Tab")
    page.get_by_role("button", name="Cari bukti dan susun jawaban").press("Enter")
    page.wait_for_url(re.compile(r"/jawaban/\d+/"), timeout=60_000)
    expect(page.locator("#shortcuts")).to_contain_text("didukung")
    rows = page.locator("[data-claim]")
    assert rows.count() >= 2, "the demo question's answer has several claims"
    first, second = rows.nth(0).get_attribute("id"), rows.nth(1).get_attribute("id")
    order = page.evaluate(
        """id => { const row = document.getElementById(id);
        const items = [...row.querySelectorAll('summary, button, input')];
        return items.map(e => e.tagName.toLowerCase()); }""",
        first,
    )
    assert order[0] == "summary" and "button" in order, order

    page.keyboard.press("d")
    expect(page.locator(f"#{first} [data-decide=supported]")).to_have_attribute("aria-pressed", "true")
    expect(page.locator(f"#{first} [data-decide=needs_review]")).to_have_attribute("aria-pressed", "false")
    page.wait_for_function("id => document.activeElement && document.activeElement.id === id", arg=second)
    page.keyboard.press("t")
    expect(page.locator(f"#{second} [data-decide=needs_review]")).to_have_attribute("aria-pressed", "true")
    # Focus moves on to the next undecided claim, if there is one; wait for
    # it before going back, or the k would race the move.
    ids = [rows.nth(n).get_attribute("id") for n in range(rows.count())]
    if len(ids) > 2:
        page.wait_for_function("id => document.activeElement && document.activeElement.id === id", arg=ids[2])
    page.keyboard.press("k")  # back to the previous claim
    page.wait_for_function(
        "id => document.activeElement && document.activeElement.id === id", arg=second if len(ids) > 2 else first
    )
    from review.models import Claim

    decided = dict(
        Claim.objects.filter(pk__in=[int(first.split("-")[1]), int(second.split("-")[1])]).values_list(
            "pk", "review_status"
        )
    )
    assert decided == {int(first.split("-")[1]): "supported", int(second.split("-")[1]): "needs_review"}
    assert not errors, errors
