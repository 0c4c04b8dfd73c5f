"""Adding a document in the admin (issue 44, item 6): the "Tambahkan
dokumen" form takes its first revision — pasted text or a file — and hands
it to the intake (revision_submit, then the index task after commit); the
admin lands on the new document with its revision and status; the format is
the file's; bad files are refused with the intake's Indonesian reasons."""

from __future__ import annotations

import io

import pytest
from bs4 import BeautifulSoup
from django.contrib.auth.models import Group

from nalarku_site.celery import app as celery_app
from retrieval.models import Document, Revision, SourceType

from .test_admin_uploads import policy_pdf, shown_messages

pytestmark = pytest.mark.django_db

ADD = "/admin/retrieval/document/add/"


def form(**fields: object) -> dict:
    SourceType.ensure("documentation")
    return {
        "key": "N1",
        "title": "Kebijakan Retensi Data",
        "url": "",
        "source_type": "documentation",
        "collection": "editorial",
        "public": "on",
        "fetch_every_hours": "",
        "content": "",
        "format": "markdown",
        "document_date": "",
        # The relations inline's management form.
        "relations_out-TOTAL_FORMS": "0",
        "relations_out-INITIAL_FORMS": "0",
        **fields,
    }


@pytest.fixture
def eager():
    celery_app.conf.task_always_eager = True
    yield
    celery_app.conf.task_always_eager = False


def test_a_new_document_takes_its_first_revision_from_pasted_text(
    admin_client, eager, django_capture_on_commit_callbacks
):
    Group.objects.create(name="hukum")
    hukum = Group.objects.get(name="hukum").pk
    with django_capture_on_commit_callbacks(execute=True) as queued:
        response = admin_client.post(
            ADD,
            form(content="# Retensi\n\nLog akses disimpan 400 hari.", document_date="2026-03-01", groups=[hukum]),
            follow=True,
        )
    document = Document.objects.get(key="N1")
    [revision] = document.revisions.all()
    # The intake made it and the index task ran after commit (eager here): indexed, active.
    assert len(queued) == 1
    assert revision.status == "active" and revision.chunks.exists() and document.current_revision_id == revision.pk
    assert revision.document_date.isoformat() == "2026-03-01" and revision.format == "markdown"
    assert list(document.groups.values_list("name", flat=True)) == ["hukum"] and document.public
    # It lands on the document, showing the revision and its status: waiting
    # when the page was drawn (before the commit), active once indexed.
    assert response.redirect_chain[-1][0] == f"/admin/retrieval/document/{document.pk}/change/"
    assert shown_messages(response) == ["Dokumen N1 dibuat; revisi N1:r1 diantrikan untuk diindeks."]
    row = BeautifulSoup(response.content.decode(), "html.parser").select("#revisions-group tbody tr")[0]
    assert row.get_text(" ", strip=True).startswith("N1:r1") and "Menunggu" in row.get_text()
    again = admin_client.get(response.redirect_chain[-1][0]).content.decode()
    row = BeautifulSoup(again, "html.parser").select("#revisions-group tbody tr")[0]
    assert "Aktif" in row.get_text()


def test_a_pdf_chosen_is_a_pdf_whatever_the_select_said(admin_client, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=False) as queued:
        response = admin_client.post(
            ADD, form(upload=policy_pdf("Log akses disimpan 400 hari."), format="markdown"), follow=True
        )
    revision = Revision.objects.get(document__key="N1")
    assert revision.format == "pdf" and "400 hari" in revision.content and revision.page_starts == [0]
    assert revision.status == "pending" and len(queued) == 1  # handed to the index task after commit
    assert response.redirect_chain[-1][0].endswith("/change/")
    html = response.content.decode()
    assert "N1" in html and "menunggu" in html.lower()


