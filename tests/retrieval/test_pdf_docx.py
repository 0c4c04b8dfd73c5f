"""PDF and Word files: ingested from the command line, a manifest and the
admin, with their structure and a PDF's pages kept to the evidence; bad files
refused with their name and the reason, and nothing half-indexed."""

from __future__ import annotations

import base64
import io
import json
from pathlib import Path

import docx
import pytest
from django.core.management import CommandError
from fpdf import FPDF

from retrieval import converters, sources
from retrieval.ingestion import RevisionInput, revision_index, revision_reopen, revision_submit
from retrieval.models import Chunk, Document, Revision, RevisionScan
from retrieval.ocr import ocr_available
from retrieval.search import search
from review.asking import question_ask
from review.desk.export import answer_export_markdown
from review.models import Answer
from tests.commands import run_command

pytestmark = pytest.mark.django_db


def policy_pdf(*, password: str | None = None) -> bytes:
    """Two pages: a title, a paragraph and a list on page 1; a heading, a
    ruled table and a paragraph on page 2."""
    pdf = FPDF()
    if password:
        pdf.set_encryption(owner_password="pemilik", user_password=password)
    pdf.add_page()
    pdf.set_font("Helvetica", "B", 18)
    pdf.cell(0, 10, "Kebijakan Retensi Data", new_x="LMARGIN", new_y="NEXT")
    pdf.set_font("Helvetica", size=11)
    pdf.multi_cell(
        0, 6, "Data pelanggan Nusantara Cloud disimpan di pusat data Jakarta. Kebijakan ini berlaku sejak 1 Maret 2026."
    )
    pdf.ln(4)
    pdf.multi_cell(0, 6, "- Akun yang ditutup dihapus setelah 90 hari.\n- Salinan cadangan disimpan 35 hari.")
    pdf.add_page()
    pdf.set_font("Helvetica", "B", 14)
    pdf.cell(0, 10, "Lama Penyimpanan", new_x="LMARGIN", new_y="NEXT")
    pdf.set_font("Helvetica", size=11)
    with pdf.table() as table:
        for cells in [("Jenis data", "Lama simpan"), ("Log akses", "400 hari"), ("Faktur", "10 tahun")]:
            row = table.row()
            for cell in cells:
                row.cell(cell)
    pdf.ln(4)
    pdf.multi_cell(0, 6, "Permintaan penghapusan dijawab dalam 14 hari kerja.")
    return bytes(pdf.output())


def scanned_pdf() -> bytes:
    """A page with marks but neither a text layer nor a picture to OCR."""
    pdf = FPDF()
    pdf.add_page()
    pdf.rect(20, 20, 120, 80, style="F")
    return bytes(pdf.output())


def guide_docx() -> bytes:
    document = docx.Document()
    document.add_heading("Panduan Akun", level=0)
    document.add_heading("Kata sandi", level=1)
    document.add_paragraph("Kata sandi baru berlaku setelah konfirmasi lewat email.")
    document.add_paragraph("Minimal 12 karakter", style="List Bullet")
    document.add_paragraph("Diganti setiap 180 hari", style="List Bullet")
    document.add_heading("Paket", level=1)
    table = document.add_table(rows=3, cols=2)
    for row, cells in zip(table.rows, [("Paket", "Harga"), ("Dasar", "Rp50.000"), ("Pro", "Rp120.000")], strict=True):
        for cell, text in zip(row.cells, cells, strict=True):
            cell.text = text
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


def ingest(*args: str) -> tuple[str, str, CommandError | None]:
    return run_command("ingest", *args)


