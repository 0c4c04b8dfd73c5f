"""A PDF's pages down to the quoted sentence: a chunk that runs over a page
break carries its page range ("hlm. 1–2"), and a claim that quotes a
sentence on page 2 of it cites "hlm. 2" — in the contract, on the answer
page and in the Markdown export. A chunk on one page reads as before."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest
from django.apps import apps
from django.urls import reverse
from fpdf import FPDF

from answering.contract import AnswerContract
from retrieval.hits import Hit
from retrieval.models import Chunk, Revision
from retrieval.pages import page_label, span_labels, span_pages, text_pages
from retrieval.search import search
from review.asking import question_ask
from review.desk.export import answer_export_json, answer_export_markdown
from review.models import Answer
from tests.commands import run_command

pytestmark = pytest.mark.django_db

# Page 2's only sentence, and the question it alone answers.
SENTENCE = "Klaim garansi diproses dalam 21 hari kerja sejak perangkat diterima."
QUESTION = "Dalam berapa hari kerja klaim garansi diproses?"


def warranty_pdf() -> bytes:
    """Two pages under one title, no heading between them, so the chunker
    keeps both paragraphs in one chunk that runs over the page break."""
    pdf = FPDF()
    pdf.add_page()
    pdf.set_font("Helvetica", "B", 18)
    pdf.cell(0, 10, "Panduan Garansi Perangkat", new_x="LMARGIN", new_y="NEXT")
    pdf.set_font("Helvetica", size=11)
    pdf.multi_cell(0, 6, "Garansi Nusantara Cloud mencakup kerusakan pabrik pada perangkat keras yang dibeli resmi.")
    pdf.add_page()
    pdf.set_font("Helvetica", size=11)
    pdf.multi_cell(0, 6, SENTENCE)
    return bytes(pdf.output())


def single_page_pdf() -> bytes:
    """A heading and a paragraph on page 1, a heading and a paragraph on
    page 2: two chunks, each on one page."""
    pdf = FPDF()
    pdf.add_page()
    pdf.set_font("Helvetica", "B", 18)
    pdf.cell(0, 10, "Kebijakan Pengembalian", new_x="LMARGIN", new_y="NEXT")
    pdf.set_font("Helvetica", size=11)
    pdf.multi_cell(0, 6, "Barang dapat dikembalikan bila segelnya masih utuh.")
    pdf.add_page()
    pdf.set_font("Helvetica", "B", 14)
    pdf.cell(0, 10, "Dana kembali", new_x="LMARGIN", new_y="NEXT")
    pdf.set_font("Helvetica", size=11)
    pdf.multi_cell(0, 6, "Dana pengembalian dikirim ke rekening pembeli dalam 9 hari kerja.")
    return bytes(pdf.output())


def ingest_pdf(tmp_path: Path, name: str, data: bytes) -> Revision:
    path = tmp_path / f"{name}.pdf"
    path.write_bytes(data)
    out, err, error = run_command("ingest", str(path), "--public", "--source-type", "policy", "--sync")
    assert error is None, err
    return Revision.objects.get(document__key=name)


@pytest.fixture
def warranty(tmp_path: Path) -> Chunk:
    revision = ingest_pdf(tmp_path, "garansi", warranty_pdf())
    assert len(revision.page_starts) == 2
    return Chunk.objects.get(revision=revision, text__contains="21 hari kerja")


# --- the pure functions ---------------------------------------------------------


def test_a_page_label_is_a_page_or_a_range_with_an_en_dash():
    assert page_label(3) == page_label(3, 3) == "3"
    assert page_label(1, 2) == "1\u20132"
    assert page_label(None) == page_label(None, None) == ""


def test_a_span_is_on_the_pages_of_its_first_and_last_character():
    starts = [0, 100, 200]
    assert span_pages(10, 100, starts) == (1, 1)  # ends right before page 2 begins
    assert span_pages(10, 101, starts) == (1, 2)
    assert span_pages(150, 150, starts) == (2, 2)  # empty: the page of its start
    assert span_pages(0, 300, []) is None


def test_a_span_in_a_chunks_text_skips_the_repeated_context_in_front():
    # The chunk owns content [120, 260) on pages starting at 0 and 200; its
    # text begins with 30 characters repeated from earlier (a table header).
    where = {"text_length": 30 + 140, "char_start": 120, "char_end": 260, "page_starts": [0, 200]}
    assert text_pages(30, 50, **where) == (1, 1)  # content 120–140
    assert text_pages(30 + 85, 30 + 100, **where) == (2, 2)  # content 205–220
    assert text_pages(0, 20, **where) == (1, 1)  # the repeated header counts as the chunk's start
    assert text_pages(30, 170, **where) == (1, 2)


# --- ingestion, search, the answer, the desk and the exports ---------------------


def test_a_chunk_over_a_page_break_carries_its_range_and_the_sentence_its_page(warranty: Chunk):
    assert (warranty.page, warranty.page_end) == (1, 2)
    assert "Garansi Nusantara Cloud" in warranty.text  # page 1's paragraph is in the same chunk
    start = warranty.text.index(SENTENCE)
    assert text_pages(
        start,
        start + len(SENTENCE),
        text_length=len(warranty.text),
        char_start=warranty.char_start,
        char_end=warranty.char_end,
        page_starts=warranty.revision.page_starts,
    ) == (2, 2)
    hit = next(h for h in search("klaim garansi 21 hari kerja", None).results if h.evidence_id == warranty.key)
    assert (hit.page, hit.page_end) == (1, 2)


def test_the_claim_cites_the_page_of_its_sentence(warranty: Chunk, client, make_user):
    editor = make_user("editor", reviewer=True)
    asked = question_ask(text=QUESTION, user=editor)
    claim = next(c for c in asked.contract.claims if warranty.key in c.evidence_ids)
    assert "21 hari kerja" in claim.text
    assert claim.pages == {warranty.key: "2"}
    evidence = asked.contract.evidence[warranty.key]
    assert (evidence.page, evidence.page_end) == (1, 2)

    answer = Answer.objects.get(pk=asked.answer.pk)
    claims = list(answer.claims.all())
    markdown = answer_export_markdown(answer=answer, contract=asked.contract, claims=claims)
    assert f"[{warranty.key}, hlm. 2]" in markdown  # the claim: where its sentence is
    assert "revisi 1, hlm. 1\u20132" in markdown  # the source: the whole chunk
    exported = answer_export_json(answer=answer, contract=asked.contract, claims=claims)
    assert f'"{warranty.key}": "2"' in exported and '"page_end": 2' in exported

    client.force_login(editor)
    page = client.get(reverse("answer", args=[answer.pk])).content.decode()
    assert "· hlm. 2 ·" in page and "hlm. 1\u20132" not in page  # the card shown for the claim
    row = answer.claims.get(text=claim.text)
    decided = client.post(
        reverse("claim-decide", args=[row.pk]), {"status": "supported"}, HTTP_HX_REQUEST="true"
    ).content.decode()
    assert "· hlm. 2 ·" in decided  # the claim's htmx partial, re-rendered after review
    results = client.get("/cari/", {"q": "klaim garansi 21 hari kerja"}).content.decode()
    assert "· hlm. 1\u20132 ·" in results


def test_a_chunk_on_one_page_reads_as_before(tmp_path: Path, client, make_user):
    revision = ingest_pdf(tmp_path, "pengembalian", single_page_pdf())
    chunk = Chunk.objects.get(revision=revision, text__contains="9 hari kerja")
    assert (chunk.page, chunk.page_end) == (2, 2)
    editor = make_user("editor", reviewer=True)
    asked = question_ask(text="Dalam berapa hari kerja dana pengembalian dikirim?", user=editor)
    claim = next(c for c in asked.contract.claims if chunk.key in c.evidence_ids)
    assert claim.pages == {chunk.key: "2"}
    answer = Answer.objects.get(pk=asked.answer.pk)
    markdown = answer_export_markdown(answer=answer, contract=asked.contract, claims=list(answer.claims.all()))
    assert "revisi 1, hlm. 2," in markdown and "\u2013" not in markdown
    client.force_login(editor)
    page = client.get(reverse("answer", args=[answer.pk])).content.decode()
    assert "· hlm. 2 ·" in page and "hlm. 2\u2013" not in page


def test_evidence_without_pages_gets_no_label(make_revision):
    revision = make_revision("# Catatan\n\nTanpa halaman sama sekali.", public=True)
    chunk = Chunk.objects.get(revision=revision)
    assert chunk.page is None and chunk.page_end is None
    hit = Hit(
        evidence_id=chunk.key,
        document=revision.document.key,
        revision=1,
        title="Catatan",
        heading_path="",
        text=chunk.text,
        superseded=False,
        lexical_rank=1,
        semantic_rank=1,
        rrf_score=0.0,
        semantic_score=None,
        source_type="article",
        document_date=None,
        url="",
        chunk_id=chunk.pk,
    )
    assert span_labels([hit], {chunk.key: [0, 5]}, {}) == {}


def test_a_contract_stored_before_page_ranges_still_loads():
    stored = {
        "question_id": "Q1",
        "status": "answered",
        "missing": [],
        "conflicts": [],
        "degraded": [],
        "claims": [
            {
                "text": "Klaim lama.",
                "evidence_ids": ["D1:r1:p1"],
                "flags": [],
                "spans": {"D1:r1:p1": [0, 11]},
                "score": 0.9,
            }
        ],
        "evidence": {
            "D1:r1:p1": {"document": "D1", "revision": 1, "title": "Lama", "page": 3, "source_type": "policy"}
        },
    }
    contract = AnswerContract.model_validate(stored)
    assert contract.claims[0].pages == {} and contract.evidence["D1:r1:p1"].page_end is None


def test_the_migration_backfills_page_end_without_rebuilding_chunks(warranty: Chunk):
    keys = dict(Chunk.objects.values_list("pk", "key"))
    Chunk.objects.update(page_end=None)
    migration = importlib.import_module("retrieval.migrations.0009_chunk_page_end")
    migration.backfill(apps, None)
    warranty.refresh_from_db()
    assert (warranty.page, warranty.page_end) == (1, 2)
    assert dict(Chunk.objects.values_list("pk", "key")) == keys
