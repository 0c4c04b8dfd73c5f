"""python manage.py eval_case_from_claim CLAIM_ID — a reviewed claim becomes a regression case."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError, CommandParser

from review.evaluation.sets import REGRESSION_SET, case_from_claim
from review.models import Claim


class Command(BaseCommand):
    help = (
        f"Jadikan klaim yang ditandai 'perlu ditinjau' sebuah kasus evaluasi di set '{REGRESSION_SET}' "
        "(pertanyaan, penanya dan tanggal yang sama; status yang diharapkan needs_review). "
        "Jalankan lagi tanpa efek ganda."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("claim_id", type=int)

    def handle(self, *args: object, **options: object) -> None:
        claim = Claim.objects.select_related("answer__question").filter(pk=options["claim_id"]).first()
        if claim is None:
            raise CommandError(f"klaim {options['claim_id']} tidak ada")
        try:
            case = case_from_claim(claim=claim)
        except ValueError as exc:
            raise CommandError(str(exc)) from None
        self.stdout.write(self.style.SUCCESS(f"Kasus {case.case_id} di set {case.eval_set.name}."))
