"""Evaluation: sets in and out (JSONL, BEIR), retrieval runs measured with
ir-measures and stored per query, comparison, answer evaluation, the LLM
judge against a loopback server, regression cases from review."""

from __future__ import annotations

import json
import re
from datetime import date

import pytest
from django.conf import settings
from django.core.management import call_command
from django.core.management.base import CommandError
from django.urls import reverse
from werkzeug import Request, Response

from retrieval.llm import ChatClient
from review.asking import question_ask
from review.evaluation.answer_runs import answers_evaluate
from review.evaluation.judge import Judge, judge_calibrate
from review.evaluation.retrieval_runs import retrieval_evaluate, runs_compare
from review.evaluation.sets import (
    EvalImportError,
    case_from_claim,
    cases_from_set,
    evalset_export_beir,
    evalset_export_jsonl,
    evalset_import,
)
from review.models import EvalCase, EvalResult, EvalRun, Question
from review.reviewing import claim_review

pytestmark = pytest.mark.django_db

CASES = [
    {
        "id": "E1",
        "question": "Apa arti ERR_CONN_RESET?",
        "category": "exact_identifier",
        "user": "pembaca",
        "as_of": None,
        "gold": [{"document": "K1", "revision": 2}],
        "expected_status": "answered",
        "answers": ["menutup koneksi"],
        "conflict": False,
        "note": "",
    },
    {
        "id": "E2",
        "question": "berapa lama baterai headset bertahan",
        "category": "paraphrase",
        "user": "pembaca",
        "as_of": None,
        "gold": [{"document": "B1", "revision": 1}],
        "expected_status": "answered",
        "answers": ["26 jam"],
        "conflict": False,
        "note": "",
    },
    {
        "id": "E3",
        "question": "Berapa harga saham perusahaan di bursa tahun lalu?",
        "category": "no_answer",
        "user": "pembaca",
        "as_of": None,
        "gold": [],
        "expected_status": "insufficient_evidence",
        "conflict": False,
        "note": "",
    },
    {
        "id": "E4",
        "question": "Apa arti ERR_CONN_RESET waktu itu?",
        "category": "near_duplicate_old_revision",
        "user": "pembaca",
        "as_of": "2025-12-01",
        "gold": [{"document": "K1", "revision": 1}],
        "expected_status": "answered",
        "conflict": False,
        "note": "",
    },
]


@pytest.fixture
def archive(make_revision, make_user):
    make_user("pembaca")
    make_revision(
        "# Kode\n\nERR_CONN_RESET berarti kuota penyimpanan penuh.",
        key="K1",
        title="Kode galat",
        public=True,
        source_type="documentation",
        document_date=date(2025, 11, 1),
    )
    make_revision(
        "# Kode\n\nERR_CONN_RESET berarti server menutup koneksi secara sepihak.",
        key="K1",
        title="Kode galat",
        public=True,
        source_type="documentation",
        document_date=date(2026, 4, 1),
    )
    make_revision(
        "# LX-700BT\n\nWaktu pemutaran baterai 26 jam dengan ANC aktif.",
        key="B1",
        title="Spesifikasi",
        public=True,
        source_type="spec",
        document_date=date(2026, 2, 5),
    )


@pytest.fixture
def eval_file(tmp_path):
    path = tmp_path / "eval.jsonl"
    path.write_text("\n".join(json.dumps(c) for c in CASES) + "\n", encoding="utf-8")
    return path


def test_import_export_roundtrip(archive, eval_file, tmp_path):
    eval_set, count = evalset_import(path=eval_file, name="uji")
    assert count == 4 and eval_set.cases.count() == 4
    out = tmp_path / "out.jsonl"
    assert evalset_export_jsonl(eval_set=eval_set, path=out) == 4
    assert [json.loads(line)["id"] for line in out.read_text().splitlines()] == ["E1", "E2", "E3", "E4"]
    beir = tmp_path / "beir"
    assert evalset_export_beir(eval_set=eval_set, directory=beir) == 3  # E3 has no gold
    corpus = [json.loads(line)["_id"] for line in (beir / "corpus.jsonl").read_text().splitlines()]
    assert corpus == ["B1:r1", "K1:r1", "K1:r2"]
    assert (beir / "qrels" / "test.tsv").read_text().splitlines()[:2] == ["query-id\tcorpus-id\tscore", "E1\tK1:r2\t1"]


