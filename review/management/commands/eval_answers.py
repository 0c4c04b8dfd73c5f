"""python manage.py eval_answers --set NAME — measure the answers themselves."""

from __future__ import annotations

import json

from django.core.management.base import BaseCommand, CommandError, CommandParser
from tqdm import tqdm

from retrieval.http import ServiceError
from review.evaluation import answers_evaluate
from review.judge import judge_calibrate, judge_from_config
from review.models import EvalSet


class Command(BaseCommand):
    help = ("Ajukan setiap kasus set evaluasi sebagai penggunanya dan ukur jawabannya: ketepatan status, "
            "abstain pada pertanyaan tanpa jawaban, deteksi konflik, validitas kutipan (id bukti ⊆ potongan "
            "yang dikirim), tingkat dukungan klaim, bukti emas dikutip. Dengan NALARKU_JUDGE_* terisi: "
            "faithfulness oleh LLM-as-judge, dikalibrasi terhadap penilaian editor (--calibrate). Jawaban "
            "evaluasi tidak disimpan ke riwayat editor.")

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--set", dest="set_name", default="demo", help="nama set (bawaan demo)")
        parser.add_argument("--limit", type=int, help="hanya N kasus pertama")
        parser.add_argument("--label", default="")
        parser.add_argument("--calibrate", action="store_true",
                            help="hanya kalibrasi juri LLM terhadap klaim yang sudah dinilai editor")

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
        total = min(eval_set.cases.count(), options["limit"] or 10**9)
        with tqdm(total=total, desc="menjawab", unit="kasus") as bar:
            try:
                run = answers_evaluate(eval_set=eval_set, label=options["label"], limit=options["limit"],
                                       judge=judge, progress=bar.update)
            except ServiceError as exc:
                raise CommandError(f"juri LLM gagal: {exc}") from None
        metrics = run.metrics
        self.stdout.write(self.style.SUCCESS(f"\nRun {run.pk} · {metrics['cases']} kasus"))
        for key in ("status_accuracy", "abstention_accuracy", "false_abstention_rate", "conflict_recall",
                    "conflict_false_alarm_rate", "citation_validity", "ids_removed", "claim_support_rate",
                    "gold_cited_rate", "judge_faithfulness"):
            self.stdout.write(f"  {key:<28}{metrics[key] if metrics[key] is not None else '—'}")
        self.stdout.write("  ketepatan status per kategori:")
        for category, values in metrics["by_category"].items():
            self.stdout.write(f"    {category:<30}{values['status_accuracy']}  ({values['cases']} kasus)")
