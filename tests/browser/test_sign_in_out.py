"""Signing in and out in Debian's Chromium: a failed login keeps the
username typed, signing out says "Anda sudah keluar", and a form sent from a
tab whose session signed in again elsewhere is refused with a way to sign in
that returns to the page — the page's own form and an htmx request alike."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]


def test_sign_in_out_and_a_changed_session(page, live_server, make_user):
    make_user("editor")
    base = live_server.url
    page.goto(f"{base}/masuk/")
    page.get_by_label("Nama pengguna").fill("editor")
    page.get_by_label("Kata sandi").fill("salah")
    page.get_by_role("button", name="Masuk").click()
    expect(page.get_by_role("alert")).to_contain_text("Nama pengguna atau kata sandi salah")
    expect(page.get_by_label("Nama pengguna")).to_have_value("editor")
    expect(page.get_by_label("Kata sandi")).to_be_focused()
    page.get_by_label("Kata sandi").fill("rahasia-uji")
    page.get_by_role("button", name="Masuk").click()
    expect(page.get_by_role("heading", name="Tanya arsip")).to_be_visible()

    page.get_by_role("button", name=re.compile(r"Keluar")).click()
    page.wait_for_url(re.compile(r"/masuk/"))
    expect(page.get_by_role("status")).to_have_text("Anda sudah keluar.")
    expect(page.get_by_label("Nama pengguna")).to_have_value("")

    # Two tabs: the second signs out and in again; the first's form is now stale.
    page.get_by_label("Nama pengguna").fill("editor")
    page.get_by_label("Kata sandi").fill("rahasia-uji")
    page.get_by_role("button", name="Masuk").click()
    page.goto(f"{base}/riwayat/")
    asker = page.context.new_page()  # a third tab, its question sent by htmx
    asker.goto(f"{base}/")
    other = page.context.new_page()
    other.goto(f"{base}/")
    other.get_by_role("button", name=re.compile(r"Keluar")).click()
    other.get_by_label("Nama pengguna").fill("editor")
    other.get_by_label("Kata sandi").fill("rahasia-uji")
    other.get_by_role("button", name="Masuk").click()
    expect(other.get_by_role("heading", name="Tanya arsip")).to_be_visible()
    other.close()

    # htmx's 403 for the changed session says so in place, with the way back,
    # and keeps what was typed.
    asker.get_by_label("Pertanyaan").fill("Kapan Smart Sync tersedia?")
    asker.get_by_role("button", name="Cari bukti dan susun jawaban").click()
    flash = asker.locator("#flash")
    expect(flash).to_contain_text("Sesi Anda berubah")
    expect(flash.get_by_role("link", name="Masuk lagi")).to_have_attribute("href", "/masuk/?next=%2F")
    expect(asker.get_by_label("Pertanyaan")).to_have_value("Kapan Smart Sync tersedia?")
    asker.close()

    page.get_by_role("button", name=re.compile(r"Keluar")).click()
    expect(page.get_by_role("heading", name="Tidak diizinkan")).to_be_visible()
    expect(page.locator("main")).to_contain_text("Sesi Anda berubah")
    page.get_by_role("link", name="Masuk lagi").click()
    page.wait_for_url(re.compile(r"/masuk/\?next=%2Friwayat%2F"))
    page.get_by_label("Nama pengguna").fill("editor")
    page.get_by_label("Kata sandi").fill("rahasia-uji")
    page.get_by_role("button", name="Masuk").click()
    page.wait_for_url(re.compile(r"/riwayat/$"))
