"""python manage.py restore FILE — put a `backup` archive back."""

from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError, CommandParser

from nalarku_site.backup import BackupError, human_seconds, restore_database


class Command(BaseCommand):
    help = (
        "Pulihkan cadangan dari `manage.py backup` ke basis data yang dikonfigurasi (DATABASE_URL, atau "
        "PostgreSQL tertanam di NALARKU_DATA_DIR). Basis data tujuan harus kosong kecuali dengan --force. "
        "Berkas diperiksa utuh dulu, dan pemulihan berjalan dalam satu transaksi: bila gagal, tidak ada "
        "yang berubah. Hentikan web server dan worker selama pemulihan."
    )
    # Like migrate: a backup (or its restore) must not wait on the rest of the
    # code passing its checks.
    requires_system_checks = ()

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", metavar="BERKAS", type=Path, help="berkas cadangan dari `manage.py backup`")
        parser.add_argument(
            "--force", action="store_true", help="ganti isi basis data tujuan yang tidak kosong dengan isi cadangan"
        )

    def handle(self, *args: object, **options: object) -> None:
        self.verbosity = options["verbosity"]
        try:
            result = restore_database(path=options["file"], force=options["force"], progress=self._progress)
        except BackupError as error:
            raise CommandError(str(error)) from error
        done = "diganti dengan" if result.replaced else "dipulihkan dari"
        self.stdout.write(
            self.style.SUCCESS(f"Basis data {done} {result.path} ({human_seconds(result.seconds)}). Isinya sekarang:")
        )
        for line in result.counts.lines():
            self.stdout.write(line)

    def _progress(self, message: str) -> None:
        if self.verbosity >= 1:
            self.stdout.write(message)
