"""Training the answer scorer: the bars chosen over several sets at once,
search-box copies of questions, and ``train_answerer`` end to end on a small
SQuAD 2.0 file, its artefact then scoring answers side by side with the
committed one."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import numpy as np
import pytest

from tests.commands import run_command
from training.answerer import keyword_query, thresholds_choose, thresholds_choose_joint


def balanced(p: np.ndarray, answerable: np.ndarray, bar: float) -> float:
    return ((p >= bar)[answerable == 1].mean() + (p < bar)[answerable == 0].mean()) / 2


def test_the_bars_keep_every_set_within_its_limits_and_prefer_answers_among_equals():
    rng = np.random.default_rng(0)
    sets = []
    for shift, size in ((0.0, 400), (-0.15, 60)):  # the second set is small and runs lower, like an archive's
        answerable = np.repeat([1, 0], size // 2)
        p = np.where(answerable == 1, rng.normal(0.65, 0.15, size), rng.normal(0.3, 0.15, size)) + shift
        sets.append((np.clip(p, 0, 1), answerable, np.ones(size, dtype=bool)))
    bars = thresholds_choose_joint(sets, max_unanswerable_answered=0.08)
    for p, answerable, _ in sets:
        assert (p[answerable == 0] >= bars["answer_at"]).mean() <= 0.08
    grid = np.unique(np.round(np.concatenate([p for p, _, _ in sets]), 4))
    accuracy = np.asarray([np.mean([balanced(p, a, t) for p, a, _ in sets]) for t in grid])
    best = grid[np.argmax(accuracy)]
    chosen = np.mean([balanced(p, a, bars["refuse_below"]) for p, a, _ in sets])
    # Below the best bar (more answers shown), and no more than a few points
    # worse: within what resampling a 60-question set moves it by.
    assert bars["refuse_below"] < best
    assert accuracy.max() - 0.05 < chosen <= accuracy.max()
    # The same scores give the same bars.
    assert thresholds_choose_joint(sets, max_unanswerable_answered=0.08) == bars
    # One set alone gives the single-set choice.
    assert thresholds_choose_joint(sets[:1]) == thresholds_choose(*sets[0])


@pytest.mark.parametrize(
    ("question", "query"),
    [
        ("Berapa lama masa berlaku tautan reset kata sandi?", "masa berlaku tautan reset kata sandi"),
        ("Siapa saja yang hadir dalam rapat go/no-go?", "hadir rapat go/no-go"),
        ("Apa itu?", None),
    ],
)
def test_a_search_box_copy_keeps_the_content_words_in_order(question, query):
    assert keyword_query(question) == query


PARAGRAPHS = [
    (
        "Danau Toba terletak di Sumatera Utara dan merupakan danau vulkanik terbesar di Indonesia.",
        [("Di provinsi mana Danau Toba terletak?", "Sumatera Utara"), ("Berapa kedalaman Danau Toba?", None)],
    ),
    (
        "Candi Borobudur dibangun pada abad ke-9 oleh wangsa Syailendra di Magelang.",
        [
            ("Siapa yang membangun Candi Borobudur?", "wangsa Syailendra"),
            ("Berapa lama Candi Borobudur dipugar?", None),
        ],
    ),
    (
        "Gunung Kerinci adalah gunung tertinggi di Sumatra dengan ketinggian 3.805 meter.",
        [("Berapa ketinggian Gunung Kerinci?", "3.805 meter"), ("Kapan Gunung Kerinci terakhir meletus?", None)],
    ),
    (
        "Sungai Kapuas di Kalimantan Barat adalah sungai terpanjang di Indonesia, sekitar 1.143 kilometer.",
        [("Berapa panjang Sungai Kapuas?", "1.143 kilometer"), ("Siapa yang pertama memetakan Sungai Kapuas?", None)],
    ),
    (
        "Pulau Komodo dihuni biawak komodo, kadal terbesar di dunia, dan menjadi taman nasional sejak 1980.",
        [("Sejak kapan Pulau Komodo menjadi taman nasional?", "1980"), ("Berapa jumlah komodo di Pulau Rinca?", None)],
    ),
    (
        "Kota Bandung dijuluki Kota Kembang dan menjadi tuan rumah Konferensi Asia Afrika tahun 1955.",
        [
            ("Tahun berapa Konferensi Asia Afrika diadakan di Bandung?", "1955"),
            ("Siapa wali kota pertama Bandung?", None),
        ],
    ),
    (
        "Bahasa Indonesia ditetapkan sebagai bahasa persatuan dalam Sumpah Pemuda pada 28 Oktober 1928.",
        [("Kapan Sumpah Pemuda diikrarkan?", "28 Oktober 1928"), ("Berapa peserta Kongres Pemuda pertama?", None)],
    ),
    (
        "Raja Ampat di Papua Barat Daya memiliki lebih dari 1.500 spesies ikan karang.",
        [("Berapa spesies ikan karang di Raja Ampat?", "1.500 spesies"), ("Kapan Raja Ampat menjadi kabupaten?", None)],
    ),
]


def _squad(paragraphs: list) -> list:
    out = []
    for n, (context, questions) in enumerate(paragraphs):
        qas = []
        for m, (question, answer) in enumerate(questions):
            qas.append(
                {
                    "id": f"q{n}-{m}",
                    "question": question,
                    "is_impossible": answer is None,
                    "answers": [] if answer is None else [{"text": answer, "answer_start": context.index(answer)}],
                }
            )
        out.append({"context": context, "qas": qas})
    return out


@pytest.mark.django_db
def test_train_answerer_writes_an_artefact_that_scores_side_by_side(tmp_path, make_revision, make_user, settings):
    from django.contrib.auth.models import User

    from answering.answerer import artefact, artefact_used
    from review.asking import question_ask

    train, valid = tmp_path / "train.json", tmp_path / "valid.json"
    train.write_text(json.dumps(_squad(PARAGRAPHS[:6])), encoding="utf-8")
    # English questions over Indonesian paragraphs, as data/squad2-en-over-id holds.
    english = tmp_path / "english.json"
    english.write_text(
        json.dumps(
            _squad(
                [
                    (PARAGRAPHS[0][0], [("Which province is Lake Toba in?", "Sumatera Utara")]),
                    (PARAGRAPHS[1][0], [("Who built Borobudur?", "wangsa Syailendra"), ("How deep is it?", None)]),
                ]
            )
        ),
        encoding="utf-8",
    )
    valid.write_text(json.dumps(_squad(PARAGRAPHS[6:] + PARAGRAPHS[:2])), encoding="utf-8")
    # A documentation archive of the project's own, as data/archive-train holds:
    # one page with a table, a question its row answers and a near miss.
    archive = tmp_path / "archive"
    archive.mkdir()
    page = "# Tarif Kurir\n\n| Layanan | Tarif per kg |\n|---|---|\n| Kilat | Rp18.000 |\n| Hemat | Rp6.500 |\n"
    (archive / "archive.jsonl").write_text(
        json.dumps({"doc_id": "LT1", "title": "Tarif Kurir", "public": True, "format": "markdown", "content": page})
        + "\n",
        encoding="utf-8",
    )
    (archive / "questions.jsonl").write_text(
        "\n".join(
            json.dumps(case)
            for case in (
                {"id": "LT1-1", "question": "Ongkir Kilat per kilo?", "gold": ["LT1"], "answers": ["Rp18.000"]},
                {"id": "LT1-2", "question": "Tarif layanan Kargo per kg?", "gold": [], "answers": []},
            )
        ),
        encoding="utf-8",
    )
    settings.DATA_DIR = str(tmp_path / "data")
    out, _, error = run_command(
        "train_answerer",
        "--train",
        str(train),
        "--valid",
        str(valid),
        "--out",
        str(tmp_path),
        "--name",
        "answerer-test",
        "--dev-set",
        "",
        "--cross-lingual",
        str(english),
        "--archive",
        str(archive),
    )
    assert error is None and "artefak ditulis" in out
    assert "2 pertanyaan arsip latih" in out and meta_data(tmp_path)["archive"]["file"] == "questions.jsonl"
    from retrieval.models import Document

    assert Document.objects.get(key="LT1").collection == "latih-arsip"  # never the editorial archive
    meta = json.loads((tmp_path / "answerer-test.json").read_text(encoding="utf-8"))
    assert meta["data"]["cross_lingual"]["file"] == "english.json"
    assert "2 paragraf ke koleksi squad-english" in out  # trained on, beside IDK-MRC's split
    assert meta["features_version"] == "features-v4" and meta["units_version"] == "units-v2"
    assert set(meta["thresholds"]) == {"refuse_below", "answer_at", "support_min"}
    assert meta["metrics"]["train"]["questions"] > 16  # the augmented copies are there

    make_revision(
        "# Danau\n\nDanau Toba terletak di Sumatera Utara.",
        key="T1",
        title="Danau Toba",
        public=True,
        document_date=date(2026, 1, 1),
    )
    editor = User.objects.filter(username="editor").first() or make_user("editor")
    with artefact_used(str(tmp_path / "answerer-test.pkl")):
        assert artefact().meta["name"] == "answerer-test"
        trained = question_ask(text="Di provinsi mana Danau Toba?", user=editor).contract
    committed = question_ask(text="Di provinsi mana Danau Toba?", user=editor).contract
    assert artefact().meta["name"] != "answerer-test"  # the block is over: the configured one again
    assert trained.evidence == committed.evidence  # the same search; only the scorer differs
    assert committed.claims and "Sumatera Utara" in committed.claims[0].text


def meta_data(folder) -> dict:
    return json.loads((folder / "answerer-test.json").read_text(encoding="utf-8"))["data"]


def test_the_training_archive_answers_its_questions_from_their_gold_pages_only():
    """data/archive-train: every answer key is in its gold page, every near
    miss has none, and no page is one of the demo archive's."""
    from django.conf import settings as django_settings

    from answering.answer_keys import normalise_answer

    root = Path(django_settings.BASE_DIR)
    pages = {}
    for line in (root / "data" / "archive-train" / "archive.jsonl").read_text(encoding="utf-8").splitlines():
        page = json.loads(line)
        pages[page["doc_id"]] = f" {normalise_answer(page['content'])} "
    demo = {
        json.loads(line)["doc_id"]
        for line in (root / "demo" / "archive.jsonl").read_text(encoding="utf-8").splitlines()
    }
    assert not demo & set(pages)
    cases = [
        json.loads(line)
        for line in (root / "data" / "archive-train" / "questions.jsonl").read_text(encoding="utf-8").splitlines()
    ]
    assert len({c["id"] for c in cases}) == len(cases) >= 100
    for case in cases:
        assert bool(case["answers"]) == bool(case["gold"]), case["id"]
        for key in case["answers"]:
            assert any(f" {normalise_answer(key)} " in pages[doc] for doc in case["gold"]), (case["id"], key)
    assert sum(not c["answers"] for c in cases) >= 20  # near misses of other kinds


def test_a_new_artefact_never_overwrites_a_version(tmp_path):
    from review.management.commands.train_answerer import next_artefact_name

    assert next_artefact_name(tmp_path) == "answerer-v1"
    for name in ("answerer-v2", "answerer-v6", "answerer-test", "answerer-vx"):
        (tmp_path / f"{name}.pkl").write_bytes(b"")
    assert next_artefact_name(tmp_path) == "answerer-v7"


def test_an_artefact_of_another_features_version_is_refused_not_misread(tmp_path):
    import shutil

    from answering.answerer import ArtefactError, artefact_read

    shipped = Path(__file__).resolve().parents[2] / "answering" / "artefact" / "answerer-v6"
    shutil.copy(shipped.with_suffix(".pkl"), tmp_path / "old.pkl")
    meta = json.loads(shipped.with_suffix(".json").read_text(encoding="utf-8"))
    assert artefact_read(shipped.with_suffix(".pkl")).meta["features_version"] == "features-v4"

    meta["features_version"] = "features-v2"
    (tmp_path / "old.json").write_text(json.dumps(meta), encoding="utf-8")
    with pytest.raises(ArtefactError, match="features-v2.*latih ulang"):
        artefact_read(tmp_path / "old.pkl")
