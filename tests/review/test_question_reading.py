"""How the scorer reads a question (features-v4): frames are the answer
type, not terms to find; inflections and hyphenated words are found through
their stems; names, identifiers and numbers are the terms that must be
found; an English question is not held to the Indonesian evidence's words."""

from __future__ import annotations

from datetime import date

import numpy as np
import pytest

from answering.facts import code_names, identifiers
from answering.features import NAMES, Passage, Question, question_word, unit_features
from answering.quantities import measure_words
from answering.question_form import frame_free, inflects, is_english, is_protected
from answering.units import Unit


@pytest.mark.parametrize(
    ("question", "framed"),
    [
        ("Berapa lama link reset kata sandi berlaku?", {"lama"}),
        ("Siapa saja yang ikut rapat go/no-go?", {"saja"}),
        ("Apa saja metode 2FA yang didukung?", {"saja"}),
        ("Bagaimana cara mengganti kata sandi?", {"cara"}),
        ("Sejak kapan Smart Sync tersedia?", {"Sejak"}),
        ("Laporan insiden itu seperti apa?", {"seperti"}),
        ("How long are deleted files kept?", {"How", "long"}),
        ("Berapa harga paket Bisnis?", set()),
    ],
)
def test_question_frames_are_blanked_and_nothing_else(question, framed):
    unframed = frame_free(question)
    assert len(unframed) == len(question)
    assert set(question.split()) - set(unframed.split()) == {w for w in question.split() if w.strip("?") in framed}


@pytest.mark.parametrize(
    ("question", "english"),
    [
        ("How many recovery codes does each account get when 2FA is enabled?", True),
        ("Is Smart Sync available for customers on the Starter plan?", True),
        ("Max limit per page untuk pagination list endpoint di API berapa?", False),
        ("Smart Sync sudah covered SLA atau masih beta tanpa SLA?", False),
        ("rating proteksi LDX200P-32-1T", False),
    ],
)
def test_english_questions_are_told_from_indonesian_ones_with_english_terms(question, english):
    assert is_english(question) is english


def test_an_english_question_is_read_by_its_first_wh_word():
    assert question_word("How many recovery codes does each account get when 2FA is enabled?") == "berapa"
    assert question_word("When did Smart Sync become generally available?") == "kapan"
    assert question_word("Kapan Smart Sync GA, dan berapa kuotanya?") == "kapan"


def test_inflections_the_stemmer_leaves_are_one_word():
    assert inflects("sinkron", "sinkronus")
    assert inflects("patching", "patch")
    assert not inflects("data", "database")  # adds more than four letters: another word
    assert not inflects("api", "apik")  # too short to tell
    assert not inflects("ld-4031", "ld-4031x")


def test_identifiers_are_codes_not_codes_joined_to_words():
    assert identifiers("LD-Edge X200 (SKU LDX200-16-256) dan ERR_CONN_RESET di v4.2.1") == {
        "x200",
        "ldx200-16-256",
        "err_conn_reset",
        "v4.2.1",
    }
    assert identifiers("Endpoint S3-compatible untuk API v2") == {"v2"}
    # A lower-case code of letter groups (a region) is one code; an ordinal is none.
    assert identifiers("Data center Makassar (id-mks-1) dibangun pada abad ke-21?") == {"id-mks-1"}


def test_a_code_and_the_capitalised_words_after_it_are_one_name():
    assert code_names("Berapa biaya sewa LD-Edge X200 Pro per bulan?") == {"x200 pro": {"x200"}}
    assert code_names("Baterai KR-H7 Ultra berapa mAh?") == {"kr-h7 ultra": {"kr-h7"}}
    assert code_names("Berapa mAh baterai LX-500BT?") == {}
    # A name does not run on into the next sentence.
    assert code_names("Saya memakai LX-700BT. Lalu bagaimana?") == {}


def test_names_identifiers_and_numbers_are_protected_everyday_words_are_not():
    words = "Apakah Smart Sync di paket Starter bisa dipakai 500 GB ?".split()
    protected = {w for n, w in enumerate(words) if is_protected(w, n)}
    assert protected == {"Smart", "Sync", "Starter", "500", "GB"}


def _question(text: str, stems: set[str], content: set[str], **kwargs) -> Question:
    vector = np.zeros(384, dtype=np.float32)
    vector[0] = 1.0
    return Question(text, stems, dict.fromkeys(stems | content, 0.9), vector, content=content, **kwargs)


def _passage(unit_text: str, unit_stems: set[str]) -> Passage:
    vector = np.zeros((1, 384), dtype=np.float32)
    vector[0, 0] = 1.0
    return Passage(
        "Panduan",
        {"panduan"},
        unit_stems,
        [Unit(unit_text, 0, len(unit_text), "sentence")],
        [unit_stems],
        vector,
        unit_text,
    )


