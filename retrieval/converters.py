"""PDF and Word files into the Markdown the chunker reads.

A PDF's text layer is read with pdfplumber (pdfminer.six underneath): it
gives each character's font size, so headings can be told from body text,
and it finds ruled tables. Pages are kept: ``Converted.page_starts`` holds
the offset in the text where each page begins, so every chunk of a PDF
knows its page ("hlm. 3"). Pages without a text layer (scans) are OCR'd
first (``retrieval.ocr``). A DOCX is read with python-docx: heading styles,
list paragraphs and tables become Markdown headings, items and tables. Word
has no fixed pages (they depend on rendering), so a DOCX has none.

Every failure is a ``ConversionError`` whose message says, in Indonesian,
what is wrong with the file and what to do.
"""

from __future__ import annotations

import bisect
import io
import itertools
import re
import statistics
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

BINARY_FORMATS = ("pdf", "docx")
MAX_FILE_BYTES = 25 * 1024 * 1024
_OLE_MAGIC = b"\xd0\xcf\x11\xe0"  # encrypted Office files and old .doc are OLE containers
_BULLET = re.compile(r"^\s*(?:[•▪●◦‣∙·\-–*]|\(?\d{1,2}[.)]|[a-z][.)])\s+")
_SYMBOL_BULLET = re.compile(r"^\s*[•▪●◦‣∙·\-–*]\s+")
_NUMBERED = re.compile(r"^\s*(\d{1,2}[.)])\s+")
# A list item's line in the Markdown written here: "- …" or "1. …".
_LIST_LINE = re.compile(r"^(?:- |\d{1,2}[.)] )")


class ConversionError(ValueError):
    """The file cannot be read as its format; the message is for the admin."""


@dataclass
class Converted:
    text: str  # Markdown
    page_starts: list[int] = field(default_factory=list)  # offset of page 1, 2, … in ``text``; empty: no pages
    ocr_pages: list[int] = field(default_factory=list)  # 1-based pages whose text OCR read from a scan
    # Converted with ``ocr=False`` and holding scanned pages: the file as it
    # came, for the worker to read (``retrieval/scans.py``); ``text`` is empty.
    scan: bytes | None = None


def convert(
    data: bytes, fmt: str, *, ocr: bool = True, progress: Callable[[int, int], None] | None = None
) -> Converted:
    """``data`` (a whole file) as Markdown, with its page offsets. A PDF's
    scanned pages are OCR'd here (``progress(done, total)`` hears each few
    pages), or with ``ocr=False`` left to the worker (``Converted.scan``)."""
    if len(data) > MAX_FILE_BYTES:
        raise ConversionError(f"file {len(data) / 1048576:.1f} MB; batasnya {MAX_FILE_BYTES // 1048576} MB")
    if not data:
        raise ConversionError("file kosong")
    if fmt == "pdf":
        return pdf_to_markdown(data, ocr=ocr, progress=progress)
    if fmt == "docx":
        return docx_to_markdown(data)
    raise ConversionError(f"format biner tidak dikenal: {fmt!r}")


def page_of(offset: int, page_starts: list[int]) -> int | None:
    """The 1-based page holding ``offset``, or None for a document without pages."""
    return bisect.bisect_right(page_starts, offset) or 1 if page_starts else None


# --- PDF ------------------------------------------------------------------------


# Readers (Acrobat, pdf.js, pdfminer) look for the header within the first
# 1,024 bytes: a program's banner before %PDF happens in the wild.
PDF_HEADER_WITHIN = 1024


def pdf_to_markdown(data: bytes, *, ocr: bool = True, progress: Callable[[int, int], None] | None = None) -> Converted:
    if b"%PDF-" not in data[:PDF_HEADER_WITHIN]:
        raise ConversionError("bukan file PDF (tidak ada %PDF- di 1.024 bita pertama)")
    pages, pictured = _pdf_pages(data)
    # A page with a picture and no text layer is a scan: OCR gives it one and
    # it is read again like the others (pages with text are left as they
    # were). A page with neither is blank and is not sent to OCR.
    scanned = [n for n, page in enumerate(pages, start=1) if n in pictured and not any(t for _, t, _ in page)]
    if scanned:
        from .ocr import OcrError, ocr_limit_check, ocr_pdf

        try:
            if not ocr:  # refused now if over the limit, else read in the worker
                ocr_limit_check(len(scanned))
                return Converted("", scan=data)
            for batch, recognised in ocr_pdf(data, scanned, progress=progress):
                read, _ = _pdf_pages(recognised, only=set(batch))
                for n in batch:
                    pages[n - 1] = read[n - 1]
        except OcrError as exc:
            raise ConversionError(str(exc)) from None
    if not any(text for page in pages for _, text, _ in page):
        raise ConversionError(
            f"PDF tanpa teks yang terbaca ({len(pages)} halaman): tidak ada lapisan teks"
            + (" dan OCR tidak menemukan teks di dalamnya" if scanned else " maupun gambar pindaian untuk OCR")
        )
    pages = running_lines_dropped(pages)
    sizes = _word_sizes(pages)
    body = statistics.median(sizes) if sizes else 0
    heading_sizes = sorted({round(s, 1) for s in sizes if s >= body * 1.2}, reverse=True)[:3]
    text, starts = "", []
    for page in pages:
        starts.append(len(text))
        blocks = list(_pdf_blocks(page, body, heading_sizes))
        text += _join(blocks) + ("\n\n" if blocks else "")
    return Converted(text.rstrip() + "\n", starts, scanned)


