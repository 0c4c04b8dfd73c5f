"""python manage.py eval_answers --set NAME — measure the answers themselves."""

from __future__ import annotations

import json
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError, CommandParser
from tqdm import tqdm

from answering.answerer import artefact_path
from answering.generators import READER_NAMES, reader_path
from retrieval.http import ServiceError
from review.evaluation.answer_runs import ANSWER_GENERATORS, answers_evaluate
from review.evaluation.judge import judge_calibrate, judge_from_config
from review.models import EvalResult, EvalSet


class Command(BaseCommand):
    help = (
        "Ajukan setiap kasus set evaluasi sebagai penggunanya, dengan tiap generator berdampingan dalam "
        "satu run (bawaan: sentence = generator lama, cosine = unit terdekat tanpa pernah menolak, "
        "answerer = mesin berpenilai fitur), dan ukur jawabannya dari isinya: kunci jawaban ada di klaim, "
        "penolakan yang salah, penolakan pada pertanyaan tanpa jawaban, 'answered' tanpa jawaban, "
        "ketepatan keputusan, presisi dan recall konflik, validitas kutipan, latensi tahap jawaban — "
        "keseluruhan dan per kata tanya. Dengan NALARKU_JUDGE_* terisi: faithfulness oleh LLM-as-judge, "
        "dikalibrasi terhadap penilaian editor (--calibrate). Jawaban evaluasi tidak disimpan ke riwayat "
        "editor."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--set", dest="set_name", default="demo", help="nama set (bawaan demo)")
        parser.add_argument("--limit", type=int, help="hanya N kasus pertama")
        parser.add_argument("--label", default="")
        parser.add_argument(
            "--generators",
            default=",".join(ANSWER_GENERATORS),
            help="generator yang dibandingkan, dipisah koma (bawaan: %(default)s); "
            "'answerer@answerer-v6,answerer@answerer-v8' membandingkan dua artefak "
            "penilai berdampingan dalam satu run; 'reader,answerer@answerer-v6' membandingkan pembaca dengan "
            "penilai fitur; 'reader@reader-v3' memakai artefak pembaca tertentu; 'reader,reader+int8' "
            "membandingkan pembaca fp32 dengan perkalian matriks int8; 'reader+chunk,reader+units' membandingkan "
            "klaim dari span terbaik tiap potongan saja dengan klaim dari span tiap unit",
        )
        parser.add_argument(
            "--calibrate", action="store_true", help="hanya kalibrasi juri LLM terhadap klaim yang sudah dinilai editor"
        )

    def handle(self, *args: object, **options: object) -> None:
        judge = judge_from_config()
        if options["calibrate"]:
            if judge is None:
                raise CommandError("juri LLM belum dikonfigurasi (NALARKU_JUDGE_PROVIDER, _URL, _MODEL)")
            try:
                result = judge_calibrate(judge=judge)
            except ServiceError as exc:
                raise CommandError(f"juri LLM gagal: {exc}") from None
            self.stdout.write(f"{result.claims} klaim · kesepakatan {result.agreement}")
            self.stdout.write(json.dumps(result.confusion, indent=2))
            return
        eval_set = EvalSet.objects.filter(name=options["set_name"]).first()
        if eval_set is None:
            raise CommandError(f"set evaluasi {options['set_name']!r} tidak ada; impor dulu dengan eval_import")
        generators = [g.strip() for g in options["generators"].split(",") if g.strip()]
        unknown = [g for g in generators if not _known(g)]
        if unknown or not generators:
            raise CommandError(
                f"generator tidak dikenal: {', '.join(unknown) or '(kosong)'}; "
                f"pilih dari {', '.join(ANSWER_GENERATORS)}, reader, ollama, openai"
            )
        # Each answer is stored under its generator's name: a name the column
        # cannot hold would fail only after every case was asked.
        longest = EvalResult._meta.get_field("mode").max_length
        too_long = [g for g in generators if len(g) > longest]
        if too_long:
            raise CommandError(
                f"nama generator lebih dari {longest} karakter: {', '.join(too_long)}; "
                "salin artefak ke folder artefak dan sebut namanya (answerer@answerer-vN)"
            )
        total = min(eval_set.cases.count(), options["limit"] or 10**9) * len(generators)
        with tqdm(total=total, desc="menjawab", unit="kasus") as bar:
            try:
                run = answers_evaluate(
                    eval_set=eval_set,
                    label=options["label"],
                    limit=options["limit"],
                    judge=judge,
                    generators=generators,
                    progress=bar.update,
                )
            except ServiceError as exc:
                raise CommandError(f"juri LLM gagal: {exc}") from None
        metrics = run.metrics
        self.stdout.write(
            self.style.SUCCESS(
                f"\nRun {run.pk} · {metrics[generators[0]]['cases']} kasus · "
                f"set {eval_set.name} (koleksi {eval_set.collection})"
            )
        )
        self._table(
            ["ukuran", *generators], [[key, *(_fmt(metrics[g].get(key)) for g in generators)] for key in SUMMARY]
        )
        self._table(
            ["latensi ms", *generators],
            [
                [f"{what} {p}", *(_fmt(metrics[g][what][p]) for g in generators)]
                for what in ("answer_stage_ms", "latency_ms")
                for p in ("p50", "p95")
            ],
        )
        words = sorted({w for g in generators for w in metrics[g]["by_question_word"]})
        self.stdout.write("\nper kata tanya (ketepatan keputusan · jawaban di klaim · answered tanpa jawaban):")
        self._table(
            ["kata tanya", "kasus", *generators],
            [
                [
                    w,
                    str(metrics[generators[0]]["by_question_word"].get(w, {}).get("cases", 0)),
                    *(
                        " · ".join(
                            _fmt(metrics[g]["by_question_word"].get(w, {}).get(k))
                            for k in ("decision_accuracy", "answer_in_claims", "confident_wrong_rate")
                        )
                        for g in generators
                    ),
                ]
                for w in words
            ],
        )
        categories = sorted({c for g in generators for c in metrics[g]["by_category"]})
        self.stdout.write(
            "\nper kategori (ketepatan keputusan · jawaban di klaim · answered tanpa jawaban "
            "· ditolak bila tanpa jawaban):"
        )
        self._table(
            ["kategori", "kasus", *generators],
            [
                [
                    c,
                    str(metrics[generators[0]]["by_category"].get(c, {}).get("cases", 0)),
                    *(
                        " · ".join(
                            _fmt(metrics[g]["by_category"].get(c, {}).get(k))
                            for k in (
                                "decision_accuracy",
                                "answer_in_claims",
                                "confident_wrong_rate",
                                "refusal_rate_unanswerable",
                            )
                        )
                        for g in generators
                    ),
                ]
                for c in categories
            ],
        )

    def _table(self, header: list[str], rows: list[list[str]]) -> None:
        widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
        for row in [header, *rows]:
            self.stdout.write("  " + "  ".join(str(c).ljust(w) for c, w in zip(row, widths, strict=True)))


SUMMARY = (
    "decision_accuracy",
    "answer_in_claims",
    "wrong_refusal_rate",
    "refusal_rate_unanswerable",
    "answered_unanswerable",
    "confident_wrong_rate",
    "status_accuracy",
    "conflict_precision",
    "conflict_recall",
    "citation_validity",
    "claim_support_rate",
    "claim_precision",
    "answers_with_offtopic_claim",
    "gold_cited_rate",
    "judge_faithfulness",
)


def _fmt(value: object) -> str:
    if value is None:
        return "—"
    return f"{value:.3f}" if isinstance(value, float) else str(value)


def _known(name: str) -> bool:
    """A generator eval_answers can run, and the artefact it names exists."""
    kind, _, artefact = name.partition("@")
    if kind in READER_NAMES:
        return not artefact or Path(reader_path(artefact)).with_suffix(".npz").is_file()
    if kind not in (*ANSWER_GENERATORS, "ollama", "openai"):
        return False
    return not artefact or artefact_path(artefact).is_file()