def test_a_pdf_keeps_structure_and_pages_to_the_evidence(tmp_path: Path, make_user):
    path = tmp_path / "retensi.pdf"
    path.write_bytes(policy_pdf())
    out, err, error = ingest(str(path), "--public", "--source-type", "policy", "--sync")
    assert error is None, err
    revision = Revision.objects.get(document__key="retensi")
    assert revision.format == "pdf" and revision.title == "Kebijakan Retensi Data" and revision.status == "active"
    assert len(revision.page_starts) == 2
    chunks = list(Chunk.objects.filter(revision=revision))  # small blocks share a chunk ("mixed")
    table = next(c for c in chunks if "Log akses" in c.text)
    assert "| Log akses | 400 hari |" in table.text and table.page == 2
    assert table.heading_path.endswith("Lama Penyimpanan")
    listed = next(c for c in chunks if "90 hari" in c.text)
    assert "- Akun yang ditutup dihapus setelah 90 hari.\n- Salinan" in listed.text and listed.page == 1

    hit = next(h for h in search("berapa lama log akses disimpan", None).results if "Log akses" in h.text)
    assert hit.page == 2 and not hit.ocr  # a text layer, not a scan
    asked = question_ask(text="Dalam berapa hari kerja permintaan penghapusan dijawab?", user=make_user("editor"))
    cited = [asked.contract.evidence[eid] for claim in asked.contract.claims for eid in claim.evidence_ids]
    assert any(e.page == 2 for e in cited), asked.contract
    answer = Answer.objects.get(pk=asked.answer.pk)
    markdown = answer_export_markdown(answer=answer, contract=asked.contract, claims=list(answer.claims.all()))
    assert "revisi 1, hlm. 2" in markdown


def test_the_evidence_card_shows_the_page(client, tmp_path: Path, make_user):
    path = tmp_path / "retensi.pdf"
    path.write_bytes(policy_pdf())
    assert ingest(str(path), "--public", "--sync")[2] is None
    client.force_login(make_user("editor", reviewer=True))
    page = client.get("/cari/", {"q": "log akses 400 hari"}).content.decode()
    assert "hlm. 2" in page


def test_a_docx_becomes_headings_lists_and_tables(tmp_path: Path):
    path = tmp_path / "panduan.docx"
    path.write_bytes(guide_docx())
    out, err, error = ingest(str(path), "--public", "--sync")
    assert error is None, err
    revision = Revision.objects.get(document__key="panduan")
    assert revision.format == "docx" and revision.title == "Panduan Akun" and revision.page_starts == []
    chunks = list(Chunk.objects.filter(revision=revision))
    table = next(c for c in chunks if "Rp120.000" in c.text)
    assert "| Pro | Rp120.000 |" in table.text and table.heading_path.endswith("Paket") and table.page is None
    listed = next(c for c in chunks if "12 karakter" in c.text)
    assert listed.heading_path.endswith("Kata sandi") and "- Minimal 12 karakter" in revision.content


def test_a_manifest_takes_a_path_or_base64_content(tmp_path: Path):
    (tmp_path / "berkas").mkdir()
    (tmp_path / "berkas" / "retensi.pdf").write_bytes(policy_pdf())
    lines = [
        {"doc_id": "P1", "title": "Retensi", "format": "pdf", "path": "berkas/retensi.pdf", "public": True},
        {
            "doc_id": "W1",
            "title": "Panduan",
            "format": "docx",
            "public": True,
            "content": base64.b64encode(guide_docx()).decode(),
        },
        {"doc_id": "X1", "title": "Rusak", "format": "pdf", "content": "bukan base64!"},
        {"doc_id": "X2", "title": "Dua", "format": "pdf", "path": "berkas/retensi.pdf", "content": "QQ=="},
    ]
    manifest = tmp_path / "arsip.jsonl"
    manifest.write_text("\n".join(json.dumps(line) for line in lines), encoding="utf-8")
    out, err, error = ingest("--manifest", str(manifest), "--sync")
    assert error is not None and "2 masukan ditolak" in str(error)
    assert "arsip.jsonl baris 3 (X1): content untuk format pdf harus base64 yang sah" in err
    assert (
        "baris 4 (X2): isi harus diberikan dengan tepat satu dari content, path atau fetch (ada content, path)" in err
    )
    assert Chunk.objects.filter(document__key="P1", page=2).exists()
    assert Chunk.objects.filter(document__key="W1", text__contains="| Pro | Rp120.000 |").exists()
    assert not Document.objects.filter(key__in=["X1", "X2"]).exists()


