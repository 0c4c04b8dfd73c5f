"""BEIR datasets: loaded as an isolated public collection through the normal
services, idempotent on re-runs, clear about malformed files, removable."""

from __future__ import annotations

import json
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from retrieval.beir import (
    BeirFormatError,
    document_key,
    drop_collection,
    judged_subset,
    load_corpus,
    read_corpus,
    read_qrels,
    read_queries,
)
from retrieval.models import Chunk, ChunkEmbedding, Document, LexicalStats, Revision, TermStat
from retrieval.search import search

pytestmark = pytest.mark.django_db

PASSAGES = [
    {
        "_id": "p1",
        "title": "Kristoforus Kolumbus",
        "text": "Kolumbus bukanlah orang pertama yang tiba di Amerika. Orang Viking dari Eropa Utara telah "
        "berkunjung ke Amerika Utara pada abad ke-11.",
    },
    {
        "_id": "p2",
        "title": "Diffusion tensor imaging",
        "text": "Diffusion tensor magnetic resonance imaging measures the apparent diffusion coefficient of "
        "cerebral white matter in newborn infants.",
    },
    {"_id": "p3", "title": "", "text": "Donggala adalah sebuah kabupaten di provinsi Sulawesi Tengah, Indonesia."},
    {
        "_id": "p4",
        "title": "Vitamin D",
        "text": "Vitamin D supplementation did not reduce the risk of fractures in elderly adults.",
    },
]
QUERIES = [
    {"_id": "q1", "text": "Siapakah yang pertama menemukan benua Amerika?"},
    {"_id": "q2", "text": "Dimanakah letak Donggala?"},
]
QRELS = "query-id\tcorpus-id\tscore\nq1\tp1\t1\nq2\tp3\t1\n"


def write_dataset(root: Path, passages: list[dict] = PASSAGES, corpus_text: str | None = None) -> Path:
    (root / "qrels").mkdir(parents=True, exist_ok=True)
    corpus = (
        corpus_text
        if corpus_text is not None
        else "\n".join(json.dumps(p, ensure_ascii=False) for p in passages) + "\n"
    )
    (root / "corpus.jsonl").write_text(corpus, encoding="utf-8")
    (root / "queries.jsonl").write_text("\n".join(json.dumps(q, ensure_ascii=False) for q in QUERIES), encoding="utf-8")
    (root / "qrels" / "test.tsv").write_text(QRELS, encoding="utf-8")
    return root


@pytest.fixture
def dataset(tmp_path: Path) -> Path:
    return write_dataset(tmp_path / "mini")


def load(directory: Path, **options: object):
    return load_corpus(directory=directory, collection="beir-mini", **options)


def test_reading_the_three_files(dataset):
    assert [p.id for p in read_corpus(dataset)] == ["p1", "p2", "p3", "p4"]
    assert read_queries(dataset)["q2"] == "Dimanakah letak Donggala?"
    assert read_qrels(dataset, "test") == {"q1": {"p1": 1}, "q2": {"p3": 1}}


def test_load_creates_public_indexed_documents_in_their_collection(dataset):
    result = load(dataset)
    assert (result.documents_created, result.revisions_new, result.indexed, result.failed) == (4, 4, 4, [])
    documents = Document.objects.filter(collection="beir-mini")
    assert sorted(documents.values_list("key", flat=True)) == [f"beir-mini:p{n}" for n in range(1, 5)]
    assert all(d.public and d.source_type_id == "article" for d in documents)
    assert documents.get(key="beir-mini:p3").title == "p3"  # no title in the dataset: its id
    for document in documents.select_related("current_revision"):
        assert document.current_revision.status == "active"
        assert document.current_revision.format == "text"
    chunks = Chunk.objects.filter(document__collection="beir-mini")
    assert chunks.count() == result.chunks >= 4
    assert ChunkEmbedding.objects.filter(chunk__in=chunks).count() == chunks.count()
    assert LexicalStats.objects.get(collection="beir-mini").chunk_count == chunks.count()


def test_search_sees_the_collection_only_when_asked(dataset, make_revision):
    make_revision("# Donggala\n\nCatatan redaksi tentang Donggala dan Amerika.", key="E1", public=True)
    load(dataset)
    for mode in ("lexical", "vector", "hybrid"):
        hits = search("Dimanakah letak Donggala?", None, mode=mode, k=5, collection="beir-mini").results
        assert hits[0].document == "beir-mini:p3"
        assert all(h.document.startswith("beir-mini:") for h in hits)
        editorial = search("Dimanakah letak Donggala?", None, mode=mode, k=10).results
        assert [h.document for h in editorial] == ["E1"]
    english = search("white matter diffusion in newborns", None, k=1, collection="beir-mini").results
    assert english[0].document == "beir-mini:p2"


def test_rerun_is_idempotent_and_picks_up_changes(dataset, tmp_path):
    load(dataset)
    revisions = Revision.objects.count()
    again = load(dataset)
    assert (again.unchanged, again.revisions_new, again.indexed, again.embedded) == (4, 0, 0, 0)
    assert Revision.objects.count() == revisions

    changed = [dict(p) for p in PASSAGES]
    changed[1]["text"] += " Anisotropy increased with age."
    result = load(write_dataset(tmp_path / "mini", changed))
    assert (result.unchanged, result.revisions_new, result.indexed) == (3, 1, 1)
    assert Document.objects.get(key="beir-mini:p2").current_revision.number == 2


