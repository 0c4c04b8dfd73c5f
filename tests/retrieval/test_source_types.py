"""Source types are data: any type ingests, a new one is created and
reported with the lowest authority, and the authority admins set orders the
evidence for questions about the present."""

from __future__ import annotations

import json
from io import StringIO
from pathlib import Path

import pytest
from django.contrib.auth.models import Permission
from django.core.management import CommandError, call_command

from answering.context import ContextPolicy, context_select
from retrieval import source_types
from retrieval.hits import Hit
from retrieval.models import Document, SourceType
from tests.commands import run_command

pytestmark = pytest.mark.django_db


def ingest(*args: str) -> tuple[str, str, CommandError | None]:
    return run_command("ingest", *args)


def manifest_line(doc_id: str, source_type: str, **fields: object) -> str:
    return json.dumps(
        {
            "doc_id": doc_id,
            "title": f"Judul {doc_id}",
            "source_type": source_type,
            "public": True,
            "format": "text",
            "content": f"Isi dokumen {doc_id}.",
            **fields,
        }
    )


def test_the_defaults_are_seeded_with_their_authority():
    ranks = SourceType.ranks()
    assert ranks["documentation"] == ranks["policy"] == ranks["spec"] == 1
    assert ranks["documentation"] < ranks["announcement"] < ranks["transcript"] < ranks["article"] < ranks["other"]
    assert SourceType.labels()["announcement"] == "Pengumuman"


def test_a_manifest_with_new_types_ingests_every_line(tmp_path: Path):
    types = ["official_docs", "memo", "changelog", "documentation", "Memo", "article"]
    manifest = tmp_path / "arsip.jsonl"
    manifest.write_text("\n".join(manifest_line(f"T{n}", kind) for n, kind in enumerate(types)), encoding="utf-8")
    out, err, error = ingest("--manifest", str(manifest), "--sync")
    assert error is None, err
    assert "Dokumen baru: 6; revisi baru: 6" in out
    assert (
        "Jenis sumber baru dibuat (otoritas terendah; periksa label dan peringkatnya di admin): "
        "changelog, memo, official_docs" in out
    )
    assert Document.objects.get(key="T4").source_type_id == "memo"  # keys are lower case
    lowest = max(SourceType.ranks()[k] for k in ("documentation", "article", "other"))
    for key in ("official_docs", "memo", "changelog"):
        kind = SourceType.objects.get(pk=key)
        assert kind.authority == lowest and kind.created_by_ingest
    assert SourceType.objects.get(pk="official_docs").label == "official docs"

    out, err, error = ingest("--manifest", str(manifest), "--sync")
    assert error is None and "Jenis sumber baru" not in out  # reported once, when created


def test_a_malformed_type_and_other_bad_fields_are_refused_in_indonesian(tmp_path: Path):
    manifest = tmp_path / "arsip.jsonl"
    manifest.write_text(
        "\n".join(
            [
                manifest_line("B1", "dokumen resmi!"),
                manifest_line("B2", "memo", public="kadang"),
                manifest_line("B3", "memo", format="odt"),
                manifest_line("B4", "memo", title="x" * 501),
                manifest_line("OK", "memo"),
            ]
        ),
        encoding="utf-8",
    )
    out, err, error = ingest("--manifest", str(manifest), "--sync")
    assert error is not None and "4 masukan ditolak" in str(error)
    assert "baris 1 (B1): source_type: 'dokumen resmi!' bukan kunci jenis sumber yang sah" in err
    assert "baris 2 (B2): public: harus true atau false" in err
    assert "baris 3 (B3): format: harus salah satu dari: 'markdown', 'html', 'text', 'pdf' atau 'docx'" in err
    assert "baris 4 (B4): title: paling banyak 500 karakter" in err
    assert "Input should" not in err and "String should" not in err  # no English from pydantic
    assert Document.objects.filter(key="OK").exists()


def test_the_command_line_takes_any_well_formed_type(tmp_path: Path):
    page = tmp_path / "memo.md"
    page.write_text("# Memo\n\nRapat redaksi dipindah ke Kamis.", encoding="utf-8")
    out, err, error = ingest(str(page), "--source-type", "internal_memo", "--public", "--sync")
    assert error is None, err
    assert "internal_memo" in out and Document.objects.get(key="memo").source_type_id == "internal_memo"
    with pytest.raises(CommandError, match="bukan kunci jenis sumber yang sah"):
        call_command("ingest", str(page), "--source-type", "Memo Internal", stdout=StringIO(), stderr=StringIO())


def hit(document: str, source_type: str, date: str) -> Hit:
    return Hit(
        evidence_id=f"{document}:r1:p1",
        document=document,
        revision=1,
        title=document,
        heading_path="",
        text=f"Isi {document}.",
        superseded=False,
        lexical_rank=1,
        semantic_rank=1,
        rrf_score=0.1,
        semantic_score=0.9,
        source_type=source_type,
        document_date=date,
        url="",
    )


def test_authority_set_in_admin_orders_evidence_for_the_present():
    hits = [hit("BLOG", "article", "2026-06-01"), hit("DOCS", "documentation", "2026-01-01")]

    def order() -> list[str]:
        return [
            h.document for h in context_select(hits, question="sekarang?", newest_first=True, policy=ContextPolicy())
        ]

    assert order() == ["DOCS", "BLOG"]  # official first, though older
    SourceType.objects.filter(pk="article").update(authority=1)
    source_types.clear()
    assert order() == ["BLOG", "DOCS"]  # equal authority: the newest first
    SourceType.objects.filter(pk="article").update(authority=4)
    source_types.clear()
    assert source_types.authority("never_seen") > max(SourceType.ranks().values())


def test_admin_counts_only_documents_the_admin_may_read(client, make_user, make_revision):
    make_revision("Isi publik.", key="P1", fmt="text", public=True)
    make_revision("Isi rahasia.", key="H1", fmt="text", public=False, groups=["hukum"])
    staff = make_user("staf", "redaksi", is_staff=True)
    staff.user_permissions.add(
        *Permission.objects.filter(
            content_type__app_label="retrieval", codename__in=["view_sourcetype", "change_sourcetype"]
        )
    )
    client.force_login(staff)
    page = client.get("/admin/retrieval/sourcetype/?q=other").content.decode()
    counts = page.split('class="field-document_count">')[1:]
    assert counts and counts[0].startswith("1<"), counts[:1]