def test_import_errors_name_the_line_and_change_nothing(archive, tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps(CASES[0]) + "\n" + json.dumps({**CASES[1], "expected_status": "mungkin"}) + "\n")
    with pytest.raises(EvalImportError, match="bad.jsonl baris 2: expected_status"):
        evalset_import(path=bad, name="uji")
    assert not EvalCase.objects.exists()
    bad.write_text(json.dumps(CASES[0]) + "\n" + json.dumps(CASES[0]) + "\n")
    with pytest.raises(EvalImportError, match="ganda"):
        evalset_import(path=bad, name="uji")


def test_retrieval_run_is_measured_stored_and_comparable(archive, eval_file):
    eval_set, _ = evalset_import(path=eval_file, name="uji")
    cases = cases_from_set(eval_set)
    assert [c.case_id for c in cases] == ["E1", "E2", "E4"]
    run = retrieval_evaluate(
        cases=cases, modes=["lexical", "vector", "hybrid", "hybrid+rerank"], k=5, eval_set=eval_set
    )
    assert set(run.metrics) == {"lexical", "vector", "hybrid", "hybrid+rerank"}
    assert "skipped" in run.metrics["hybrid+rerank"]  # no reranker configured
    hybrid = run.metrics["hybrid"]
    assert hybrid["queries"] == 3 and set(hybrid["by_category"]) == {
        "exact_identifier",
        "paraphrase",
        "near_duplicate_old_revision",
    }
    assert 0 < hybrid["all"]["nDCG@10"] <= 1 and hybrid["all"]["Success@10"] == 1.0
    # As of 2025-12-01 only K1 r1 was in force: the old revision is the right one then.
    e4 = EvalResult.objects.get(run=run, mode="hybrid", case_id="E4")
    assert e4.candidates[0] == "K1:r1" and e4.measures["RR@10"] == 1.0
    e1 = EvalResult.objects.get(run=run, mode="lexical", case_id="E1")
    assert e1.candidates[0] == "K1:r2" and "K1:r1" not in e1.candidates  # superseded, not in force now
    assert run.config["chunker_version"] and run.config["index"]["active_chunks"] == 2
    again = retrieval_evaluate(cases=cases, modes=["hybrid"], k=5, eval_set=eval_set)
    deltas = runs_compare(a=run, b=again)
    assert [d.delta for d in deltas["hybrid"]] == [0.0, 0.0, 0.0]


def test_eval_commands(archive, eval_file, capsys):
    call_command("eval_import", str(eval_file), "--name", "uji")
    call_command("eval_retrieval", "--set", "uji", "--modes", "lexical,hybrid", "--k", "5")
    out = capsys.readouterr().out
    assert "nDCG@10" in out and "lexical" in out and "hybrid" in out
    with pytest.raises(CommandError, match="tidak dikenal"):
        call_command("eval_retrieval", "--set", "uji", "--modes", "fuzzy")
    with pytest.raises(CommandError, match="eval_import"):
        call_command("eval_retrieval", "--set", "tidak-ada")
    # An artefact named by a path too long to store a run under is refused
    # before any case is asked, not after all of them.
    long_path = str(settings.BASE_DIR / "answering" / "artefact" / "answerer-v6.pkl")
    with pytest.raises(CommandError, match="lebih dari 30 karakter"):
        call_command("eval_answers", "--set", "uji", "--generators", f"answerer@{long_path}")
    assert not EvalRun.objects.filter(kind="answers").exists()


