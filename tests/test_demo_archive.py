"""The demo archive itself: every line valid, the scenarios it promises present."""

import io
from pathlib import Path

from retrieval.chunking import has_text
from retrieval.sources import InputProblem, ManifestEntry, read_manifest

DEMO = Path(__file__).resolve().parent.parent / "demo"


def test_demo_manifest_is_clean_and_complete():
    entries = list(read_manifest(DEMO / "archive.jsonl"))
    problems = [e for e in entries if isinstance(e, InputProblem)]
    assert problems == []
    entries = [e for e in entries if isinstance(e, ManifestEntry)]
    assert all(has_text(e.content, e.format) for e in entries)
    documents = {e.doc_id for e in entries}
    assert len(documents) >= 30
    assert {e.format for e in entries} == {"markdown", "html", "text"}
    revisions = {d: [e for e in entries if e.doc_id == d] for d in documents}
    assert len(revisions["D13"]) == 3 and "private preview" in revisions["D13"][0].content.lower()
    assert "tersedia untuk semua pelanggan" in revisions["D13"][-1].content.lower()
    assert any(not e.public and e.groups == ["hukum"] for e in entries)
    assert any(e.source_type == "transcript" for e in entries)
    assert any("abaikan instruksi sebelumnya" in e.content.lower() for e in entries)


def test_demo_editors_may_review_and_the_reader_may_not(db):
    from django.contrib.auth.models import User
    from django.core.management import call_command

    call_command("demo_setup", users_only=True, stdout=io.StringIO())
    may = {u.username: u.has_perm("review.review_claim") for u in User.objects.all()}
    assert may["editor"] and may["legal"] and may["admin"]
    assert not may["pembaca"] and not may["produk"]
