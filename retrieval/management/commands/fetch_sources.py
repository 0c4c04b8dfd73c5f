"""python manage.py fetch_sources — fetch documents again from their URL."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError, CommandParser
from tqdm import tqdm

from retrieval.fetching import due_documents, sources_fetch
from retrieval.tasks import index_after_commit


class Command(BaseCommand):
    help = (
        "Ambil ulang dokumen dari URL sumbernya: setiap dokumen dengan URL dan selang pengambilan "
        "(kolom 'ambil ulang tiap (jam)' di admin; diisi otomatis oleh ingest --fetch) yang sudah "
        "jatuh tempo. Revisi baru dibuat hanya bila isi utamanya berubah; kegagalan dicatat pada "
        "dokumen dan revisi yang melayani tetap. robots.txt dipatuhi dan permintaan ke satu host diberi "
        "jeda. Worker menjalankan hal yang sama secara berkala."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("keys", nargs="*", metavar="DOC_ID", help="hanya dokumen ini (bawaan: semua)")
        parser.add_argument("--all", action="store_true", help="abaikan selang: ambil semua sekarang")
        parser.add_argument(
            "--sync", action="store_true", help="indeks revisi baru di proses ini (tanpa worker), seperti ingest --sync"
        )
        parser.add_argument("--dry-run", action="store_true", help="hanya tampilkan yang akan diambil")

    def handle(self, *args: object, **options: object) -> None:
        keys = options["keys"]
        if options["dry_run"]:
            due = due_documents(include_not_due=bool(options["all"]), keys=keys)
            for document in due:
                self.stdout.write(f"{document.key}\t{document.url}\tterakhir {document.last_fetched_at or '-'}")
            self.stdout.write(f"{len(due)} dokumen akan diambil")
            return
        report = sources_fetch(
            include_not_due=bool(options["all"]),
            sync=bool(options["sync"]),
            keys=keys,
            progress=lambda docs: tqdm(docs, desc="mengambil", unit="dokumen", disable=len(docs) < 2),
        )
        for revision_id in report.new_revisions:
            index_after_commit(revision_id)
        counts = report.counts
        self.stdout.write(
            f"Diambil: {sum(counts.values())}; berubah (revisi baru): {counts['changed']}; "
            f"tidak berubah: {counts['unchanged']}; tidak berubah (304): {counts['not_modified']}; "
            f"gagal: {counts['failed']}"
        )
        if counts["changed"] and not options["sync"]:
            self.stdout.write("Revisi baru diantrikan untuk worker (celery -A nalarku_site worker).")
        if report.failures:
            self.stderr.write(self.style.ERROR(f"{len(report.failures)} gagal (revisi yang melayani tetap):"))
            for key, reason in report.failures:
                self.stderr.write(f"  {key}: {reason}")
            raise CommandError(f"{len(report.failures)} dokumen gagal diambil")
