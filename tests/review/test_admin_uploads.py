"""Adding a revision in the admin (issue 21, item 6): a re-upload of the
same file changes nothing — no revision, no new title — and says only that;
a changed one names the revision it added, with its real number; the title
changes only through the form's own title field."""

from __future__ import annotations

import io

import pytest
from bs4 import BeautifulSoup
from django.contrib.admin.models import ADDITION, LogEntry
from fpdf import FPDF

from retrieval.models import Document, Revision

pytestmark = pytest.mark.django_db

ADD = "/admin/retrieval/revision/add/"


def policy_pdf(*paragraphs: str) -> io.BytesIO:
    pdf = FPDF()
    pdf.add_page()
    pdf.set_font("Helvetica", "B", 16)
    pdf.cell(0, 10, "Kebijakan Retensi Data", new_x="LMARGIN", new_y="NEXT")
    pdf.set_font("Helvetica", size=11)
    for paragraph in paragraphs:
        pdf.multi_cell(0, 6, paragraph)
        pdf.ln(3)
    upload = io.BytesIO(bytes(pdf.output()))
    upload.name = "retensi.pdf"
    return upload


def shown_messages(response) -> list[str]:  # noqa: ANN001
    page = BeautifulSoup(response.content.decode(), "html.parser")
    return [li.get_text(" ", strip=True) for li in page.select("ul.messagelist li")]


@pytest.fixture
def d03(make_revision) -> Document:
    """D03 with two revisions from the manifest; r3 comes from an upload."""
    make_revision("# Retensi\n\nDraf pertama.", key="D03", title="Kebijakan Retensi Data", public=True)
    return make_revision("# Retensi\n\nDraf kedua.", key="D03", title="Kebijakan Retensi Data", public=True).document


def post(admin_client, document: Document, upload: io.BytesIO, *, title: str = "", fmt: str = "markdown", **extra: str):  # noqa: ANN001, ANN201
    form = {"document": document.pk, "title": title, "format": fmt, "content": "", "upload": upload, **extra}
    return admin_client.post(ADD, form, follow=True)


def test_the_same_file_again_changes_nothing_and_says_only_that(admin_client, d03):
    first = post(admin_client, d03, policy_pdf("Log akses disimpan 400 hari."), title="Kebijakan Retensi Data")
    assert shown_messages(first) == ["Revisi D03:r3 ditambahkan dan diantrikan untuk diindeks."]
    before = Document.objects.get(pk=d03.pk)
    logged = LogEntry.objects.count()

    # The same PDF, with a title and a format typed for a test that went wrong.
    again = post(admin_client, d03, policy_pdf("Log akses disimpan 400 hari."), title="Uji format salah", fmt="html")
    # Back on the document, its revisions newest first (not the list of every revision).
    assert again.status_code == 200 and again.redirect_chain[-1][0] == f"/admin/retrieval/document/{d03.pk}/change/"
    assert shown_messages(again) == [
        "Isi sama dengan revisi terakhir (D03:r3); tidak ada revisi baru dan dokumen tidak diubah."
    ]
    after = Document.objects.get(pk=d03.pk)
    assert (after.title, after.updated_at) == ("Kebijakan Retensi Data", before.updated_at)
    assert list(d03.revisions.values_list("number", "title")) == [
        (1, "Kebijakan Retensi Data"),
        (2, "Kebijakan Retensi Data"),
        (3, "Kebijakan Retensi Data"),
    ]
    assert LogEntry.objects.count() == logged  # the admin's history records no addition either
    assert "Uji format salah" not in admin_client.get("/admin/retrieval/document/").content.decode()


def test_a_changed_file_names_the_revision_it_added(admin_client, d03):
    response = post(
        admin_client,
        d03,
        policy_pdf("Log akses disimpan 400 hari.", "Faktur 10 tahun."),
        title="Kebijakan Retensi Data 2026",
    )
    assert shown_messages(response) == ["Revisi D03:r3 ditambahkan dan diantrikan untuk diindeks."]
    assert "rNone" not in response.content.decode()
    revision = Revision.objects.get(document=d03, number=3)
    assert revision.format == "pdf" and "Faktur 10 tahun" in revision.content
    # The form's own title field is what renames the document.
    assert Document.objects.get(pk=d03.pk).title == revision.title == "Kebijakan Retensi Data 2026"
    [entry] = LogEntry.objects.filter(action_flag=ADDITION, object_id=str(revision.pk))
    assert entry.object_repr == "D03:r3"

    # Left empty, the title stays the document's; "save and continue" opens the new revision.
    response = post(admin_client, d03, policy_pdf("Log akses disimpan 365 hari."), _continue="1")
    r4 = d03.revisions.get(number=4)
    assert response.redirect_chain[-1][0] == f"/admin/retrieval/revision/{r4.pk}/change/"
    assert shown_messages(response) == ["Revisi D03:r4 ditambahkan dan diantrikan untuk diindeks."]
    assert r4.title == Document.objects.get(pk=d03.pk).title == "Kebijakan Retensi Data 2026"


def test_pasted_text_equal_to_the_last_revision_adds_nothing_either(admin_client, d03):
    form = {"document": d03.pk, "title": "Judul lain", "format": "markdown", "content": "# Retensi\n\nDraf kedua."}
    response = admin_client.post(ADD, form, follow=True)
    assert shown_messages(response) == [
        "Isi sama dengan revisi terakhir (D03:r2); tidak ada revisi baru dan dokumen tidak diubah."
    ]
    assert Document.objects.get(pk=d03.pk).title == "Kebijakan Retensi Data"
    assert d03.revisions.count() == 2