def test_a_banner_before_the_pdf_header_is_read_as_readers_do(tmp_path: Path):
    """A program's banner before %PDF (pdfplumber's issue-848.pdf): within
    1,024 bytes the file is a PDF; past them it is not."""
    banner = b"Generated by ReportTool 2.1 -- do not edit\r\n" * 5
    path = tmp_path / "laporan.pdf"
    path.write_bytes(banner + policy_pdf())
    out, err, error = ingest(str(path), "--public", "--sync")
    assert error is None, err
    revision = Revision.objects.get(document__key="laporan")
    assert revision.status == "active" and len(revision.page_starts) == 2
    assert Chunk.objects.filter(revision=revision, text__contains="| Log akses | 400 hari |", page=2).exists()
    far = tmp_path / "jauh.pdf"
    far.write_bytes(b"#" * 1024 + policy_pdf())
    out, err, error = ingest(str(far), "--sync")
    assert error is not None and "tidak ada %PDF- di 1.024 bita pertama" in err, err


@pytest.mark.parametrize(
    ("name", "data", "reason"),
    [
        ("kosong.pdf", scanned_pdf(), "PDF tanpa teks yang terbaca (1 halaman): tidak ada lapisan teks maupun gambar"),
        ("rahasia.pdf", policy_pdf(password="sandi"), "PDF terenkripsi dengan kata sandi"),
        ("terpotong.pdf", policy_pdf()[:700], "PDF rusak atau tidak lengkap"),
        ("palsu.pdf", b"<html>bukan pdf</html>", "bukan file PDF"),
        ("rusak.docx", b"PK\x03\x04 bukan arsip zip", "DOCX rusak atau bukan DOCX"),
        (
            "terkunci.docx",
            b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(600),
            "terenkripsi dengan kata sandi atau berformat .doc lama",
        ),
    ],
)
def test_a_bad_file_is_refused_with_its_name_and_reason(tmp_path: Path, name: str, data: bytes, reason: str):
    path = tmp_path / name
    path.write_bytes(data)
    out, err, error = ingest(str(path), "--sync")
    assert error is not None
    assert f"{name}: " in err and reason in err, err
    assert not Document.objects.exists() and not Revision.objects.exists() and not Chunk.objects.exists()


def letter_scan(lines: list[str], *, pages: int = 1) -> bytes:
    """A scanned letter: Indonesian text drawn into a 200 dpi picture, saved
    as a PDF with no text layer (Pillow's own font, so no system font is needed)."""
    from PIL import Image, ImageDraw, ImageFont

    font = ImageFont.load_default(size=40)
    sheets = []
    for _ in range(pages):
        sheet = Image.new("L", (1654, 2339), 255)
        draw = ImageDraw.Draw(sheet)
        for n, line in enumerate(lines):
            draw.text((150, 200 + 70 * n), line, fill=0, font=font)
        sheets.append(sheet)
    out = io.BytesIO()
    sheets[0].save(out, format="PDF", resolution=200.0, save_all=True, append_images=sheets[1:])
    return out.getvalue()


LETTER = [
    "Surat Keputusan Dewan Redaksi",
    "",
    "Masa berlaku kartu pers adalah dua belas bulan",
    "sejak tanggal diterbitkan. Perpanjangan diajukan",
    "paling lambat tiga puluh hari sebelum berakhir.",
    "Kode arsip: SK-2026/041.",
]