def _pdf_pages(data: bytes, only: set[int] | None = None) -> tuple[list[list[tuple[str, str, float]]], set[int]]:
    """Each page's lines, gaps and tables, and the 1-based pages holding a
    picture; a file pdfplumber cannot open is a ``ConversionError``. With
    ``only``, the other pages are left unread (empty): an OCR run's result
    is read for the pages that run recognised."""
    import pdfplumber
    from pdfminer.pdfdocument import PDFEncryptionError, PDFPasswordIncorrect
    from pdfminer.pdfparser import PDFSyntaxError
    from pdfplumber.utils.exceptions import PdfminerException

    from .pdf_upright import upright

    try:
        with pdfplumber.open(io.BytesIO(data)) as pdf:
            pages = [
                list(_page_lines(upright(page))) if only is None or n in only else []
                for n, page in enumerate(pdf.pages, start=1)
            ]
            return pages, {n for n, page in enumerate(pdf.pages, start=1) if page.images}
    except (PDFPasswordIncorrect, PDFEncryptionError):
        raise ConversionError(
            "PDF terenkripsi dengan kata sandi; simpan ulang tanpa sandi lalu masukkan lagi"
        ) from None
    except PdfminerException as exc:
        cause = exc.args[0] if exc.args else exc
        if isinstance(cause, (PDFPasswordIncorrect, PDFEncryptionError)):
            raise ConversionError(
                "PDF terenkripsi dengan kata sandi; simpan ulang tanpa sandi lalu masukkan lagi"
            ) from None
        raise ConversionError(f"PDF rusak atau tidak lengkap ({type(cause).__name__})") from None
    except (PDFSyntaxError, ValueError, KeyError, TypeError, AttributeError, AssertionError) as exc:
        raise ConversionError(f"PDF rusak atau tidak lengkap ({type(exc).__name__})") from None


def _join(blocks: list[str]) -> str:
    """Blocks apart by a blank line; the items of one list on lines of their own."""
    out = ""
    for n, block in enumerate(blocks):
        if n:
            out += "\n" if _LIST_LINE.match(block) and _LIST_LINE.match(blocks[n - 1]) else "\n\n"
        out += block
    return out


def _list_item(text: str) -> str:
    """A list line as Markdown: a symbol bullet becomes "- ", a number stays
    ("1. Pembukaan", a Markdown ordered item) and a letter is kept in the
    item's text ("- a) …"): the numbering is part of what the source says."""
    if _SYMBOL_BULLET.match(text):
        return "- " + _SYMBOL_BULLET.sub("", text, count=1)
    if numbered := _NUMBERED.match(text):
        return f"{numbered.group(1)} {text[numbered.end() :]}"
    return "- " + text.strip()


def _unbroken(text: str) -> str:
    """Lines joined into a paragraph with words broken at a line's end
    mended ("sinkroni- sasi" → "sinkronisasi"); a break between digits keeps
    its hyphen ("2023- 0379" → "2023-0379"), a number's parts being no word."""
    text = re.sub(r"(\d)- (\d)", r"\1-\2", text)
    return re.sub(r"([^\W\d_])- ([^\W\d_])", r"\1\2", text)


