"""python manage.py sweep_pending — re-enqueue revisions left pending."""

from datetime import timedelta

from django.core.management.base import BaseCommand, CommandParser

from retrieval.tasks import sweep


class Command(BaseCommand):
    help = (
        "Antrikan ulang revisi yang masih menunggu (mis. Redis mati saat disimpan) atau macet "
        "saat diindeks (worker mati). Tugas berkala worker melakukan hal yang sama tiap 5 menit."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--minutes", type=int, default=2, help="hanya revisi yang menunggu lebih lama dari ini (bawaan 2)"
        )

    def handle(self, *args: object, **options: object) -> None:
        ids = sweep(pending_for=timedelta(minutes=options["minutes"]))
        self.stdout.write(f"{len(ids)} revisi diantrikan ulang.")
