"""python manage.py eval_report --out reports/ — Markdown + HTML + PNG plots."""

from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand, CommandParser

from review.evaluation.report import build_report, write_report


class Command(BaseCommand):
    help = (
        "Tulis laporan evaluasi (report.md, report.html dan plot PNG): nDCG@10 per mode dan kategori, "
        "evaluasi jawaban, perbandingan antar-run, eksperimen chunking, latensi per tahap, waktu "
        "pencarian bukti. Sumbernya run yang tersimpan (eval_retrieval, eval_answers). Laporan yang "
        "sama ada di /laporan/ di aplikasi."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--out", type=Path, default=Path("reports"), help="direktori keluaran (bawaan reports/)")

    def handle(self, *args: object, **options: object) -> None:
        written = write_report(build_report(), options["out"])
        self.stdout.write(
            self.style.SUCCESS(
                f"{len(written)} berkas ditulis ke {options['out']}/ (buka {options['out']}/report.html)"
            )
        )
