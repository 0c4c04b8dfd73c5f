"""python manage.py ask "question" --user NAME — draft an answer with its evidence."""

from __future__ import annotations

import argparse
import json
import textwrap
from datetime import date

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser

from answering.contract import AnswerContract
from retrieval.search import SearchError
from review.asking import question_ask

STATUS_LABELS = {"answered": "TERJAWAB", "needs_review": "PERLU DITINJAU", "insufficient_evidence": "BUKTI TIDAK CUKUP"}


class Command(BaseCommand):
    help = (
        "Ajukan pertanyaan ke arsip sebagai pengguna tertentu (izin grupnya berlaku) dan cetak "
        "jawaban: klaim dengan id bukti, konflik antarsumber, bukti yang kurang, status. "
        "--as-of menjawab menurut revisi yang berlaku pada tanggal itu; --json mencetak kontrak "
        "jawaban lengkap."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("question", help="pertanyaan")
        parser.add_argument("--user", required=True, help="nama pengguna yang izinnya dipakai")
        parser.add_argument("--as-of", type=_date, metavar="YYYY-MM-DD", help="jawab menurut arsip pada tanggal ini")
        parser.add_argument("--category", default="", help="kategori pertanyaan (untuk dasbor)")
        parser.add_argument("--json", action="store_true", help="cetak kontrak jawaban sebagai JSON")

    def handle(self, *args: object, **options: object) -> None:
        try:
            user = get_user_model().objects.get(username=options["user"])
        except get_user_model().DoesNotExist:
            raise CommandError(f"pengguna {options['user']!r} tidak ada") from None
        try:
            asked = question_ask(
                text=options["question"], user=user, as_of=options["as_of"], category=options["category"]
            )
        except SearchError as exc:
            raise CommandError(str(exc)) from None
        if options["json"]:
            self.stdout.write(json.dumps(asked.contract.model_dump(mode="json"), ensure_ascii=False, indent=2))
        else:
            self._print(asked.contract, asked.answer.timings_ms)

    def _print(self, contract: AnswerContract, timings: dict[str, float]) -> None:
        style = {"answered": self.style.SUCCESS, "needs_review": self.style.WARNING}.get(
            contract.status, self.style.ERROR
        )
        self.stdout.write(style(f"{contract.question_id} · {STATUS_LABELS[contract.status]}"))
        for n, claim in enumerate(contract.claims, 1):
            flags = f"  [{', '.join(claim.flags)}]" if claim.flags else ""
            self.stdout.write(f"\n{n}. " + textwrap.fill(claim.text, 96, subsequent_indent="   ") + flags)
            for evidence_id in claim.evidence_ids:
                e = contract.evidence[evidence_id]
                note = f" — DIGANTI, kini r{e.current_revision}" if e.superseded else ""
                self.stdout.write(
                    f"   ↳ {evidence_id} · {e.title} · {e.source_type} · {e.document_date or 'tanpa tanggal'}{note}"
                )
        for conflict in contract.conflicts:
            self.stdout.write(self.style.WARNING(f"\nKonflik ({conflict.kind}): {conflict.note}"))
        for item in contract.missing:
            self.stdout.write(f"\nKurang: {item}")
        if contract.degraded:
            self.stdout.write(self.style.WARNING(f"\nTerdegradasi: {', '.join(contract.degraded)}"))
        self.stdout.write("\n" + ", ".join(f"{stage} {ms:.0f} ms" for stage, ms in timings.items()))


def _date(value: str) -> date:
    try:
        return date.fromisoformat(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"tanggal tidak valid: {value!r} (YYYY-MM-DD)") from None
