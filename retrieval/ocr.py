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
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path

from django.conf import settings


class OcrError(ValueError):
    """OCR could not give the pages a text layer; the message is for the admin."""


def ocr_available() -> bool:
    return shutil.which("ocrmypdf") is not None


def ocr_pdf(data: bytes, pages: list[int]) -> bytes:
    """``data`` with a text layer on ``pages`` (1-based), the other pages as they were."""
    limit, timeout = settings.NALARKU_OCR_MAX_PAGES, settings.NALARKU_OCR_TIMEOUT_SECONDS
    if len(pages) > limit:
        raise OcrError(
            f"PDF hasil pindai: {len(pages)} halaman tanpa teks, batas OCR {limit} halaman "
            "(NALARKU_OCR_MAX_PAGES); pecah berkasnya atau naikkan batasnya"
        )
    if not ocr_available():
        raise OcrError(
            f"PDF tanpa lapisan teks ({len(pages)} halaman, hasil pindai?) dan OCR belum terpasang di server ini "
            "(ocrmypdf, tesseract-ocr-ind): jalankan scripts/ensure-ocr.sh atau masukkan PDF yang sudah di-OCR"
        )
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
            done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, check=False)
        except subprocess.TimeoutExpired:
            raise OcrError(
                f"OCR melewati batas waktu {timeout} detik (NALARKU_OCR_TIMEOUT_SECONDS) untuk "
                f"{len(pages)} halaman; pecah berkasnya atau naikkan batasnya"
            ) from None
        if done.returncode != 0 or not target.exists():
            last = (done.stderr.strip().splitlines() or ["tanpa pesan"])[-1][:300]
            raise OcrError(f"OCR gagal (ocrmypdf keluar dengan kode {done.returncode}: {last})")
        return target.read_bytes()