@pytest.mark.skipif(not ocr_available(), reason="ocrmypdf not installed (scripts/ensure-ocr.sh installs it)")
def test_a_scanned_letter_is_ocrd_and_found_by_a_word_on_it(client, tmp_path: Path, make_user):
    path = tmp_path / "sk-kartu-pers.pdf"
    path.write_bytes(letter_scan(LETTER))
    out, err, error = ingest(str(path), "--public", "--sync")
    assert error is None, err
    revision = Revision.objects.get(document__key="sk-kartu-pers")
    assert revision.status == "active" and len(revision.page_starts) == 1
    assert "Perpanjangan diajukan" in revision.content and "SK-2026/041" in revision.content
    assert revision.ocr_pages == [1]
    hits = search("perpanjangan kartu pers", make_user("pembaca"), k=3, mode="lexical").results
    assert hits and hits[0].document == "sk-kartu-pers" and hits[0].page == 1 and hits[0].ocr

    # What OCR read says so wherever it is shown: the evidence card, the
    # search results, the contract and the export.
    editor = make_user("editor", reviewer=True)
    client.force_login(editor)
    page = client.get("/cari/", {"q": "perpanjangan kartu pers"}).content.decode()
    assert "hasil OCR</span>" in page
    asked = question_ask(text="Berapa lama masa berlaku kartu pers?", user=editor)  # their own question
    assert asked.contract.evidence and all(e.ocr for e in asked.contract.evidence.values()), asked.contract
    answer = Answer.objects.get(pk=asked.answer.pk)
    markdown = answer_export_markdown(answer=answer, contract=asked.contract, claims=list(answer.claims.all()))
    assert "hlm. 1, hasil OCR" in markdown
    assert "hasil OCR</span>" in client.get(f"/jawaban/{asked.answer.pk}/").content.decode()


def test_a_scan_over_the_ocr_page_limit_is_refused_with_the_limit(tmp_path: Path, settings):
    settings.NALARKU_OCR_MAX_PAGES = 1
    path = tmp_path / "tebal.pdf"
    path.write_bytes(letter_scan(LETTER, pages=2))
    out, err, error = ingest(str(path), "--sync")
    assert error is not None
    assert "tebal.pdf: PDF hasil pindai: 2 halaman tanpa teks, batas OCR 1 halaman (NALARKU_OCR_MAX_PAGES)" in err, err
    assert not Revision.objects.exists()


def test_a_file_over_the_limit_is_refused_before_it_is_read(tmp_path: Path, monkeypatch):
    monkeypatch.setattr(sources, "MAX_FILE_BYTES", 1024)
    path = tmp_path / "besar.pdf"
    path.write_bytes(policy_pdf())
    out, err, error = ingest(str(path), "--sync")
    assert error is not None and "besar.pdf: file 0.0 MB; batasnya 0 MB" in err
    assert not Revision.objects.exists()


def test_an_admin_uploads_a_pdf_as_a_new_revision(admin_client, tmp_path: Path, make_revision):
    document = make_revision("# Retensi\n\nDraf lama.", key="RET", public=True).document
    form = {"document": document.pk, "title": "Kebijakan Retensi Data", "format": "markdown", "content": ""}
    upload = io.BytesIO(policy_pdf())
    upload.name = "retensi-2026.pdf"
    response = admin_client.post("/admin/retrieval/revision/add/", {**form, "upload": upload})
    assert response.status_code == 302, response.content.decode()[:2000]
    revision = Revision.objects.get(document=document, number=2)
    assert revision.format == "pdf" and len(revision.page_starts) == 2 and "400 hari" in revision.content

    broken = io.BytesIO(policy_pdf(password="sandi"))
    broken.name = "terkunci.pdf"
    page = admin_client.post("/admin/retrieval/revision/add/", {**form, "upload": broken}).content.decode()
    assert "terkunci.pdf: PDF terenkripsi dengan kata sandi" in page
    assert Revision.objects.filter(document=document).count() == 2