def _page_lines(page) -> Iterator[tuple[str, str, float]]:  # noqa: ANN001
    """("line", text, font size), ("gap", "", 0) between paragraphs and
    ("table", markdown, 0), in reading order."""
    found = page.find_tables()
    # A table that holds other tables is a frame around them (pdfplumber
    # finds both): keeping it too would give the page's text twice, once
    # squeezed into its cells. Its text outside the inner tables is read as lines.
    tables = [t for t in found if not any(o is not t and _holds_box(t.bbox, o.bbox) for o in found)]
    boxes = [t.bbox for t in tables]
    items: list[tuple[float, str, str, float]] = []
    for table in tables:
        markdown = _markdown_table(_ruled_cells(page, table))
        if markdown:
            items.append((table.bbox[1], "table", markdown, 0.0))
    lines = [
        line for line in page.extract_text_lines(return_chars=True) if not any(_inside(line, box) for box in boxes)
    ]
    previous = None
    for line in lines:
        chars = [c for c in line["chars"] if c["text"].strip()]
        if not chars:
            continue
        size = statistics.median(c["size"] for c in chars)
        if previous is not None and line["top"] - previous["bottom"] > 0.8 * size:
            items.append((line["top"] - 0.01, "gap", "", 0.0))
        items.append((line["top"], "line", line["text"].strip(), size))
        previous = line
    items.sort(key=lambda item: item[0])
    for _, kind, text, size in items:
        yield kind, text, size


def _word_sizes(pages: list[list[tuple[str, str, float]]]) -> list[float]:
    """Each word's font size, a line's size once per word: the body size is
    their median, so a page of short headings does not outweigh the text."""
    return [size for page in pages for kind, text, size in page if kind == "line" for _ in text.split()]


# Lines this close to a page's top or bottom (in lines, not points: pages
# differ in size) may be a running header or footer.
RUNNING_BAND = 2
_DIGITS = re.compile(r"\d+")


def running_lines_dropped(pages: list[list[tuple[str, str, float]]]) -> list[list[tuple[str, str, float]]]:
    """Pages without their running headers and footers after the first time
    each appears: a line among the first or last ``RUNNING_BAND`` lines of a
    page whose text, numbers aside ("Halaman 3 dari 12"), stands there on at
    least half the pages and on three or more (a court transcript's
    "Official - Subject to Final Review") and is no larger than body text.
    Kept where it first stands, it is in the document once and in no other
    chunk's text."""

    sizes = _word_sizes(pages)
    body = statistics.median(sizes) if sizes else 0

    def band(page: list[tuple[str, str, float]]) -> list[int]:
        # The page's first and last lines, those body-sized or smaller: a
        # chapter heading on top of every page ("Bab 3") is larger, and stays.
        lines = [n for n, (kind, _, _) in enumerate(page) if kind == "line"]
        edge = sorted(set(lines[:RUNNING_BAND] + lines[-RUNNING_BAND:]))
        return [n for n in edge if page[n][2] <= body * 1.05]

    def key(text: str) -> str:
        return _DIGITS.sub("#", " ".join(text.lower().split()))

    counts: dict[str, int] = {}
    for page in pages:
        for k in {key(page[n][1]) for n in band(page)}:
            counts[k] = counts.get(k, 0) + 1
    running = {k for k, c in counts.items() if c >= 3 and c * 2 >= len(pages)}
    if not running:
        return pages
    seen: set[str] = set()
    out = []
    for page in pages:
        dropped = set()
        for n in band(page):
            k = key(page[n][1])
            if k in running and k in seen:
                dropped.add(n)
            elif k in running:
                seen.add(k)
        out.append([item for n, item in enumerate(page) if n not in dropped])
    return out


def _holds_box(outer: tuple[float, ...], inner: tuple[float, ...]) -> bool:
    return (
        outer[0] <= inner[0] + 1 and outer[1] <= inner[1] + 1 and outer[2] >= inner[2] - 1 and outer[3] >= inner[3] - 1
    )


def _inside(line: dict, box: tuple[float, float, float, float]) -> bool:
    x0, top, x1, bottom = box
    return line["x0"] >= x0 - 1 and line["x1"] <= x1 + 1 and line["top"] >= top - 1 and line["bottom"] <= bottom + 1


def _pdf_blocks(lines: list[tuple[str, str, float]], body: float, heading_sizes: list[float]) -> Iterator[str]:
    """Paragraphs (lines joined, hyphenation undone), headings by font size,
    list items by their bullet, tables as they are."""
    paragraph: list[str] = []

    def flush() -> Iterator[str]:
        if paragraph:
            yield _unbroken(" ".join(paragraph))
            paragraph.clear()

    for kind, text, size in lines:
        if kind == "gap":
            yield from flush()
        elif kind == "table":
            yield from flush()
            yield text
        elif round(size, 1) in heading_sizes and len(text) <= 200:
            yield from flush()
            yield "#" * (heading_sizes.index(round(size, 1)) + 1) + " " + text
        elif _BULLET.match(text):
            yield from flush()
            yield _list_item(text)
        else:
            paragraph.append(text)
    yield from flush()


