"""python manage.py drop_collection NAME — delete a whole collection."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError, CommandParser

from retrieval.beir import EDITORIAL, drop_collection
from retrieval.models import Document


class Command(BaseCommand):
    help = (
        "Hapus semua dokumen koleksi NAME (mis. beir-scifact) beserta revisi, potongan, posting dan "
        "vektornya, lalu perbaiki statistik leksikal (IDF, panjang rata-rata) dan bobot posting "
        "untuk dokumen yang tersisa. Tidak bertanya dulu; mencetak apa yang dihapus. Cache embedding "
        "disimpan, jadi memuat ulang tidak perlu embedding lagi. Koleksi 'editorial' (arsip redaksi) "
        "hanya dihapus dengan --yes-really."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("collection", metavar="NAME", help="nama koleksi, mis. beir-scifact")
        parser.add_argument(
            "--yes-really", action="store_true", help="izinkan menghapus koleksi 'editorial' (seluruh arsip redaksi)"
        )

    def handle(self, *args: object, **options: object) -> None:
        collection = str(options["collection"])
        if collection == EDITORIAL and not options["yes_really"]:
            raise CommandError(
                "'editorial' adalah arsip redaksi; tambahkan --yes-really bila memang ingin menghapus semuanya"
            )
        if not Document.objects.filter(collection=collection).exists():
            known = sorted(set(Document.objects.values_list("collection", flat=True)))
            self.stdout.write(
                f"Koleksi {collection!r} kosong atau tidak ada; tidak ada yang dihapus. "
                f"Koleksi yang ada: {', '.join(known) or '(tidak ada)'}"
            )
            return
        result = drop_collection(collection=collection)
        self.stdout.write(
            f"Koleksi {collection!r} dihapus: {result.documents} dokumen, {result.revisions} "
            f"revisi, {result.chunks} potongan; statistik leksikal dibangun ulang"
            + (" dan bobot posting dihitung ulang." if result.weights_refreshed else ".")
        )