@pytest.mark.skipif(not ocr_available(), reason="ocrmypdf not installed (scripts/ensure-ocr.sh installs it)")
def test_an_uploaded_scan_waits_for_the_worker_and_is_read_there(admin_client, make_revision):
    document = make_revision("# Kartu pers\n\nDraf lama.", key="SK", public=True).document
    form = {"document": document.pk, "title": "SK kartu pers", "format": "markdown", "content": ""}
    data = letter_scan(LETTER)

    def upload() -> str:
        scan = io.BytesIO(data)
        scan.name = "sk-kartu-pers.pdf"
        response = admin_client.post("/admin/retrieval/revision/add/", {**form, "upload": scan}, follow=True)
        return response.content.decode()

    page = upload()
    assert "worker membacanya dengan OCR dulu" in page, page[:3000]
    revision = Revision.objects.get(document=document, number=2)
    # Not read in the request: the file waits as it came, the revision empty.
    assert revision.status == "pending" and revision.content == "" and RevisionScan.objects.filter(revision=revision)
    assert "Isi sama dengan revisi terakhir" in upload()  # the same scan again adds nothing
    assert Revision.objects.filter(document=document).count() == 2

    heard: list[str] = []
    result = revision_index(revision_id=revision.pk, progress=heard.append)  # as the worker does
    revision.refresh_from_db()
    assert result.status == "active" and "Perpanjangan diajukan" in revision.content, revision.error
    assert revision.ocr_pages == [1] and revision.progress == "" and len(revision.page_starts) == 1
    assert heard == ["OCR: membaca pindaian …", "OCR: 1 dari 1 halaman"]
    assert not RevisionScan.objects.filter(revision=revision).exists()
    assert all(c.ocr for c in revision.chunks.all())


@pytest.mark.skipif(not ocr_available(), reason="ocrmypdf not installed (scripts/ensure-ocr.sh installs it)")
def test_a_scan_past_the_time_limit_fails_with_the_reason_and_stays_for_a_retry(settings):
    settings.NALARKU_OCR_TIMEOUT_SECONDS = 0.05
    submitted = revision_submit(
        data=RevisionInput(key="LAMBAT", title="Surat", content="", format="pdf", scan=letter_scan(LETTER))
    )
    result = revision_index(revision_id=submitted.revision.pk)
    revision = Revision.objects.get(pk=submitted.revision.pk)
    assert result.status == "failed" and revision.status == "failed"
    assert "OCR melewati batas waktu 0.05 detik (NALARKU_OCR_TIMEOUT_SECONDS)" in revision.error
    assert revision.progress == "" and RevisionScan.objects.filter(revision=revision).exists()

    settings.NALARKU_OCR_TIMEOUT_SECONDS = 600  # re-indexing (the admin's action) tries again
    revision_reopen(revision_id=revision.pk)
    assert revision_index(revision_id=revision.pk, force=True).status == "active"


def transcript_pdf() -> bytes:
    """Four pages of a hearing, each under the same running header and over
    a numbered footer, the first chapter heading repeated as a larger title."""
    pdf = FPDF()
    speeches = [
        "Hakim Ketua membuka sidang perkara nomor 12 tentang sengketa frekuensi siaran.",
        "Kuasa pemohon menyatakan izin siaran diterbitkan pada 3 Januari 2025.",
        "Saksi ahli menjelaskan bahwa pita 700 MHz telah dialokasikan ulang.",
        "Majelis menunda sidang sampai 14 Februari 2026 untuk mendengar saksi lain.",
    ]
    for n, speech in enumerate(speeches, start=1):
        pdf.add_page()
        pdf.set_font("Helvetica", size=9)
        pdf.cell(0, 6, "Official - Subject to Final Review", new_x="LMARGIN", new_y="NEXT")
        pdf.set_font("Helvetica", "B", 16)
        pdf.cell(0, 10, "Bab 1 Persidangan", new_x="LMARGIN", new_y="NEXT")
        pdf.set_font("Helvetica", size=11)
        pdf.multi_cell(0, 6, speech)
        pdf.set_y(-20)
        pdf.set_font("Helvetica", size=9)
        pdf.cell(0, 6, f"Halaman {n} dari 4", new_x="LMARGIN", new_y="NEXT")
    return bytes(pdf.output())