def _ruled_cells(page, table) -> list[list[str | None]]:  # noqa: ANN001 - pdfplumber's Page, Table
    """The table's cell texts, a cell that spans columns cut where the
    ruling cuts it: a 25-column statistics table's header row carries short
    vertical rules between "Permit", "Handgun", "Long Gun" … that end before
    the row's top border, so pdfplumber sees one cell over six columns. Cut
    at the rules that cross its words, one text per column — only when the
    rules make exactly as many parts as the columns it spans (a title over
    the whole table has no rules in it and stays one cell)."""
    rows = table.extract()
    vertical = [e for e in page.edges if e["orientation"] == "v"]
    for i, row in enumerate(table.rows):
        for j, cell in enumerate(row.cells):
            spanned = next((k for k in range(j + 1, len(row.cells)) if row.cells[k] is not None), len(row.cells)) - j
            if cell is None or spanned < 2:
                continue
            try:
                words = page.within_bbox(cell, strict=False).extract_words()
            except ValueError:  # a cell of no area, or off the page: nothing to cut
                continue
            inner = [e for e in vertical if cell[0] + 1 < e["x0"] < cell[2] - 1]
            crossed = [w for w in words if any(e["top"] <= w["bottom"] and e["bottom"] >= w["top"] for e in inner)]
            crossing = sorted(
                e["x0"] for e in inner if any(e["top"] <= w["bottom"] and e["bottom"] >= w["top"] for w in crossed)
            )
            # A rule drawn as a thin rectangle gives two or three edges a
            # fraction of a point apart: one cut.
            cuts = [x for n, x in enumerate(crossing) if n == 0 or x - crossing[n - 1] > 2]
            bounds = [cell[0], *cuts, cell[2]]
            if len(bounds) - 1 != spanned:
                continue
            # Words no rule crosses label the group ("Pre-Pawn" over Handgun,
            # Long Gun, *Other): each column is read under it.
            label = " ".join(w["text"] for w in words if w not in crossed)
            parts = [
                " ".join([label] * bool(label) + [w["text"] for w in crossed if low <= (w["x0"] + w["x1"]) / 2 < high])
                for low, high in itertools.pairwise(bounds)
            ]
            rows[i][j : j + spanned] = parts
    return rows


def _markdown_table(rows: list[list[str | None]]) -> str:
    rows = [[_cell(c) for c in row] for row in rows if any(c and c.strip() for c in row)]
    if not rows:
        return ""
    width = max(len(r) for r in rows)
    rows = [r + [""] * (width - len(r)) for r in rows]
    lines = ["| " + " | ".join(rows[0]) + " |", "|" + "---|" * width]
    lines += ["| " + " | ".join(r) + " |" for r in rows[1:]]
    return "\n".join(lines)


def _cell(value: str | None) -> str:
    return re.sub(r"\s+", " ", value or "").replace("|", "\\|").strip()


# --- DOCX -----------------------------------------------------------------------


def docx_to_markdown(data: bytes) -> Converted:
    import docx
    from docx.opc.exceptions import PackageNotFoundError
    from docx.table import Table
    from docx.text.paragraph import Paragraph

    if data[:4] == _OLE_MAGIC:
        raise ConversionError(
            "file ini terenkripsi dengan kata sandi atau berformat .doc lama, bukan DOCX; "
            "simpan ulang sebagai .docx tanpa sandi"
        )
    try:
        document = docx.Document(io.BytesIO(data))
    except (PackageNotFoundError, zipfile.BadZipFile, KeyError, ValueError) as exc:
        raise ConversionError(f"DOCX rusak atau bukan DOCX ({type(exc).__name__})") from None
    blocks = []
    for element in document.element.body.iterchildren():
        tag = element.tag.rsplit("}", 1)[-1]
        if tag == "p":
            block = _docx_paragraph(Paragraph(element, document))
        elif tag == "tbl":
            table = Table(element, document)
            block = _markdown_table([[cell.text for cell in row.cells] for row in table.rows])
        else:
            continue
        if block:
            blocks.append(block)
    if not blocks:
        raise ConversionError("DOCX tidak berisi teks")
    return Converted(_join(blocks) + "\n")


def _docx_paragraph(paragraph) -> str:  # noqa: ANN001
    text = re.sub(r"\s+", " ", paragraph.text).strip()
    if not text:
        return ""
    style = (paragraph.style.name if paragraph.style is not None else "") or ""
    level = re.fullmatch(r"(?:Heading|Judul)\s*(\d)", style)
    if style == "Title":
        return "# " + text
    if level:
        return "#" * min(int(level.group(1)) + 1, 6) + " " + text  # Title is "#"
    numbered = paragraph._p.pPr is not None and paragraph._p.pPr.numPr is not None
    if numbered or style.startswith("List"):
        return "- " + text
    return text
