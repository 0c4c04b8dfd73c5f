"""An admin adds a document with its first revision in Debian's Chromium:
choosing a PDF turns the format to PDF at once, saving lands on the new
document showing revision r1 and its status, and the worker (a real Celery
worker thread) indexes it through the usual intake."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from retrieval.models import Revision, SourceType
from tests.review.test_admin_uploads import policy_pdf

from .test_editor_flow import login

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]


def test_add_a_document_with_its_first_revision(page, live_server, make_user, worker, tmp_path, shoot):
    SourceType.ensure("documentation")
    make_user("boss", is_staff=True, is_superuser=True)
    pdf = tmp_path / "retensi.pdf"
    pdf.write_bytes(policy_pdf("Log akses disimpan 400 hari.").getvalue())
    login(page, live_server.url, "boss")
    page.goto(f"{live_server.url}/admin/retrieval/document/add/")
    expect(page.get_by_role("heading", name="Revisi pertama")).to_be_visible()
    page.locator("#id_key").fill("N7")
    page.locator("#id_title").fill("Kebijakan Retensi Data")
    page.locator("#id_source_type").select_option("documentation")
    page.locator("#id_public").check()
    assert page.locator("#id_format").input_value() == "markdown"
    page.locator("#id_upload").set_input_files(str(pdf))
    # The format follows the file, before anything is sent.
    expect(page.locator("#id_format")).to_have_value("pdf")
    expect(page.locator(".format-follows")).to_contain_text("retensi.pdf")
    shoot(page, "admin-new-document")
    page.get_by_role("button", name="Simpan", exact=True).click()

    page.wait_for_url(re.compile(r"/admin/retrieval/document/\d+/change/$"))
    expect(page.locator(".messagelist")).to_contain_text("Dokumen N7 dibuat; revisi N7:r1 diantrikan untuk diindeks.")
    row = page.locator("#revisions-group tbody tr").first
    expect(row).to_contain_text("N7:r1")
    expect(row).to_contain_text(re.compile(r"Menunggu|Sedang diindeks|Aktif"))
    shoot(page, "admin-new-document-saved")
    revision = Revision.objects.get(document__key="N7")
    assert revision.format == "pdf"
    # Indexed by the worker: the document page says so after a reload.
    for _ in range(60):
        page.reload()
        if "Aktif" in page.locator("#revisions-group tbody tr").first.inner_text():
            break
        page.wait_for_timeout(1000)
    expect(page.locator("#revisions-group tbody tr").first).to_contain_text("Aktif")