def test_answer_evaluation_measures_and_leaves_no_history(archive, eval_file):
    eval_set, _ = evalset_import(path=eval_file, name="uji")
    run = answers_evaluate(eval_set=eval_set)
    assert set(run.metrics) == {"sentence", "cosine", "answerer"}  # side by side in one run
    for m in run.metrics.values():
        assert m["cases"] == 4 and m["citation_validity"] == 1.0
        assert m["gold_cited_rate"] is not None and 0 <= m["claim_support_rate"] <= 1
        assert set(m["by_question_word"]) >= {"apa", "berapa"}
        assert m["answer_stage_ms"]["p50"] > 0
    # The baseline never refuses when there is evidence at all.
    assert run.metrics["cosine"]["wrong_refusal_rate"] == 0.0
    engine = run.metrics["answerer"]
    assert engine["refusal_rate_unanswerable"] == 1.0
    rows = {r.case_id: r.measures for r in EvalResult.objects.filter(run=run, mode="answerer")}
    assert len(rows) == 4 and rows["E4"]["answer_in_claims"] is None  # no answer key: not counted
    keyed = [rows[c]["answer_in_claims"] for c in ("E1", "E2")]
    assert engine["answer_in_claims"] == sum(keyed) / 2
    assert engine["decision_accuracy"] == sum(m["decision_correct"] for m in rows.values()) / 4
    said = [p for m in rows.values() for p in m["claims_precise"]]
    assert len(said) == sum(m["claims"] for m in rows.values())
    assert engine["claim_precision"] == round(sum(said) / len(said), 4)
    assert not Question.objects.exists()  # rolled back


def test_claim_precision_counts_claims_that_answer():
    """A claim answers where it holds an answer key, cites the gold revision
    or is a side of a conflict shown; a claim beside them does not."""
    from types import SimpleNamespace as NS

    from answering.contract import Claim, Conflict
    from review.evaluation.answer_runs import _claims_precise, _precision

    evidence = {
        k: NS(document=k.split(":")[0], revision=int(k.split(":")[1][1:]))
        for k in ("K1:r2:p1", "K1:r1:p1", "B1:r1:p1", "X9:r1:p1")
    }
    contract = NS(
        evidence=evidence,
        claims=[
            Claim(text="Server menutup koneksi secara sepihak.", evidence_ids=["B1:r1:p1"]),  # holds the key
            Claim(text="Lihat tabel kode.", evidence_ids=["K1:r2:p1"]),  # cites the gold revision
            Claim(text="Dulu: kuota penuh.", evidence_ids=["K1:r1:p1"]),  # a conflict side
            Claim(text="Harga paket Bisnis.", evidence_ids=["X9:r1:p1"]),  # none of those
        ],
        conflicts=[Conflict(evidence_ids=["K1:r2:p1", "K1:r1:p1"], kind="meaning", note="")],
    )
    precise = _claims_precise(contract, ["menutup koneksi"], {"K1:r2"})
    assert precise == [True, True, True, False]
    assert _precision([{"claims_precise": precise}, {"claims_precise": [True]}, {"claims_precise": []}]) == {
        "claim_precision": 0.8,
        "answers_with_offtopic_claim": 0.5,
    }


def test_answer_keys_match_whole_words_case_and_punctuation_aside():
    from answering.answer_keys import answer_in_claims

    assert answer_in_claims(["30 jam"], ["Waktu pemutaran: hingga **30 Jam**."])
    assert not answer_in_claims(["30 jam"], ["Waktu pemutaran 130 jam."])
    assert not answer_in_claims(["3 hari"], ["Cuti 3 harian"])


def test_a_squad_file_becomes_an_isolated_collection_and_a_set(tmp_path, make_user):
    from retrieval.models import Document
    from review.evaluation.sets import evalset_import_squad

    squad = [
        {
            "context": "Gunung Kerinci adalah gunung tertinggi di Sumatra dengan ketinggian 3.805 meter.",
            "qas": [
                {
                    "id": "q1",
                    "question": "Berapa tinggi Gunung Kerinci?",
                    "is_impossible": False,
                    "answers": [{"text": "3.805 meter", "answer_start": 67}],
                },
                {
                    "id": "q2",
                    "question": "Siapa yang pertama mendaki Gunung Kerinci?",
                    "is_impossible": True,
                    "answers": [],
                },
            ],
        }
    ]
    path = tmp_path / "mini.json"
    path.write_text(json.dumps(squad), encoding="utf-8")
    eval_set, count = evalset_import_squad(path=path, name="mini", collection="squad-mini")
    assert count == 2 and eval_set.collection == "squad-mini"
    assert Document.objects.filter(collection="squad-mini", public=True).count() == 1
    assert not Document.objects.filter(collection="editorial").exists()
    q1, q2 = eval_set.cases.order_by("case_id")
    assert q1.answers == ["3.805 meter"] and q1.gold == [{"document": "squad-mini:p00000"}]
    assert q2.expected_status == "insufficient_evidence" and q2.answers == []
    run = answers_evaluate(eval_set=eval_set, generators=["answerer"])
    assert run.config["collection"] == "squad-mini" and run.metrics["answerer"]["cases"] == 2