def test_running_headers_and_footers_are_kept_once(tmp_path: Path):
    path = tmp_path / "sidang.pdf"
    path.write_bytes(transcript_pdf())
    out, err, error = ingest(str(path), "--public", "--sync")
    assert error is None, err
    revision = Revision.objects.get(document__key="sidang")
    assert revision.content.count("Official - Subject to Final Review") == 1
    assert revision.content.count("Halaman") == 1 and "Halaman 1 dari 4" in revision.content
    assert revision.content.count("Bab 1 Persidangan") == 4  # larger than body text: a heading, not a running line
    chunks = list(Chunk.objects.filter(revision=revision))
    assert sum("Official - Subject" in c.text for c in chunks) == 1
    assert all(speech_word in revision.content for speech_word in ("frekuensi", "700 MHz", "14 Februari 2026"))


FILES = Path(__file__).parent / "files"


def test_a_turned_page_reads_in_order_with_a_header_cell_per_ruled_column(tmp_path: Path):
    """pdfplumber's rotated statistics table (tests/retrieval/files/SOURCES.md)."""
    out, err, error = ingest(str(FILES / "nics-background-checks-2015-11-rotated.pdf"), "--doc-id", "NICS", "--sync")
    assert error is None, err
    content = Revision.objects.get(document__key="NICS").content
    # Lines in reading order, not words interleaved down the turned columns
    # ("These Some **Multiple *Refers statistics states …" before).
    assert "| NICS Firearm Background Checks November - 2015 |" in content
    assert "DISCLAIMERS: These statistics represent the number of firearm background checks" in content
    assert "These Some" not in content
    # One header cell per column where the ruling cuts the row, under its group's label.
    assert (
        "| State / Territory | Permit | Handgun | Long Gun | *Other | **Multiple | Admin "
        "| Pre-Pawn Handgun | Pre-Pawn Long Gun | Pre-Pawn *Other | Redemption Handgun |" in content
    )
    assert content.count("NICS Firearm Background Checks") == 1


def test_a_frame_around_tables_is_not_a_table_again():
    """pdfplumber finds the frame and the tables in it (tests/retrieval/files/SOURCES.md)."""
    text = converters.convert((FILES / "issue-140-example.pdf").read_bytes(), "pdf").text
    assert text.count("LILYS 40% SLTD ALMND CHOC") == 1
    assert "\nAssociated claims\n" in text  # the frame's own text, read as a line
    assert "| Line no | UPC code | Location | Item Description |" in text


def numbered_pdf() -> bytes:
    pdf = FPDF()
    pdf.add_page()
    pdf.set_font("Helvetica", size=11)
    for line in [
        "Agenda rapat redaksi:",
        "1. Pembukaan oleh pemimpin redaksi",
        "2. Laporan liputan banjir",
        "a) Foto dari lapangan",
        "Nomor perkara 2023-",
        "0379 diputus pekan lalu; ringkasan putusan dikirimkan sore ini oleh redaktur pelak-",
        "sana.",
    ]:
        pdf.cell(0, 6, line, new_x="LMARGIN", new_y="NEXT")
    return bytes(pdf.output())


def test_list_numbers_stay_and_numbers_broken_at_a_line_end_keep_their_hyphen():
    text = converters.convert(numbered_pdf(), "pdf").text
    assert "1. Pembukaan oleh pemimpin redaksi\n2. Laporan liputan banjir\n- a) Foto dari lapangan" in text
    assert "Nomor perkara 2023-0379 diputus" in text and "redaktur pelaksana." in text
