"""Pages of a PDF's chunks and of the spans quoted from them.

A revision's ``page_starts`` holds the offset in its content where each page
begins; a chunk's ``[char_start, char_end)`` is its own span in that content.
``Chunk.page``/``page_end`` are the first and last page that span touches,
so a chunk that runs over a page break reads "hlm. 1–2". A claim quotes a
unit of the chunk's *text* (``[start, end)`` in ``Chunk.text``), which may
begin with context repeated from before ``char_start`` (a table header, a
list's lead-in; see ``retrieval.chunking``): ``text_pages`` maps such a span
back to the content and says which pages it lies on.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .converters import page_of
from .models import Chunk

if TYPE_CHECKING:
    from .hits import Hit

# Between the first and the last page of a range, as Indonesian typesetting writes it.
EN_DASH = "\u2013"

Pages = tuple[int, int]


def last_page_of(start: int, end: int, page_starts: Sequence[int]) -> int | None:
    """The page of the last character of ``[start, end)`` (of ``start`` when
    the span is empty); None for a document without pages."""
    return page_of(max(end - 1, start), list(page_starts))


def span_pages(start: int, end: int, page_starts: Sequence[int]) -> Pages | None:
    """First and last page of the content span ``[start, end)``; None for a
    document without pages."""
    first, last = page_of(start, list(page_starts)), last_page_of(start, end, page_starts)
    if first is None or last is None:
        return None
    return first, max(first, last)


def text_pages(
    start: int, end: int, *, text_length: int, char_start: int, char_end: int, page_starts: Sequence[int]
) -> Pages | None:
    """Pages of ``[start, end)`` in a chunk's text. The chunk's own span is
    the tail of its text (verbatim, as PDF chunks are Markdown), so text
    offset ``o`` is content offset ``char_start + o - own``; offsets inside
    the repeated context before it count as the chunk's first own character,
    whose page is the chunk's start page."""
    own = max(text_length - (char_end - char_start), 0)

    def content(offset: int) -> int:
        return char_start + min(max(offset - own, 0), char_end - char_start)

    return span_pages(content(start), max(content(end), content(start)), page_starts)


def pages_read_by_ocr(start: int, end: int, page_starts: Sequence[int], ocr_pages: Iterable[int]) -> bool:
    """Whether any page that the content span ``[start, end)`` touches had
    its text read by OCR from a scan (the evidence says "hasil OCR")."""
    pages = span_pages(start, end, page_starts)
    return pages is not None and any(pages[0] <= p <= pages[1] for p in ocr_pages)


def page_label(page: int | None, page_end: int | None = None) -> str:
    """ "3" for one page, "1–2" for a range, "" for a document without pages."""
    if page is None:
        return ""
    if page_end is None or page_end <= page:
        return str(page)
    return f"{page}{EN_DASH}{page_end}"


@dataclass(frozen=True)
class Located:
    """Where a chunk's own span lies in its revision's content."""

    char_start: int
    char_end: int
    page_starts: tuple[int, ...]


def chunks_located(hits: Iterable[Hit]) -> dict[int, Located]:
    """The spans and page starts of the hits' chunks that run over a page
    break, in one query (none when no chunk does): what ``text_pages``
    needs that a search hit does not carry. A chunk on one page needs
    nothing more: every span in it is on that page."""
    ids = sorted({h.chunk_id for h in hits if h.page is not None and (h.page_end or h.page) > h.page})
    if not ids:
        return {}
    rows = Chunk.objects.filter(pk__in=ids).values_list("pk", "char_start", "char_end", "revision__page_starts")
    return {pk: Located(start, end, tuple(starts or ())) for pk, start, end, starts in rows}


def span_labels(
    hits: Iterable[Hit], spans: Mapping[str, Sequence[int]], located: Mapping[int, Located]
) -> dict[str, str]:
    """For each hit with pages, by evidence id, the page label of the span a
    claim quotes from it (``spans``, ``[start, end)`` in its text), or of the
    whole chunk when no span is known or its chunk was not located."""
    labels = {}
    for hit in hits:
        if hit.page is None:
            continue
        pages: Pages = (hit.page, hit.page_end or hit.page)
        span, where = spans.get(hit.evidence_id), located.get(hit.chunk_id)
        if span is not None and len(span) == 2 and where is not None:
            pages = (
                text_pages(
                    span[0],
                    span[1],
                    text_length=len(hit.text),
                    char_start=where.char_start,
                    char_end=where.char_end,
                    page_starts=where.page_starts,
                )
                or pages
            )
        labels[hit.evidence_id] = page_label(*pages)
    return labels
