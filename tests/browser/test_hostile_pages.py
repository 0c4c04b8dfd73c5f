"""Hostile documents in a real browser: pages that show them run none of
their scripts — no dialog opens, no planted handler fires, nothing is
blocked for being inline because nothing inline is ours."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page

from review.asking import question_ask

from .test_editor_flow import login

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

HOSTILE = """<h1>Sinar <img src=x onerror="window.__pwned=1;alert(1)"></h1>
<p>Fitur Sinar tersedia dalam private preview. <script>window.__pwned=2;alert(2)</script></p>
<p><a id="bad" href="javascript:window.__pwned=3">klik</a>
<svg><script>window.__pwned=4</script><animate onbegin="window.__pwned=5" attributeName="x" dur="1s"/></svg>
<img src=x onerror="window.__pwned=6"><iframe srcdoc="<script>parent.__pwned=7</script>"></iframe>
<details open ontoggle="window.__pwned=8"><summary>x</summary>Sinar untuk pelanggan terpilih.</details></p>"""


def test_pages_showing_hostile_documents_run_nothing(page: Page, live_server, make_revision, make_user):
    make_revision(
        HOSTILE,
        key="X1",
        fmt="html",
        public=True,
        title='<img src=x onerror="window.__pwned=9">T',
        url="javascript:window.__pwned=10",
        source_type="documentation",
    )
    make_revision(
        "# Catatan <img src=x onerror=window.__pwned=11>\n\nFitur Sinar <script>window.__pwned=12"
        "</script> masih private preview. [x](javascript:window.__pwned=13)",
        key="X2",
        public=True,
    )
    editor = make_user("editor")
    answer = question_ask(
        text='<img src=x onerror="window.__pwned=14"> Apakah fitur Sinar tersedia?', user=editor
    ).answer
    dialogs: list[str] = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    login(page, live_server.url, "editor")
    for path in (
        "/dokumen/X1/r1/",
        "/dokumen/X1/",
        "/dokumen/X2/r1/",
        f"/jawaban/{answer.pk}/",
        "/cari/?q=fitur+Sinar+private+preview",
        "/riwayat/",
        "/arsip/",
    ):
        page.goto(live_server.url + path)
        page.wait_for_load_state("networkidle")
        for link in page.locator("a[href^='javascript:']").all():
            link.click()
        assert page.evaluate("window.__pwned") is None, path
    assert dialogs == []
    # The hostile text is on the page, as text.
    page.goto(live_server.url + "/dokumen/X1/r1/")
    assert "onerror" in page.content() and page.locator("img[onerror]").count() == 0
