"""python manage.py eval_export NAME --format jsonl|beir --out PATH"""

from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError, CommandParser

from review.evaluation.sets import evalset_export_beir, evalset_export_jsonl
from review.models import EvalSet


class Command(BaseCommand):
    help = (
        "Ekspor set evaluasi sebagai JSONL (berkas) atau BEIR (direktori: corpus.jsonl berisi setiap "
        "revisi arsip dengan _id 'D13:r3', queries.jsonl, qrels/test.tsv)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("name", help="nama set evaluasi")
        parser.add_argument("--format", choices=["jsonl", "beir"], default="jsonl")
        parser.add_argument("--out", type=Path, required=True, help="berkas (jsonl) atau direktori (beir)")

    def handle(self, *args: object, **options: object) -> None:
        eval_set = EvalSet.objects.filter(name=options["name"]).first()
        if eval_set is None:
            raise CommandError(f"set evaluasi {options['name']!r} tidak ada")
        if options["format"] == "jsonl":
            count = evalset_export_jsonl(eval_set=eval_set, path=options["out"])
        else:
            count = evalset_export_beir(eval_set=eval_set, directory=options["out"])
        self.stdout.write(self.style.SUCCESS(f"{count} kasus diekspor ke {options['out']}"))
