"""Scanned PDFs, read with OCR by the worker that indexes their revision.

OCR takes seconds a page, so a scan uploaded in the admin or given to
``ingest`` without ``--sync`` is not read where it arrives: the page limit
is checked there (a refusal is heard at once), the file is kept as it came
(``RevisionScan``) and its revision waits, empty, as ``pending``. The worker
reads it before chunking (``revision_index``): it OCRs the scanned pages a
few at a time, says how far it got on the revision (``Revision.progress``,
shown in the admin), then fills the revision's text, pages and OCR'd pages
and lets the scan go. A failure (time limit, OCR missing on the worker,
no text found) fails the revision with the reason and keeps the scan, so
re-indexing it tries again.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable

from django.db import transaction
from django.utils import timezone

from .converters import ConversionError, convert
from .models import Revision, RevisionScan


def scan_hash(data: bytes) -> str:
    """The content hash of a revision whose text is still a scan: the file's
    (the same file uploaded twice is unchanged, before and after OCR)."""
    return hashlib.sha256(b"scan\x1f" + data).hexdigest()


def scan_read(revision: Revision, *, progress: Callable[[str], None] | None = None) -> str | None:
    """Read ``revision``'s kept scan into its text; the reason when it
    cannot be read (the scan then stays), else None. How far it got goes to
    ``Revision.progress`` (outside any transaction, so others see it) and
    to ``progress``."""
    scan = RevisionScan.objects.get(revision_id=revision.pk)

    def say(message: str) -> None:
        Revision.objects.filter(pk=revision.pk).update(progress=message, updated_at=timezone.now())
        if progress:
            progress(message)

    say("OCR: membaca pindaian …")  # at once: the admin sees the reading has started
    try:
        converted = convert(
            bytes(scan.data), revision.format, progress=lambda done, total: say(f"OCR: {done} dari {total} halaman")
        )
    except ConversionError as exc:
        Revision.objects.filter(pk=revision.pk).update(progress="")
        return str(exc)
    with transaction.atomic():
        revision.content, revision.page_starts = converted.text, converted.page_starts
        revision.ocr_pages, revision.progress = converted.ocr_pages, ""
        revision.save(update_fields=["content", "page_starts", "ocr_pages", "progress", "updated_at"])
        scan.delete()
    return None
