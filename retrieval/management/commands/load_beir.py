"""python manage.py load_beir DIR — load a public BEIR dataset as its own collection."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import TypeVar

from django.core.management.base import BaseCommand, CommandError, CommandParser
from tqdm import tqdm

from retrieval.beir import EDITORIAL, BeirFormatError, load_corpus

T = TypeVar("T")


def _positive(value: str) -> int:
    number = int(value)
    if number < 1:
        raise ValueError(value)
    return number


class Command(BaseCommand):
    help = (
        "Muat dataset BEIR (corpus.jsonl, queries.jsonl, qrels/<split>.tsv) dari DIR sebagai "
        "dokumen publik di koleksinya sendiri (bawaan: beir-<nama folder>), terpisah dari arsip "
        "redaksi: pencarian redaksi tidak melihatnya. Setiap passage menjadi satu dokumen berkunci "
        "'<koleksi>:<_id>' dan langsung diindeks di proses ini (tanpa worker). Aman dijalankan "
        "ulang: passage yang sudah terindeks dengan isi sama dilewati dan embedding diambil dari "
        "cache, jadi proses yang terputus cukup diulang. Catatan: statistik leksikal (IDF) berlaku "
        "per basis data, jadi untuk evaluasi muat tiap dataset ke NALARKU_DATA_DIR sendiri."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("directory", type=Path, metavar="DIR", help="folder dataset BEIR")
        parser.add_argument("--collection", help="nama koleksi (bawaan: beir-<nama folder DIR>)")
        parser.add_argument(
            "--limit", type=_positive, metavar="N", help="muat hanya N passage pertama corpus.jsonl (untuk uji cepat)"
        )

    def handle(self, *args: object, **options: object) -> None:
        directory: Path = options["directory"]  # type: ignore[assignment]
        if not directory.is_dir():
            raise CommandError(f"folder tidak ditemukan: {directory}")
        collection = str(options["collection"] or f"beir-{directory.resolve().name}")
        if collection == EDITORIAL:
            raise CommandError("koleksi 'editorial' adalah arsip redaksi; pilih nama lain untuk dataset")

        def progress(items: Iterable[T], desc: str, total: int) -> Iterable[T]:
            return tqdm(items, desc=desc, total=total, unit="passage", disable=total < 2)

        try:
            result = load_corpus(directory=directory, collection=collection, limit=options["limit"], progress=progress)  # type: ignore[arg-type]
        except BeirFormatError as exc:
            raise CommandError(str(exc)) from None
        self.stdout.write(
            f"{collection}: {result.passages} passage; dokumen baru {result.documents_created}, "
            f"revisi baru {result.revisions_new}, tidak berubah {result.unchanged}; diindeks "
            f"{result.indexed} revisi ({result.chunks} potongan, {result.embedded} di-embed baru, sisanya "
            f"dari cache); {result.seconds:.1f} s"
        )
        if result.failed:
            for passage_id, error in result.failed[:20]:
                self.stderr.write(f"  {passage_id}: {error}")
            raise CommandError(
                f"{len(result.failed)} passage gagal diindeks (lihat di atas); jalankan lagi untuk mencoba ulang"
            )
