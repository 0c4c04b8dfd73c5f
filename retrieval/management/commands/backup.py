"""python manage.py backup FILE — the whole database as one pg_dump archive."""

from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError, CommandParser

from nalarku_site.backup import BackupError, backup_database, human_seconds, human_size


class Command(BaseCommand):
    help = (
        "Cadangkan seluruh basis data (dokumen, revisi, potongan, embedding dan indeksnya, jawaban, "
        "tinjauan, log audit, pengguna) ke satu berkas arsip pg_dump (format custom). Pulihkan dengan "
        "`manage.py restore BERKAS`."
    )
    # Like migrate: a backup (or its restore) must not wait on the rest of the
    # code passing its checks.
    requires_system_checks = ()

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", metavar="BERKAS", type=Path, help="berkas cadangan yang ditulis, mis. nalarku.dump")
        parser.add_argument("--force", action="store_true", help="timpa BERKAS bila sudah ada")

    def handle(self, *args: object, **options: object) -> None:
        self.verbosity = options["verbosity"]
        try:
            result = backup_database(path=options["file"], force=options["force"], progress=self._progress)
        except BackupError as error:
            raise CommandError(str(error)) from error
        took = f"{human_size(result.size)}, {human_seconds(result.seconds)}"
        self.stdout.write(self.style.SUCCESS(f"Cadangan tersimpan: {result.path} ({took}). Isinya:"))
        for line in result.counts.lines():
            self.stdout.write(line)

    def _progress(self, message: str) -> None:
        if self.verbosity >= 1:
            self.stdout.write(message)
