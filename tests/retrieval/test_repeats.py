"""Near-identical chunks of one revision are shown once, with their other
pages, in search results and answer evidence, and take one place of k."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from fpdf import FPDF

from retrieval.repeats import repeats_label, similarity, word_pairs
from retrieval.search import search
from review.asking import question_ask
from review.desk.export import answer_export_markdown
from review.models import Answer
from tests.commands import run_command

pytestmark = pytest.mark.django_db

NOTICE = (
    "Pemberitahuan: tarif roaming data Kanal berlaku untuk semua pelanggan pascabayar dan dihitung "
    "per 100 KB sejak 1 Maret 2026."
)


def test_word_pairs_tell_copies_from_rows_with_the_same_words():
    assert similarity(word_pairs(NOTICE), word_pairs(NOTICE + " ")) == 1.0
    # One word changed out of twenty-odd: still the same notice.
    assert similarity(word_pairs(NOTICE), word_pairs(NOTICE.replace("Maret", "April"))) < 0.9
    # The same words in another order are another statement.
    assert similarity(word_pairs("Paket A 10 GB, paket B 20 GB"), word_pairs("Paket B 10 GB, paket A 20 GB")) < 0.9
    assert repeats_label([3, 11, 12], ["a", "b", "c"]) == "juga di hlm. 3, 11, 12"
    assert repeats_label([], ["a", "b"]) == "juga di 2 potongan lain"


def notice_pdf() -> bytes:
    """Four pages, each a section of its own with the same notice in the
    middle of the page (at its top or bottom it would be a running header
    or footer, kept once by the converter)."""
    pdf = FPDF()
    for n, topic in enumerate(["Paket Hemat", "Paket Kerja", "Paket Keluarga", "Paket Pelajar"], start=1):
        pdf.add_page()
        pdf.set_font("Helvetica", "B", 16)
        pdf.cell(0, 10, f"Bagian {n}: {topic}", new_x="LMARGIN", new_y="NEXT")
        pdf.set_font("Helvetica", "B", 14)
        pdf.cell(0, 8, "Catatan", new_x="LMARGIN", new_y="NEXT")
        pdf.set_font("Helvetica", size=11)
        pdf.multi_cell(0, 6, NOTICE)
        pdf.ln(4)
        pdf.set_font("Helvetica", "B", 14)
        pdf.cell(0, 8, "Rincian", new_x="LMARGIN", new_y="NEXT")
        pdf.set_font("Helvetica", size=11)
        pdf.multi_cell(
            0, 6, f"{topic} memberi kuota {n * 10} GB per bulan untuk pelanggan baru.", new_x="LMARGIN", new_y="NEXT"
        )
        pdf.multi_cell(0, 6, f"Pendaftaran {topic} dibuka di gerai dan aplikasi Kanal.")
    return bytes(pdf.output())


def test_a_notice_on_every_page_is_one_result_with_its_other_pages(tmp_path: Path, make_user, make_revision):
    path = tmp_path / "tarif.pdf"
    path.write_bytes(notice_pdf())
    assert run_command("ingest", str(path), "--public", "--sync")[2] is None
    make_revision("# Roaming\n\nTarif roaming data dihitung per 1 MB di luar negeri.", key="LAIN", public=True)
    reader = make_user("pembaca")

    results = search("tarif roaming data pascabayar per 100 KB", reader, k=3, expand=False).results
    notices = [h for h in results if "100 KB" in h.text]
    assert len(notices) == 1, [(h.evidence_id, h.heading_path, h.text) for h in results]
    kept = notices[0]
    assert kept.repeat_pages == sorted({1, 2, 3, 4} - {kept.page}) and len(kept.repeats) == 3
    # The places the copies would have taken go to other results.
    assert "LAIN" in {h.document for h in results}

    asked = question_ask(text="Tarif roaming data pascabayar dihitung per berapa?", user=make_user("penanya"))
    shown = [e for e in asked.contract.evidence.values() if e.document == "tarif"]
    assert sum(1 for e in shown if e.repeat_pages) == 1, asked.contract.evidence
    answer = Answer.objects.get(pk=asked.answer.pk)
    markdown = answer_export_markdown(answer=answer, contract=asked.contract, claims=list(answer.claims.all()))
    note = next(e for e in shown if e.repeat_pages)
    assert "juga di hlm. " + ", ".join(str(p) for p in note.repeat_pages) in markdown
    assert not set(note.repeats) & set(asked.contract.evidence)  # the copies take no place of their own


def test_the_search_page_says_where_else_the_text_stands(client, tmp_path: Path, make_user):
    path = tmp_path / "tarif.pdf"
    path.write_bytes(notice_pdf())
    assert run_command("ingest", str(path), "--public", "--sync")[2] is None
    client.force_login(make_user("editor", reviewer=True))
    page = client.get("/cari/", {"q": "tarif roaming data pascabayar"}).content.decode()
    assert re.search(r"juga di hlm\. \d, \d, \d", page)