def test_llm_judge_and_its_calibration_against_editors(archive, httpserver, make_user):
    def chat(request: Request) -> Response:
        prompt = json.loads(request.data)["messages"][-1]["content"]
        supported = "26 jam" in prompt.split("BUKTI:")[0] and "26 jam" in prompt.split("BUKTI:")[1]
        return Response(
            json.dumps({"message": {"role": "assistant", "content": json.dumps({"supported": supported})}}),
            content_type="application/json",
        )

    httpserver.expect_request("/api/chat").respond_with_handler(chat)
    judge = Judge(ChatClient(provider="ollama", url=httpserver.url_for("/"), model="juri"))
    assert judge.supported("Baterai 26 jam.", ["Waktu pemutaran baterai 26 jam."]) is True
    assert judge.supported("Baterai 40 jam.", ["Waktu pemutaran baterai 26 jam."]) is False
    editor = make_user("editor")
    answer = question_ask(text="berapa jam waktu pemutaran baterai LX-700BT", user=editor).answer
    claim = answer.claims.first()
    claim_review(claim=claim, reviewer=editor, status="supported")
    result = judge_calibrate(judge=judge)
    assert result.claims == 1 and result.confusion["supported"]["supported"] == 1 and result.agreement == 1.0


def test_a_claim_marked_needs_review_becomes_a_regression_case(archive, client, make_user):
    editor = make_user("editor", reviewer=True)
    answer = question_ask(text="berapa jam waktu pemutaran baterai LX-700BT", user=editor).answer
    claim = answer.claims.first()
    with pytest.raises(ValueError, match="perlu ditinjau"):
        case_from_claim(claim=claim)
    client.force_login(editor)
    client.post(reverse("claim-decide", args=[claim.pk]), {"status": "needs_review", "note": "angka lama"})
    page = client.get(reverse("answer", args=[answer.pk])).content.decode()
    assert "Jadikan kasus evaluasi" in page
    response = client.post(reverse("claim-case", args=[claim.pk]), HTTP_HX_REQUEST="true")
    assert response.status_code == 200 and f"C{claim.pk}" in response.content.decode()
    case = EvalCase.objects.get()
    assert case.eval_set.name == "regresi" and case.expected_status == "needs_review"
    assert case.question == answer.question.text and case.username == "editor" and "angka lama" in case.note
    call_command("eval_case_from_claim", str(claim.pk))  # the command; idempotent
    assert EvalCase.objects.count() == 1


