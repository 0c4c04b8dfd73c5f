"""Text for scanned PDF pages, through OCRmyPDF and Tesseract.

OCRmyPDF (Debian's ``ocrmypdf``, installed by ``scripts/ensure-ocr.sh``) is
the well-kept tool for this: it rasterises only the pages that have no text
layer (``--skip-text``), turns them upright (``--rotate-pages``), runs
Tesseract in Indonesian and English and writes the words back as an
invisible text layer, so the converter reads an OCR'd page exactly as it
reads a born-digital one, positions and pages included. It runs as a
subprocess so the time limit can stop it for certain.

Limits (settings): ``NALARKU_OCR_MAX_PAGES`` pages to OCR per document and
``NALARKU_OCR_TIMEOUT_SECONDS`` per document. Past either, the file is
refused with the reason; nothing is cut silently.

Where it runs: in the worker. A scan uploaded in the admin or given to
``ingest`` without ``--sync`` is kept as it came (``RevisionScan``) and read
when the worker indexes its revision (``retrieval/scans.py``), which shows
how far it got on the revision (``Revision.progress``).
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from django.conf import settings


class OcrError(ValueError):
    """OCR could not give the pages a text layer; the message is for the admin."""


def ocr_available() -> bool:
    return shutil.which("ocrmypdf") is not None


# Pages per ocrmypdf run: progress is told after each run, and each run's
# start-up (about a second) is shared by a few pages.
OCR_BATCH = 4


def ocr_limit_check(pages: int) -> None:
    """Refuse a document with more scanned pages than ``NALARKU_OCR_MAX_PAGES``
    before anything waits for OCR: the one who submitted it hears it at once."""
    limit = settings.NALARKU_OCR_MAX_PAGES
    if pages > limit:
        raise OcrError(
            f"PDF hasil pindai: {pages} halaman tanpa teks, batas OCR {limit} halaman "
            "(NALARKU_OCR_MAX_PAGES); pecah berkasnya atau naikkan batasnya"
        )


def ocr_pdf(
    data: bytes, pages: list[int], *, progress: Callable[[int, int], None] | None = None
) -> Iterator[tuple[list[int], bytes]]:
    """``data`` with a text layer on ``pages`` (1-based), a few pages per run:
    yields each run's pages and the whole PDF as that run left it (its other
    pages as they were). ``progress(done, total)`` hears each run's end. The
    time limit holds for the whole document, not per run."""
    ocr_limit_check(len(pages))
    if not ocr_available():
        raise OcrError(
            f"PDF tanpa lapisan teks ({len(pages)} halaman, hasil pindai?) dan OCR belum terpasang di server ini "
            "(ocrmypdf, tesseract-ocr-ind): jalankan scripts/ensure-ocr.sh atau masukkan PDF yang sudah di-OCR"
        )
    timeout = settings.NALARKU_OCR_TIMEOUT_SECONDS
    deadline = time.monotonic() + timeout
    for first in range(0, len(pages), OCR_BATCH):
        batch = pages[first : first + OCR_BATCH]
        left = deadline - time.monotonic()
        if left <= 0:
            raise _too_long(timeout, len(pages))
        yield batch, _ocr_run(data, batch, left, timeout, len(pages))
        if progress:
            progress(first + len(batch), len(pages))


def _too_long(timeout: float, pages: int) -> OcrError:
    return OcrError(
        f"OCR melewati batas waktu {timeout} detik (NALARKU_OCR_TIMEOUT_SECONDS) untuk "
        f"{pages} halaman; pecah berkasnya atau naikkan batasnya"
    )


def _ocr_run(data: bytes, pages: list[int], left: float, timeout: float, total: int) -> bytes:
    with tempfile.TemporaryDirectory(prefix="nalarku-ocr-") as folder:
        source, target = Path(folder) / "in.pdf", Path(folder) / "out.pdf"
        source.write_bytes(data)
        command = [
            "ocrmypdf",
            "--skip-text",
            "--rotate-pages",
            "--language",
            "ind+eng",
            "--pages",
            ",".join(str(p) for p in pages),
            "--jobs",
            "1",
            "--output-type",
            "pdf",
            "--optimize",
            "0",
            "--quiet",
            str(source),
            str(target),
        ]
        try:
            done = subprocess.run(command, capture_output=True, text=True, timeout=left, check=False)
        except subprocess.TimeoutExpired:
            raise _too_long(timeout, total) from None
        if done.returncode != 0 or not target.exists():
            last = (done.stderr.strip().splitlines() or ["tanpa pesan"])[-1][:300]
            raise OcrError(f"OCR gagal (ocrmypdf keluar dengan kode {done.returncode}: {last})")
        return target.read_bytes()
