"""python manage.py rebuild_lexical — rebuild the BM25 postings of the archive."""

from django.core.management.base import BaseCommand
from django.db import transaction

from retrieval.lexical import lexical_rebuild


class Command(BaseCommand):
    help = (
        "Bangun ulang indeks leksikal (posting BM25 dan statistik istilah) untuk semua potongan, "
        "dalam satu transaksi: pencarian tetap melihat indeks lama sampai selesai."
    )

    def handle(self, *args: object, **options: object) -> None:
        with transaction.atomic():
            count = lexical_rebuild()
        self.stdout.write(f"Indeks leksikal dibangun ulang untuk {count} revisi.")