def test_report_has_tables_and_real_plots(archive, eval_file, tmp_path, client, make_user):
    from review.evaluation.report import build_report, write_report

    eval_set, _ = evalset_import(path=eval_file, name="uji")
    for _ in range(2):
        retrieval_evaluate(cases=cases_from_set(eval_set), modes=["lexical", "hybrid"], k=5, eval_set=eval_set)
    report = build_report()
    titles = [s.title for s in report.sections]
    assert titles[:3] == ["Mutu pencarian per cara mencari", "Evaluasi jawaban", "Perbandingan antar-uji"]
    written = write_report(report, tmp_path / "rep")
    names = {p.name for p in written}
    assert {"report.md", "report.html", "ndcg_by_mode.png", "ndcg_by_category_uji.png", "compare_uji.png"} <= names
    assert (tmp_path / "rep" / "ndcg_by_mode.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "| uji |" in (tmp_path / "rep" / "report.md").read_text()
    client.force_login(make_user("editor"))
    page = client.get(reverse("report")).content.decode()
    # An editor reads the figures in plain words; run ids and measure names are staff's, folded.
    assert "data:image/png;base64," in page and "Mutu pencarian per cara mencari" in page
    assert "nDCG@10" not in page and "rincian teknis" not in page and "Perbandingan antar-uji" not in page
    client.force_login(make_user("staf", is_staff=True))
    staff = client.get(reverse("report")).content.decode()
    assert "rincian teknis" in staff and "nDCG@10" in staff and "Perbandingan antar-uji" in staff
    # Indonesian throughout: no English filler, a local date, decimal commas.
    md = (tmp_path / "rep" / "report.md").read_text()
    for english in ("no data yet", "per category", "evaluation report", "decision_accuracy"):
        assert english not in md and english not in page, english
    assert "(belum ada data)" in page and not re.search(r"Dibuat \d{4}-\d\d-\d\dT", page)
    assert re.search(r"\| \d,\d{4} \|", md), "nDCG figures with a decimal comma"


def test_chunking_experiment_in_its_own_collection(archive, eval_file, make_revision):
    from retrieval.models import Chunk, Document, LexicalStats
    from review.evaluation.chunking_runs import ChunkingSetting, chunking_collection_build, chunking_evaluate

    long_text = "# Panduan\n\n" + " ".join(
        f"Langkah {n}: buka konsol, pilih menu sinkronisasi, lalu simpan pengaturan nomor {n}." for n in range(1, 30)
    )
    make_revision(long_text, key="G1", title="Panduan panjang", public=True)
    eval_set, _ = evalset_import(path=eval_file, name="uji")
    editorial = LexicalStats.objects.get(collection="editorial").chunk_count
    small = chunking_collection_build(setting=ChunkingSetting(64))
    large = chunking_collection_build(setting=ChunkingSetting(256, breadcrumbs=False))
    assert small > large
    bare = Chunk.objects.filter(document__collection="chunking-256-tanpa-breadcrumb")
    assert bare.exists() and not bare.exclude(heading_path="").exists()
    run = chunking_evaluate(eval_set=eval_set, setting=ChunkingSetting(64), modes=["hybrid"])
    assert run.label == "chunking:64" and run.metrics["hybrid"]["queries"] == 3
    assert EvalResult.objects.get(run=run, case_id="E1").candidates[0] == "K1:r2"  # original ids
    assert LexicalStats.objects.get(collection="editorial").chunk_count == editorial  # archive untouched
    assert Document.objects.filter(collection="chunking-64", key="chunking-64:K1").get().public


def test_a_beir_dataset_becomes_a_stored_set(tmp_path, capsys):
    from retrieval.beir import load_corpus

    root = tmp_path / "mini"
    (root / "qrels").mkdir(parents=True)
    (root / "corpus.jsonl").write_text(
        "\n".join(
            json.dumps(p)
            for p in [
                {"_id": "p1", "title": "Donggala", "text": "Donggala adalah kabupaten di Sulawesi Tengah."},
                {"_id": "p2", "title": "Vitamin D", "text": "Vitamin D supplementation did not reduce fractures."},
            ]
        )
        + "\n"
    )
    (root / "queries.jsonl").write_text(json.dumps({"_id": "q1", "text": "Dimanakah letak Donggala?"}) + "\n")
    (root / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\nq1\tp1\t1\n")
    load_corpus(directory=root, collection="beir-mini")
    call_command("eval_import", str(root), "--beir", "--name", "mini", "--collection", "beir-mini")
    assert "1 kueri BEIR" in capsys.readouterr().out
    case = EvalCase.objects.get(eval_set__name="mini")
    assert case.gold == [{"document": "beir-mini:p1"}]
    from review.models import EvalSet

    run = retrieval_evaluate(
        cases=cases_from_set(EvalSet.objects.get(name="mini")), modes=["lexical"], k=5, collection="beir-mini"
    )
    assert run.metrics["lexical"]["all"]["Success@10"] == 1.0