def test_an_interrupted_load_is_finished_by_the_next_run(dataset):
    load(dataset, limit=2)
    Revision.objects.filter(document__key="beir-mini:p2").update(status="pending")
    result = load(dataset)
    assert result.revisions_new == 2 and result.indexed == 3  # p3, p4 new; p2 left pending
    assert set(Revision.objects.values_list("status", flat=True)) == {"active"}


def test_limit_loads_the_first_passages_and_restricts_the_queries(dataset):
    out = StringIO()
    call_command("load_beir", str(dataset), "--limit", "2", stdout=out, stderr=StringIO())
    assert "beir-mini: 2 passage" in out.getvalue()
    assert set(Document.objects.values_list("key", flat=True)) == {"beir-mini:p1", "beir-mini:p2"}
    queries, qrels = judged_subset(read_queries(dataset), read_qrels(dataset, "test"), ["p1", "p2"])
    assert list(queries) == ["q1"] and qrels == {"q1": {"p1": 1}}


def test_collection_option_and_editorial_refused(dataset):
    call_command("load_beir", str(dataset), "--limit", "1", "--collection", "uji", stdout=StringIO(), stderr=StringIO())
    assert Document.objects.get().key == "uji:p1"
    with pytest.raises(CommandError, match="editorial"):
        call_command("load_beir", str(dataset), "--collection", "editorial", stdout=StringIO())


@pytest.mark.parametrize(
    "bad_line, message",
    [
        ('{"_id": "p9", "title": "x", "text": ', "JSON tidak valid"),
        ('{"_id": "p9", "title": "x"}', "text: wajib diisi"),
        ('["p9", "x"]', "objek JSON"),
        ('{"_id": "p1", "title": "", "text": "lagi"}', "sudah dipakai di corpus.jsonl baris 1"),
    ],
)
def test_malformed_corpus_line_is_named_and_nothing_is_loaded(tmp_path, bad_line, message):
    lines = [json.dumps(p) for p in PASSAGES[:2]] + [bad_line]
    directory = write_dataset(tmp_path / "rusak", corpus_text="\n".join(lines) + "\n")
    with pytest.raises(BeirFormatError, match="corpus.jsonl baris 3") as error:
        load(directory)
    assert message in str(error.value)
    assert not Document.objects.exists()
    with pytest.raises(CommandError, match="corpus.jsonl baris 3"):
        call_command("load_beir", str(directory), stdout=StringIO())


def test_missing_files_and_bad_qrels_are_named(tmp_path, dataset):
    with pytest.raises(BeirFormatError, match="tidak ditemukan: .*corpus.jsonl"):
        read_corpus(tmp_path / "tidak-ada")
    with pytest.raises(BeirFormatError, match="dev.tsv"):
        read_qrels(dataset, "dev")
    (dataset / "qrels" / "test.tsv").write_text(QRELS + "q3\tp4\n", encoding="utf-8")
    with pytest.raises(BeirFormatError, match="test.tsv baris 4: harus 3 kolom"):
        read_qrels(dataset, "test")
    (dataset / "qrels" / "test.tsv").write_text("q1\tp1\t1\n", encoding="utf-8")
    with pytest.raises(BeirFormatError, match="test.tsv baris 1: baris judul"):
        read_qrels(dataset, "test")
    (dataset / "qrels" / "test.tsv").write_text("", encoding="utf-8")
    with pytest.raises(BeirFormatError, match="test.tsv: file kosong"):
        read_qrels(dataset, "test")


def test_long_keys_stay_unique_within_the_limit():
    long_a, long_b = document_key("beir-" + "x" * 60, "a" * 30), document_key("beir-" + "x" * 60, "a" * 31)
    assert len(long_a) == len(long_b) == 64 and long_a != long_b
    assert document_key("beir-scifact", "4983") == "beir-scifact:4983"


def test_drop_collection_removes_it_and_repairs_the_statistics(dataset, make_revision):
    make_revision("# Redaksi\n\nDonggala di Sulawesi Tengah.", key="E1", public=True)
    load(dataset)
    out = StringIO()
    call_command("drop_collection", "beir-mini", stdout=out)
    assert "4 dokumen" in out.getvalue()
    assert list(Document.objects.values_list("key", flat=True)) == ["E1"]
    stats = LexicalStats.objects.get(collection="editorial")
    assert stats.chunk_count == Chunk.objects.count() == 1
    assert TermStat.objects.get(collection="editorial", term__lexeme="donggala").df == 1
    assert not TermStat.objects.filter(term__lexeme="kolumbus", df__gt=0).exists()
    assert search("Donggala", None, mode="lexical", collection="beir-mini").results == []
    assert drop_collection(collection="beir-mini").documents == 0


def test_drop_refuses_the_editorial_archive_without_yes_really(make_revision):
    make_revision(key="E1")
    with pytest.raises(CommandError, match="--yes-really"):
        call_command("drop_collection", "editorial", stdout=StringIO())
    assert Document.objects.filter(key="E1").exists()
    call_command("drop_collection", "editorial", "--yes-really", stdout=StringIO())
    assert not Document.objects.exists()