def test_bad_first_revisions_are_refused_in_indonesian(admin_client):
    exe = io.BytesIO(b"MZ\x90\x00binary")
    exe.name = "alat.exe"
    response = admin_client.post(ADD, form(upload=exe))
    assert "alat.exe: format tidak dikenal; gunakan .pdf, .docx, .md, .html atau .txt" in response.content.decode()
    broken = io.BytesIO(b"%PDF-1.4 rusak")
    broken.name = "rusak.pdf"
    response = admin_client.post(ADD, form(upload=broken))
    assert response.status_code == 200 and "rusak.pdf:" in response.content.decode()
    response = admin_client.post(ADD, form(content="   "))
    assert "isi kosong: tempel teks atau unggah berkas" in response.content.decode()
    assert not Document.objects.filter(key="N1").exists()
    # A key taken is the admin's own uniqueness error, nothing half-made.
    Document.objects.create(key="N1", title="ada", source_type_id="documentation")
    response = admin_client.post(ADD, form(content="# Baru\n\nIsi."))
    assert response.status_code == 200 and not Revision.objects.filter(document__key="N1").exists()


def test_a_document_to_fetch_needs_no_first_revision(admin_client):
    response = admin_client.post(ADD, form(url="https://contoh.example/kebijakan", fetch_every_hours="24"), follow=True)
    document = Document.objects.get(key="N1")
    assert not document.revisions.exists() and document.fetch_every_hours == 24
    assert response.redirect_chain[-1][0] == f"/admin/retrieval/document/{document.pk}/change/"


def test_the_add_form_offers_the_first_revision_and_the_format_follows_the_file(admin_client):
    html = admin_client.get(ADD).content.decode()
    page = BeautifulSoup(html, "html.parser")
    assert page.select_one("input[type=file][name=upload][data-formats]") is not None
    assert page.select_one("textarea[name=content]") is not None and "Revisi pertama" in html
    assert "js/admin-upload.js" in html


def test_a_revision_added_lands_on_its_document(admin_client, make_revision):
    document = make_revision("# A\n\nSatu.", key="N2", public=True).document
    response = admin_client.post(
        "/admin/retrieval/revision/add/",
        {"document": document.pk, "title": "", "format": "markdown", "content": "# A\n\nDua."},
        follow=True,
    )
    assert response.redirect_chain[-1][0] == f"/admin/retrieval/document/{document.pk}/change/"
    rows = BeautifulSoup(response.content.decode(), "html.parser").select("#revisions-group tbody tr")
    assert "2" in rows[0].get_text(" ", strip=True).split()[0]  # newest first


NOBODY = "Dokumen ini belum terlihat oleh siapa pun selain superuser"


def test_a_new_document_nobody_can_read_is_said_so_and_listed(admin_client, django_capture_on_commit_callbacks):
    """Issue 51 item 4: neither public nor shared with a group, the document is
    the superusers' alone. The form says what leaving both empty means, saving
    says so, and the list counts such documents and shows them on one click."""
    page = BeautifulSoup(admin_client.get(ADD).content.decode(), "html.parser")
    assert "belum terlihat oleh siapa pun" in page.select_one("#id_public_helptext").get_text()
    with django_capture_on_commit_callbacks(execute=False):
        response = admin_client.post(ADD, form(public="", content="# Memo\n\nIsi memo."), follow=True)
    assert any(m.startswith(NOBODY) for m in shown_messages(response)), shown_messages(response)
    with django_capture_on_commit_callbacks(execute=False):
        response = admin_client.post(ADD, form(key="N2", content="# Publik\n\nIsi publik."), follow=True)
    assert not any(m.startswith(NOBODY) for m in shown_messages(response))

    listing = admin_client.get("/admin/retrieval/document/")
    assert any(m.startswith("1 dokumen belum terlihat oleh siapa pun") for m in shown_messages(listing))
    unread = BeautifulSoup(admin_client.get("/admin/retrieval/document/?pembaca=tidak-ada").content, "html.parser")
    keys = [a.get_text() for a in unread.select("#result_list tbody th a")]
    assert keys == ["N1"]
    # Given a group, it is read by someone: the warning goes.
    hukum = Group.objects.create(name="hukum")
    Document.objects.get(key="N1").groups.add(hukum)
    listing = admin_client.get("/admin/retrieval/document/")
    assert not any("belum terlihat" in m for m in shown_messages(listing))
