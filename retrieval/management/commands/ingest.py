"""python manage.py ingest — add documents and revisions to the archive."""

from __future__ import annotations

import argparse
import re
from datetime import date
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError, CommandParser
from tqdm import tqdm

from retrieval.chunking import has_text
from retrieval.fetching import Fetcher, FetchError, fetch_new
from retrieval.ingestion import (
    RevisionGone,
    RevisionInput,
    input_hash,
    revision_index,
    revision_submit,
)
from retrieval.models import DEFAULT_SOURCE_TYPE, Revision
from retrieval.sources import (
    InputProblem,
    format_for,
    read_document_file,
    read_manifest,
    source_type_key,
)
from retrieval.tasks import index_after_commit


class Command(BaseCommand):
    help = (
        "Masukkan dokumen ke arsip. Dari file (.md, .html, .txt, .pdf, .docx) atau dari manifest JSONL "
        "(--manifest), satu revisi per baris; baris dengan doc_id sama adalah revisi berurutan. "
        "Isi yang identik dengan revisi terakhir tidak membuat revisi baru. Tanpa --sync "
        "pengindeksan dikerjakan worker Celery; dengan --sync di proses ini, sampai selesai."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("files", nargs="*", type=Path, help="file .md, .html, .txt, .pdf (lapisan teks) atau .docx")
        parser.add_argument("--manifest", type=Path, help="manifest JSONL, satu revisi per baris")
        parser.add_argument("--doc-id", help="kunci dokumen (bawaan: nama file tanpa ekstensi)")
        parser.add_argument("--title", help="judul (bawaan: judul pertama dalam file, atau nama file)")
        parser.add_argument("--groups", default="", help="grup yang boleh membaca, dipisah koma")
        parser.add_argument("--public", action="store_true", help="terlihat oleh semua pengguna")
        parser.add_argument(
            "--source-type",
            default=DEFAULT_SOURCE_TYPE,
            type=_source_type,
            help="jenis sumber (daftarnya di admin: Jenis sumber; README); jenis baru "
            "dibuat dengan otoritas terendah dan dilaporkan",
        )
        parser.add_argument("--document-date", type=_iso_date, help="tanggal dokumen sendiri, YYYY-MM-DD")
        parser.add_argument("--url", default="", help="alamat sumber asli")
        parser.add_argument(
            "--collection", default="editorial", help="koleksi (dataset publik dipisah dari data redaksi)"
        )
        parser.add_argument(
            "--fetch",
            metavar="URL",
            help="ambil isi dari URL ini (halaman HTML, PDF, DOCX atau teks) dengan --doc-id; "
            "dokumen itu lalu diambil ulang oleh fetch_sources",
        )
        parser.add_argument(
            "--fetch-every",
            type=int,
            metavar="JAM",
            help="selang pengambilan ulang untuk --fetch dan baris manifest fetch (bawaan 24)",
        )
        parser.add_argument("--sync", action="store_true", help="indeks di proses ini dan kembali setelah selesai")

    def handle(self, *args: object, **options: object) -> None:
        files: list[Path] = options["files"]  # type: ignore[assignment]
        manifest: Path | None = options["manifest"]  # type: ignore[assignment]
        if not files and not manifest and not options["fetch"]:
            raise CommandError("beri file untuk dimasukkan, --manifest FILE atau --fetch URL (lihat --help)")
        if options["fetch"] and not options["doc_id"]:
            raise CommandError("--fetch memerlukan --doc-id (kunci dokumen yang diambil)")
        if options["fetch"] and (files or manifest):
            raise CommandError("--fetch tidak bisa digabung dengan file atau --manifest")
        if options["fetch_every"] is not None and options["fetch_every"] < 1:
            raise CommandError("--fetch-every harus paling sedikit 1 jam")
        if options["doc_id"] and len(files) > 1:
            raise CommandError("--doc-id hanya untuk satu file")
        if manifest and not manifest.is_file():
            raise CommandError(f"manifest tidak ditemukan: {manifest}")

        problems: list[InputProblem] = []
        inputs: list[tuple[str, RevisionInput]] = []
        fetches: dict[int, int | None] = {}  # input index → re-fetch interval, for inputs read from a URL
        if manifest:
            for item in read_manifest(manifest):
                if isinstance(item, InputProblem):
                    problems.append(item)
                    continue
                if item.fetch:
                    fetches[len(inputs)] = item.fetch_every_hours or options["fetch_every"]
                inputs.append((f"{manifest.name} ({item.doc_id})", item.to_input(options["collection"])))
        if options["fetch"]:
            fetches[0] = options["fetch_every"]
            inputs.append(
                (
                    options["fetch"],
                    RevisionInput(
                        key=options["doc_id"],
                        title=options["title"] or "",
                        content="",
                        url=options["fetch"],
                        source_type=options["source_type"],
                        document_date=options["document_date"],
                        public=options["public"],
                        collection=options["collection"],
                        groups=[g.strip() for g in options["groups"].split(",") if g.strip()],
                    ),
                )
            )
        for path in files:
            try:
                inputs.append((path.name, self._file_input(path, options)))
            except ValueError as exc:
                problems.append(InputProblem(path.name, str(exc)))

        sync = bool(options["sync"])
        replayed = already_ingested([data for _, data in inputs])
        created_docs, unchanged = 0, len(replayed)
        new_revisions: list[tuple[str, int]] = []
        groups_created: list[str] = []
        types_created: list[str] = []
        fetcher = Fetcher() if fetches else None  # one polite run: robots.txt once, hosts spaced
        for n, (where, data) in enumerate(tqdm(inputs, desc="menyimpan", unit="revisi", disable=len(inputs) < 5)):
            if n in replayed:
                continue
            if n in fetches:
                try:
                    result = fetch_new(data, every_hours=fetches[n], fetcher=fetcher)
                except FetchError as exc:
                    problems.append(InputProblem(where, f"gagal mengambil {data.url}: {exc}"))
                    continue
            elif data.scan is None and not has_text(data.content, data.format):
                problems.append(InputProblem(where, f"tidak ada teks yang bisa dibaca sebagai {data.format}"))
                continue
            else:
                result = revision_submit(data=data)
            created_docs += result.document_created
            groups_created += result.groups_created
            if result.source_type_created:
                types_created.append(data.source_type)
            if result.revision is None:
                unchanged += 1
            else:
                new_revisions.append((result.revision.key, result.revision.pk))
                if not sync:
                    index_after_commit(result.revision.pk)

        if fetcher is not None:
            fetcher.close()
        self.stdout.write(
            f"Dokumen baru: {created_docs}; revisi baru: {len(new_revisions)}; tidak berubah: {unchanged}"
        )
        if groups_created:
            self.stdout.write(f"Grup baru dibuat: {', '.join(sorted(set(groups_created)))}")
        if types_created:
            self.stdout.write(
                f"Jenis sumber baru dibuat (otoritas terendah; periksa label dan peringkatnya "
                f"di admin): {', '.join(sorted(set(types_created)))}"
            )
        if sync:
            self._index(new_revisions, problems)
        elif new_revisions:
            self.stdout.write("Revisi baru diantrikan untuk worker (celery -A nalarku_site worker).")
        if problems:
            self.stderr.write(self.style.ERROR(f"{len(problems)} masalah (yang lain sudah tersimpan):"))
            for problem in problems:
                self.stderr.write(f"  {problem}")
            raise CommandError(f"{len(problems)} masukan ditolak")

    def _index(self, revisions: list[tuple[str, int]], problems: list[InputProblem]) -> None:
        chunks = tokens = 0
        for key, revision_id in tqdm(revisions, desc="mengindeks", unit="revisi", disable=len(revisions) < 2):
            try:
                result = revision_index(
                    revision_id=revision_id, progress=lambda message, key=key: self.stdout.write(f"{key}: {message}")
                )
            except RevisionGone:
                continue
            except Exception as exc:  # keep going: the revision records its own error
                problems.append(InputProblem(key, f"pengindeksan gagal: {exc}"))
                continue
            if result.status == "failed":
                problems.append(InputProblem(key, Revision.objects.get(pk=revision_id).error))
            chunks += result.chunks
            tokens += result.tokens
        self.stdout.write(self.style.SUCCESS(f"Diindeks: {len(revisions)} revisi, {chunks} potongan, {tokens} token"))

    def _file_input(self, path: Path, options: dict) -> RevisionInput:
        # A scan is read with OCR where the revision is indexed: by the
        # worker, or with --sync in this process (its progress shown).
        loaded = read_document_file(path, ocr=False)
        text, fmt = loaded.text, format_for(path)
        return RevisionInput(
            key=options["doc_id"] or path.stem,
            title=options["title"] or _first_heading(text, fmt) or path.stem,
            content=text,
            format=fmt,
            page_starts=loaded.page_starts,
            ocr_pages=loaded.ocr_pages,
            scan=loaded.scan,
            source_type=options["source_type"],
            url=options["url"],
            document_date=options["document_date"],
            public=options["public"],
            groups=[g.strip() for g in options["groups"].split(",") if g.strip()],
            collection=options["collection"],
        )


def already_ingested(inputs: list[RevisionInput]) -> set[int]:
    """Indexes of inputs that replay history already in the archive.

    A manifest lists a document's revisions in order. When it is ingested
    again, its lines up to the one equal to the document's newest revision
    are history, not new revisions; lines after it are new."""
    newest = dict(
        Revision.objects.filter(document__key__in={d.key for d in inputs})
        .order_by("document__key", "-number")
        .distinct("document__key")
        .values_list("document__key", "content_hash")
    )
    last_match: dict[str, int] = {}
    for n, data in enumerate(inputs):
        if newest.get(data.key) == input_hash(data):
            last_match[data.key] = n
    return {n for n, data in enumerate(inputs) if n < last_match.get(data.key, -1)}


def _source_type(value: str) -> str:
    try:
        return source_type_key(value)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _iso_date(value: str) -> date:
    try:
        return date.fromisoformat(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"tanggal tidak valid: {value!r} (format YYYY-MM-DD)") from None


def _first_heading(text: str, fmt: str) -> str:
    markdown = r"^#{1,6}\s+(.+?)\s*#*\s*$"
    pattern = {"markdown": markdown, "pdf": markdown, "docx": markdown, "html": r"<h1[^>]*>(.*?)</h1>"}.get(fmt)
    match = re.search(pattern, text, re.M | re.I | re.S) if pattern else None
    return re.sub(r"<[^>]+>|\s+", " ", match.group(1)).strip()[:500] if match else ""
