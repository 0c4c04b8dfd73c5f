"""Evidence as its source reads: a chunk's text rendered to sanitised HTML,
with the cited unit marked.

A chunk's text is Markdown — a verbatim slice of a Markdown document, or the
chunker's rendering of HTML with ``-``/``1.`` list marks and ``| a | b |``
table rows — so one renderer serves every source format. markdown-it-py
(the chunker's own parser, with GFM tables) renders it with raw HTML
disabled, so markup written in a document is shown as text; nh3 (Ammonia)
then keeps only an allowlist of tags and no attributes but the marker's
class: document text can never bring a script, a style, an event handler or
a link of its own.

The cited unit is marked by its span ``[start, end)`` in the chunk. Two
private-use characters are put at the span's ends before rendering (a unit's
span never starts before a list mark or a table pipe, so the structure is
unchanged); after rendering, every piece of text between them is wrapped in
its own ``<mark class="cited">``, so the marking follows the rendered
elements (a table row's cells, an item's bold words) and never breaks their
nesting.

HTML sources reach here as the same Markdown tables as Markdown sources
(the chunker writes the header row and its ``|---|`` rule), so every table
renders as a ``<table>`` with ``<th>`` header cells. Each table is put in a
``<div class="table-scroll">`` that scrolls sideways when the table is
wider than the page (a phone), so its cells need not break their words;
the wrapper is focusable, so a keyboard can scroll it too.
"""

from __future__ import annotations

import re

import nh3
from bs4 import BeautifulSoup, NavigableString
from django.utils.safestring import SafeString, mark_safe
from markdown_it import MarkdownIt

START, END = "\ue000", "\ue001"
TAGS = {
    "p",
    "br",
    "ul",
    "ol",
    "li",
    "table",
    "thead",
    "tbody",
    "tr",
    "th",
    "td",
    "code",
    "pre",
    "strong",
    "em",
    "blockquote",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "hr",
    "del",
    "mark",
}

TABLE_OPEN = '<div class="table-scroll" tabindex="0"><table>'
TABLE_CLOSE = "</table></div>"

_markdown = MarkdownIt("commonmark", {"html": False, "linkify": False}).enable("table").enable("strikethrough")


def chunk_html(text: str, span: tuple[int, int] | list[int] | None = None) -> SafeString:
    """The chunk as sanitised HTML; ``span`` (start, end) marks the cited unit."""
    text = (text or "").replace(START, "").replace(END, "")
    marked = False
    if span is not None:
        start, end = int(span[0]), int(span[1])
        if 0 <= start < end <= len(text):
            text = f"{text[:start]}{START}{text[start:end]}{END}{text[end:]}"
            marked = True
    rendered = _markdown.render(text)
    if marked:
        rendered = _mark(rendered)
    clean = nh3.clean(rendered, tags=TAGS, attributes={"mark": {"class"}}, link_rel=None, strip_comments=True)
    # After sanitising, so no document text can bring attributes: nh3 leaves
    # every table tag bare, and the wrapper is this module's own markup.
    clean = clean.replace("<table>", TABLE_OPEN).replace("</table>", TABLE_CLOSE)
    return mark_safe(clean)  # noqa: S308 — sanitised by nh3 with the allowlist above


def snippet_html(text: str, limit: int = 600, query: str = "") -> SafeString:
    """The start of a chunk, rendered: whole lines up to ``limit`` characters
    (a table keeps its header and first rows), with "…" when cut. Where the
    first word of ``query`` the chunk holds lies past that cut, the snippet
    starts at the line holding it instead (a table row with its table's
    header), so a hit is never shown without the word it was found for."""
    text = text or ""
    if len(text) <= limit:
        return chunk_html(text)
    cut = text.rfind("\n", 0, limit)
    end = cut if cut > limit // 3 else limit
    found = _first_query_word(text, query)
    if found is None or found < end:
        return mark_safe(chunk_html(text[:end].rstrip()) + _ELLIPSIS)  # noqa: S308 — chunk_html is sanitised
    start = text.rfind("\n", 0, found) + 1
    header = _table_header(text, start)
    line_end = text.find("\n", found) if "\n" in text[found:] else len(text)
    stop = text.rfind("\n", start, start + limit)
    body = text[start : max(stop, line_end)]
    more = _ELLIPSIS if start + len(body) < len(text.rstrip()) else ""
    return mark_safe(_ELLIPSIS + chunk_html(header + body.rstrip()) + more)  # noqa: S308 — chunk_html is sanitised


_ELLIPSIS = '<p class="muted">…</p>'
_QUERY_WORD = re.compile(r"\w{3,}")


def _first_query_word(text: str, query: str) -> int | None:
    """Where the first of ``query``'s words (3+ letters, whole words, any
    case) occurs in ``text``."""
    words = {w.casefold() for w in _QUERY_WORD.findall(query)}
    positions = [m.start() for m in _QUERY_WORD.finditer(text) if m.group().casefold() in words]
    return min(positions) if positions else None


def _table_header(text: str, start: int) -> str:
    """The header and delimiter lines of the pipe table whose row starts at
    ``start``, when it does: a row without them renders as plain text."""
    if not text[start:].lstrip().startswith("|"):
        return ""
    lines = text[:start].splitlines(keepends=True)
    at = len(lines)
    while at and lines[at - 1].lstrip().startswith("|"):
        at -= 1
    table = lines[at:]
    return "".join(table[:2]) if len(table) >= 2 and set(table[1].strip()) <= set("|-: ") else ""


def _mark(rendered: str) -> str:
    """Wrap every text piece between the markers in ``<mark class="cited">``."""
    soup = BeautifulSoup(rendered, "html.parser")
    inside = False
    for node in list(soup.find_all(string=True)):
        value = str(node)
        if not inside and START not in value:
            continue
        pieces: list[tuple[str, bool]] = []  # (text, marked)
        rest = value
        while rest:
            if inside:
                head, found, rest = rest.partition(END)
                pieces.append((head, True))
                inside = not found
            else:
                head, found, rest = rest.partition(START)
                pieces.append((head, False))
                inside = bool(found)
        replacements = []
        for piece, is_marked in pieces:
            if not piece:
                continue
            if is_marked and piece.strip():
                tag = soup.new_tag("mark", attrs={"class": "cited"})
                tag.string = piece
                replacements.append(tag)
            else:
                replacements.append(NavigableString(piece))
        if replacements:
            node.replace_with(*replacements)
        else:
            node.extract()
    return str(soup).replace(START, "").replace(END, "")