def test_frames_and_inflections_are_covered_not_missing():
    # "Berapa lama mode sinkron berlaku?" against "Mode sinkronus aktif 12
    # bulan.": ‘lama’ is the frame (the answer type), ‘sinkron’ is there
    # as ‘sinkronus’; found exactly, half the question's weight was missing.
    question = _question(
        "Berapa lama mode sinkron berlaku?",
        {"lama", "mode", "sinkron", "laku"},
        {"mode", "sinkron", "laku"},
        variants={"sinkron": {"sinkronus"}},
    )
    passage = _passage("Mode sinkronus berlaku 12 bulan.", {"mode", "sinkronus", "laku", "12", "bulan"})
    row = dict(zip(NAMES, unit_features(question, [passage])[0], strict=True))
    assert row["cov_unit"] == pytest.approx(1.0)
    assert row["miss_unit"] == 0.0

    without_variant = _question(
        "Berapa lama mode sinkron berlaku?", {"lama", "mode", "sinkron", "laku"}, {"mode", "sinkron", "laku"}
    )
    row = dict(zip(NAMES, unit_features(without_variant, [passage])[0], strict=True))
    assert row["cov_unit"] < 1.0 and row["miss_unit"] > 0.0


def test_a_missing_name_is_a_protected_miss_and_an_english_question_hides_its_term_signals():
    question = _question(
        "Berapa harga paket Premium?",
        {"harga", "paket", "premium"},
        {"harga", "paket", "premium"},
        protected={"premium"},
    )
    passage = _passage("Paket Bisnis Rp349.000 per bulan.", {"paket", "bisnis", "rp349.000", "bulan"})
    row = dict(zip(NAMES, unit_features(question, [passage])[0], strict=True))
    assert row["miss_protected_unit"] == pytest.approx(0.9)
    assert row["miss_protected_context"] == pytest.approx(0.9)

    english = _question(
        "How much is the Premium plan?",
        {"much", "premium", "plan"},
        {"premium", "plan"},
        protected={"premium"},
        cross_lingual=True,
    )
    row = dict(zip(NAMES, unit_features(english, [passage])[0], strict=True))
    assert np.isnan(row["cov_unit"]) and np.isnan(row["miss_context"])
    assert row["miss_protected_context"] == pytest.approx(0.9)  # names are compared in any language
    assert row["cross_lingual"] == 1.0


def test_the_meaning_is_also_measured_from_the_questions_own_baseline():
    # An English question's cosines all run lower: each unit's is also read
    # from the question's cosine with the training units' centroid.
    question = _question("How long is the reset link valid?", {"long", "reset", "link"}, {"reset", "link"})
    passage = _passage("Tautan reset berlaku 30 menit.", {"taut", "reset", "laku", "30", "menit"})
    question.baseline = 0.3
    row = dict(zip(NAMES, unit_features(question, [passage])[0], strict=True))
    assert row["cos"] == pytest.approx(1.0) and row["cos_centred"] == pytest.approx(0.7)


@pytest.mark.django_db
def test_a_paraphrased_frame_question_names_no_frame_word_as_missing(make_revision, make_user):
    from django.contrib.auth.models import User

    from review.asking import question_ask

    make_revision(
        "# Reset kata sandi\n\nTautan reset kata sandi yang dikirim lewat email berlaku 30 menit.",
        key="P1",
        title="Reset kata sandi",
        public=True,
        source_type="documentation",
        document_date=date(2026, 1, 5),
    )
    editor = User.objects.filter(username="editor").first() or make_user("editor")
    contract = question_ask(text="Berapa lama tautan reset kata sandi berlaku?", user=editor).contract
    assert not any("lama" in m for m in contract.missing)


def test_the_date_a_question_is_asked_as_of_is_no_term_to_find():
    question = "Per awal Oktober 2025, LX-700BT bisa dipakai menelepon sampai berapa jam?"
    assert "Oktober" in frame_free(question) and "2025" in frame_free(question)
    dateless = frame_free(question, as_of=True)
    assert "Oktober" not in dateless and "2025" not in dateless and "Per" not in dateless
    assert "LX-700BT" in dateless and "menelepon" in dateless


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("SLA uptime: 99,9%", {"persen"}),
        ("Berat — Nilai: 254 g", {"gram"}),
        ("latensi 12 ms pada jarak 3 m", {"milidetik", "meter"}),
        ('layar 6" dan baterai 30 jam', {"inci", "jam"}),
        ("versi 4.2.1 (build 20260211), LX-700BT, Rp1.350.000", set()),
    ],
)
def test_a_number_given_in_a_unit_names_the_unit_however_it_is_written(text, words):
    assert measure_words(text) == words


@pytest.mark.django_db
def test_a_unit_asked_as_a_word_is_held_by_its_symbol(make_revision, make_user):
    """‘persen’ of the question is in evidence that writes "99,9%": it is
    not missing, and the unit that gives the number holds it."""
    from answering.answerer import evidence_prepare
    from retrieval.embeddings import provider_from_config
    from retrieval.search import search

    make_revision(
        "# SLA\n\nKomitmen uptime bulanan paket Bisnis adalah 99,9% dengan kredit layanan bila tidak tercapai.",
        key="SLA1",
        title="Perjanjian tingkat layanan",
        public=True,
    )
    question = "Uptime bulanan paket Bisnis dijamin berapa persen?"
    hits = search(question, make_user("pembaca")).results
    provider = provider_from_config()
    prepared = evidence_prepare(
        question, hits, vector=provider.embed_query(question), collection="editorial", provider=provider
    )
    assert hits and "persen" in prepared.question.content
    assert any("persen" in stems for p in prepared.passages for stems in p.unit_stems)
    assert not any("persen" in m for m in prepared.missing_terms)
