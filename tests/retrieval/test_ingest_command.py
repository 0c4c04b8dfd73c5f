"""python manage.py ingest: manifests, files and every kind of bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from django.contrib.auth.models import Group
from django.core.management import CommandError

from retrieval.models import Document, Revision
from tests.commands import run_command

pytestmark = pytest.mark.django_db


def run(*args: str) -> tuple[str, str, CommandError | None]:
    return run_command("ingest", *args)


def line(doc_id: str, content: str, **fields: object) -> str:
    return json.dumps(
        {
            "doc_id": doc_id,
            "title": f"Judul {doc_id}",
            "source_type": "documentation",
            "document_date": "2026-03-01",
            "groups": ["redaksi"],
            "public": False,
            "format": "markdown",
            "content": content,
            **fields,
        },
        ensure_ascii=False,
    )


def test_manifest_with_revisions_sync(tmp_path: Path):
    manifest = tmp_path / "arsip.jsonl"
    manifest.write_text(
        "\n".join(
            [
                line("D12", "# Fitur\n\nPrivate preview.", groups=["redaksi", "produk-baru"]),
                line("D12", "# Fitur\n\nTersedia untuk semua pelanggan.", document_date="2026-05-02"),
                line("D13", "Artikel mengutip D12.", format="text", relations=[{"type": "cites", "target": "D12"}]),
            ]
        ),
        encoding="utf-8",
    )
    out, err, error = run("--manifest", str(manifest), "--sync")
    assert error is None, err
    assert "Dokumen baru: 2; revisi baru: 3" in out
    assert "Grup baru dibuat: produk-baru, redaksi" in out
    r1, r2 = Revision.objects.filter(document__key="D12").order_by("number")
    assert (r1.status, r2.status) == ("superseded", "active")
    assert [c.key for c in r2.chunks.all()] == ["D12:r2:p1"]
    assert Document.objects.get(key="D13").relations_out.get().target.key == "D12"

    out, _, _ = run("--manifest", str(manifest), "--sync")  # identical again: nothing new
    assert "revisi baru: 0; tidak berubah: 3" in out
    assert Revision.objects.count() == 3


def test_bad_lines_are_named_and_good_lines_kept(tmp_path: Path):
    manifest = tmp_path / "campur.jsonl"
    manifest.write_bytes(
        "\n".join(
            [
                line("OK1", "# Baik\n\nIsi pertama."),
                json.dumps({"doc_id": "X1", "content": "tanpa judul"}),
                line("X2", "Isi.", document_date="2026-02-30"),
                "{tidak json",
                line("X3", ""),
                line("X4", "Isi.", format="odt"),
                line("OK2", "# Baik\n\nIsi kedua."),
            ]
        ).encode()
        + b"\n\xff\xfe rusak\n",
    )
    out, err, error = run("--manifest", str(manifest), "--sync")
    assert error is not None and "6 masukan ditolak" in str(error)
    assert "campur.jsonl baris 2 (X1): title: wajib diisi" in err
    assert "campur.jsonl baris 3 (X2): document_date:" in err
    assert "campur.jsonl baris 4: JSON tidak valid" in err
    assert "campur.jsonl baris 5 (X3): isi harus diberikan dengan tepat satu dari content, path atau fetch" in err
    assert "campur.jsonl baris 6 (X4): format:" in err
    assert "campur.jsonl baris 8: bukan UTF-8 yang valid (byte 0xff" in err
    assert set(Document.objects.values_list("key", flat=True)) == {"OK1", "OK2"}
    assert set(Revision.objects.values_list("status", flat=True)) == {"active"}


def test_files_with_options(tmp_path: Path):
    guide = tmp_path / "panduan.md"
    guide.write_text("# Panduan Akun\n\n## Sandi\n\nGanti sandi tiap 90 hari.", encoding="utf-8")
    page = tmp_path / "halaman.html"
    page.write_text("<h1>Harga</h1><p>Paket Pro Rp50.000.</p>", encoding="utf-8")
    out, err, error = run(
        str(guide),
        "--groups",
        "hukum,redaksi",
        "--source-type",
        "policy",
        "--document-date",
        "2026-01-15",
        "--url",
        "https://contoh.id/p",
        "--sync",
    )
    assert error is None, err
    document = Document.objects.get(key="panduan")
    assert document.title == "Panduan Akun" and document.source_type_id == "policy"
    assert set(document.groups.values_list("name", flat=True)) == {"hukum", "redaksi"}
    assert document.current_revision.document_date.isoformat() == "2026-01-15"
    _, err, error = run(str(page), "--doc-id", "H1", "--public", "--sync")
    assert error is None, err
    assert Document.objects.get(key="H1").public
    assert Document.objects.get(key="H1").current_revision.chunks.get().heading_path == "Harga"


def test_bad_files_are_reported_clearly(tmp_path: Path):
    (tmp_path / "kosong.md").write_text("  \n", encoding="utf-8")
    (tmp_path / "biner.txt").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00")
    (tmp_path / "laporan.odt").write_bytes(b"PK\x03\x04")
    (tmp_path / "rusak.html").write_text("<script>alert(1)</script><style>x</style>", encoding="utf-8")
    big = tmp_path / "besar.txt"
    big.write_text(("Paragraf panjang tentang sinkronisasi. " * 30 + "\n\n") * 4600, encoding="utf-8")
    good = tmp_path / "baik.txt"
    good.write_text("Dokumen yang baik.", encoding="utf-8")
    files = ["kosong.md", "biner.txt", "laporan.odt", "rusak.html", "besar.txt", "baik.txt"]
    _, err, error = run(*[str(tmp_path / f) for f in files], "--sync")
    assert error is not None and "5 masukan ditolak" in str(error)
    assert "kosong.md: isi dokumen kosong" in err
    assert "biner.txt: file biner" in err
    assert "laporan.odt: format tidak dikenal '.odt'" in err
    assert "rusak.html: tidak ada teks yang bisa dibaca sebagai html" in err
    assert "besar.txt: file 5.1 MB; batasnya 4 MB" in err
    assert list(Document.objects.values_list("key", flat=True)) == ["baik"]


def test_files_in_legacy_encodings_are_read_as_a_browser_reads_them(tmp_path: Path):
    page = (
        '<html><head><meta charset="windows-1252"><title>Tarif</title></head><body>'
        "<h1>Tarif \u201cPremium\u201d</h1><p>Biaya \u20ac5 per bulan \u2014 termasuk caf\u00e9 di lounge.</p>"
        "</body></html>"
    )
    (tmp_path / "tarif.html").write_bytes(page.encode("windows-1252"))
    note = "Catatan r\u00e9sum\u00e9: pemilik caf\u00e9 \u00e0 la carte di Menteng, na\u00efve tapi jujur. " * 3
    (tmp_path / "catatan.txt").write_bytes(note.encode("iso-8859-1"))
    _, err, error = run(str(tmp_path / "tarif.html"), str(tmp_path / "catatan.txt"), "--public", "--sync")
    assert error is None, err
    html = Document.objects.get(key="tarif").current_revision
    assert "Tarif \u201cPremium\u201d" in html.content and "\u20ac5 per bulan \u2014 termasuk caf\u00e9" in html.content
    text = Document.objects.get(key="catatan").current_revision.content
    assert "r\u00e9sum\u00e9" in text and "caf\u00e9 \u00e0 la carte" in text and "\ufffd" not in text


def test_usage_errors():
    _, _, error = run()
    assert error is not None and "--manifest" in str(error)
    _, _, error = run("--manifest", "/tidak/ada.jsonl")
    assert error is not None and "tidak ditemukan" in str(error)


def test_without_sync_revisions_wait_for_workers(tmp_path: Path):
    page = tmp_path / "a.txt"
    page.write_text("Isi menunggu worker.", encoding="utf-8")
    out, _, error = run(str(page))
    assert error is None
    assert "diantrikan" in out
    assert Revision.objects.get().status == "pending"
    assert Group.objects.count() == 0
