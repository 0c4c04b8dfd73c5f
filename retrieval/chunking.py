"""Structure-aware chunking: by meaning first, then by size.

A document is parsed into *blocks* (heading, paragraph, list, table, code).
Each block is made of *parts* — the sentences of a paragraph, the items of a
list, the rows of a table, the lines of code — and every part knows its exact
span ``[start, end)`` in the source. Blocks are grouped into *units* that must
stay together (a list or table with its lead-in paragraph), units are packed
into chunks within one section (chunks never cross a heading), and a unit
larger than the limit is split between its parts: a table by rows with its
header repeated, a list by items with its lead-in sentence repeated, code by
lines, prose by sentences (and a sentence longer than the limit by words).
Sizes are counted with the embedding model's own tokenizer.

How a chunk maps back to its source (tested in
``tests/retrieval/test_chunking_properties.py``):

* ``[char_start, char_end)`` is the chunk's *own* span: it begins at the first
  character of its first part and ends after the last character of its last
  part. Own spans of a document's chunks are ordered and never overlap, and
  every word of the visible text lies in exactly one of them — except heading
  text, which is carried as the breadcrumb (``heading_path``).
* ``repeated`` lists the spans of the context repeated in front of a piece of
  a split unit (the lead-in sentence, the table header rows); each lies
  before ``char_start``. Only the first chunk of a unit-piece can have it.
* Markdown and plain text are verbatim:
  ``text == "\\n".join(source[a:b] for a, b in repeated) + "\\n" + source[char_start:char_end]``
  (without the repeated part and its newline when ``repeated`` is empty).
* HTML chunks hold the *extracted* text of those spans: the words of a
  chunk's text, leaving out the markers the chunker adds (``-``, ``1.`` for
  list items, ``|`` between table cells, the ``|---|---|`` rule under a
  table's header row, and the ``\\`` that escapes a ``|`` inside a cell),
  are the words of the visible
  text nodes inside its repeated spans followed by those inside
  ``[char_start, char_end)``. Visible means: not inside a comment, a hidden
  element (``_hidden``) or an element that is not content (``_HTML_SKIP``).
* ``token_count`` exceeds ``max_tokens`` only when the chunk holds a single
  indivisible part (``parts == 1``): one word, one code line, one table row
  or one list item that is larger than the limit by itself — or a table's
  header with its first row (a list's lead-in with its first item), which
  count as one: a header alone would be a chunk that says nothing.
"""

from __future__ import annotations

import bisect
import dataclasses
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field

from bs4 import BeautifulSoup, NavigableString, Tag
from bs4.builder._htmlparser import BeautifulSoupHTMLParser, HTMLParserTreeBuilder
from markdown_it import MarkdownIt

# Enters the embedding cache key: bump it whenever chunk text can change.
# v3: exact spans; Markdown/text chunks are verbatim source slices; a split
# list keeps its whole lead-in paragraph; HTML inline runs form one paragraph.
# v4: an HTML table is a Markdown table (header row, ``|---|`` rule, every
# column, ``\|`` in cells), so it renders as one; Markdown heading titles
# (breadcrumbs) are their text without inline markup (no `backticks`).
# v5: a heading with no text under it that leaves the breadcrumb is a unit of
# the next chunk's text (or of a last chunk), never lost.
# v6: a split table's header (a list's lead-in) is never a chunk by itself:
# its first row (item) joins it.
CHUNKER_VERSION = "structure-v6"

TokenCounter = Callable[[str], int]

BREADCRUMB_SEPARATOR = " > "


@dataclass(frozen=True)
class Piece:
    """A run of a block's own text and its exact span ``[start, end)``."""

    text: str
    start: int
    end: int
    sep: str = "\n"  # joins it to the piece before it in extracted (HTML) text
    words: tuple[Piece, ...] = ()  # a sentence's words (HTML only: they cannot be re-read)
    divisible: bool = False  # a sentence: may be cut between words


@dataclass(frozen=True)
class Block:
    kind: str  # heading | paragraph | list | table | code
    text: str
    start: int
    end: int
    level: int = 0  # heading level
    parts: tuple[Piece, ...] = ()  # sentences, list items, table rows (header first) or code lines
    header: int = 0  # how many leading parts are the table header


@dataclass(frozen=True)
class ChunkDraft:
    """A chunk before it is stored: position is 1-based within the revision."""

    position: int
    kind: str
    heading_path: tuple[str, ...]
    text: str
    token_count: int
    char_start: int
    char_end: int
    repeated: tuple[tuple[int, int], ...] = ()  # spans of a repeated lead-in / header
    parts: int = 1  # indivisible parts (sentences, items, rows, lines, words) it holds

    @property
    def breadcrumb(self) -> str:
        return BREADCRUMB_SEPARATOR.join(self.heading_path)


@dataclass
class _Unit:
    kind: str
    parts: list[Piece]
    context: tuple[Piece, ...] = ()  # repeated in front of later pieces when split
    repeat: tuple[Piece, ...] = field(default=())  # what this piece repeats
    # Leading parts bound to the part after them: a table's header (or a
    # list's lead-in) with no room for its first row never stands alone.
    bound: int = 0


class ChunkingError(ValueError):
    """The content cannot be chunked (e.g. it holds no text at all)."""


# --- shared helpers ---------------------------------------------------------------

_WORD = re.compile(r"\S+")
_SENTENCE_ENDS = (".", "!", "?", "…")
# The line breaks markdown-it normalises (CRLF, CR, LF); plain text uses the same.
_LINE_BREAK = re.compile(r"\r\n|\r|\n")


def _verbatim_words(source: str, start: int, end: int) -> list[Piece]:
    return [Piece(m.group(), m.start(), m.end(), sep=" ") for m in _WORD.finditer(source, start, end)]


def _sentences(words: Sequence[Piece], source: str | None) -> tuple[Piece, ...]:
    """Group words into sentences (a sentence ends with a word ending in
    ``.!?…``). ``source`` given: sentence text is the verbatim slice."""
    out: list[Piece] = []
    run: list[Piece] = []
    for n, word in enumerate(words):
        run.append(word)
        if word.text.endswith(_SENTENCE_ENDS) or n == len(words) - 1:
            start, end = run[0].start, run[-1].end
            text = source[start:end] if source is not None else " ".join(w.text for w in run)
            out.append(
                Piece(text, start, end, sep=" ", divisible=len(run) > 1, words=() if source is not None else tuple(run))
            )
            run = []
    return tuple(out)


def _lines(source: str, start: int, end: int) -> list[Piece]:
    """Non-blank lines of ``source[start:end]``, each without its surrounding
    whitespace, as verbatim pieces."""
    out: list[Piece] = []
    cursor = start
    for match in [*_LINE_BREAK.finditer(source, start, end), None]:
        stop = match.start() if match else end
        words = _WORD.search(source, cursor, stop)
        if words:
            text = source[words.start() : stop].rstrip()
            out.append(Piece(text, words.start(), words.start() + len(text)))
        cursor = match.end() if match else end
    return out


def _block(kind: str, parts: Sequence[Piece], text: str, **extra: int) -> Block:
    return Block(kind, text, parts[0].start, parts[-1].end, parts=tuple(parts), **extra)


# --- Markdown ---------------------------------------------------------------------

_md = MarkdownIt("commonmark").enable("table")


def _line_offsets(source: str) -> list[int]:
    """Start offset of each line as markdown-it numbers them, plus the end."""
    return [0, *(m.end() for m in _LINE_BREAK.finditer(source)), len(source)]


def _span(source: str, offsets: list[int], first_line: int, last_line: int) -> tuple[int, int]:
    """The span of lines ``[first_line, last_line)`` without surrounding whitespace."""
    start = offsets[min(first_line, len(offsets) - 1)]
    end = offsets[min(last_line, len(offsets) - 1)]
    text = source[start:end]
    stripped = text.strip()
    if not stripped:
        return start, start
    lead = len(text) - len(text.lstrip())
    return start + lead, start + lead + len(stripped)


def markdown_blocks(source: str) -> list[Block]:
    offsets = _line_offsets(source)
    tokens = _md.parse(source)
    blocks: list[Block] = []
    for i, token in enumerate(tokens):
        if token.level != 0 or token.map is None or token.nesting == -1 or token.type == "hr":
            continue
        start, end = _span(source, offsets, *token.map)
        if start == end:
            continue
        text = source[start:end]
        if token.type == "heading_open":
            title = _inline_text(tokens[i + 1])
            blocks.append(Block("heading", title, start, end, level=int(token.tag[1])))
        elif token.type in ("bullet_list_open", "ordered_list_open"):
            items = _items_until_close(tokens, i, source, offsets)
            blocks.append(Block("list", text, start, end, parts=tuple(items)))
        elif token.type == "table_open":
            blocks.append(Block("table", text, start, end, parts=tuple(_lines(source, start, end)), header=2))
        elif token.type in ("fence", "code_block"):
            blocks.append(Block("code", text, start, end, parts=tuple(_lines(source, start, end))))
        else:  # paragraph, blockquote, html_block
            words = _verbatim_words(source, start, end)
            blocks.append(Block("paragraph", text, start, end, parts=_sentences(words, source)))
    return blocks


def _inline_text(inline: object) -> str:
    """What a reader sees of an inline token: its text and code spans without
    the markup (``Perintah `lintas sync` `` reads "Perintah lintas sync")."""
    pieces = []
    for child in getattr(inline, "children", None) or ():
        if child.type in ("text", "code_inline"):
            pieces.append(child.content)
        elif child.type in ("softbreak", "hardbreak"):
            pieces.append(" ")
    text = " ".join("".join(pieces).split())
    return text or getattr(inline, "content", "").strip()


def _items_until_close(tokens: list, open_index: int, source: str, offsets: list[int]) -> list[Piece]:
    """Each top-level item of the list opened at ``open_index``, verbatim."""
    depth = 0
    items: list[Piece] = []
    for token in tokens[open_index:]:
        depth += token.nesting
        if token.type == "list_item_open" and depth == 2 and token.map:
            start, end = _span(source, offsets, *token.map)
            if start < end:
                items.append(Piece(source[start:end], start, end))
        if depth == 0:
            break
    return items


# --- HTML -------------------------------------------------------------------------

_HTML_SKIP = {
    "script",
    "style",
    "template",
    "noscript",
    "head",
    "title",
    "meta",
    "link",
    "svg",
    "iframe",
    "object",
    "embed",
    "button",
    "form",
    "input",
    "select",
    "textarea",
}
_HTML_HEADINGS = {f"h{n}": n for n in range(1, 7)}
_HTML_LEAVES = {"p", "blockquote", "dl", "figure", "address", "details", "center"}
_HTML_LISTS = {"ul", "ol"}
_HTML_CONTAINERS = {
    "div",
    "section",
    "article",
    "main",
    "header",
    "footer",
    "nav",
    "aside",
    "body",
    "html",
    "li",
    "dd",
    "dt",
    "caption",
    "tr",
    "td",
    "th",
    "thead",
    "tbody",
    "tfoot",
    "hgroup",
    "fieldset",
    "summary",
}
_HTML_BLOCKS = {*_HTML_HEADINGS, *_HTML_LEAVES, *_HTML_LISTS, "table", "pre", *_HTML_CONTAINERS}

_HIDDEN_STYLE = re.compile(r"display\s*:\s*none|visibility\s*:\s*hidden", re.I)


def _hidden(tag: Tag) -> bool:
    """Content a reader never sees (``hidden``, ``aria-hidden``, inline
    ``display:none``) is not evidence; it is where planted instructions hide."""
    return (
        tag.has_attr("hidden") or tag.get("aria-hidden") == "true" or bool(_HIDDEN_STYLE.search(tag.get("style") or ""))
    )


class _PositionedParser(BeautifulSoupHTMLParser):
    """Records where each run of text data starts in the source (Beautiful
    Soup keeps positions of start tags only, and we need exact spans)."""

    _literal = True  # False while an entity or character reference is decoded

    def _offset(self) -> int:
        line, column = self.getpos()
        return self.soup.line_starts[line - 1] + column

    def handle_data(self, data: str) -> None:
        offset = self._offset()
        self.soup.data_events.append((offset, data, self._literal))
        self.soup.data_starts.append(offset)
        super().handle_data(data)

    def handle_charref(self, name: str) -> None:
        self._literal = False
        try:
            super().handle_charref(name)
        finally:
            self._literal = True

    def handle_entityref(self, name: str) -> None:
        self._literal = False
        try:
            super().handle_entityref(name)
        finally:
            self._literal = True


def _marking(name: str) -> Callable[..., object]:
    def handler(self: _PositionedParser, *args: object, **kwargs: object) -> object:
        self.soup.marks.append(self._offset())  # where the text before it ends
        return getattr(BeautifulSoupHTMLParser, name)(self, *args, **kwargs)

    return handler


for _name in (
    "handle_starttag",
    "handle_endtag",
    "handle_startendtag",
    "handle_comment",
    "handle_decl",
    "handle_pi",
    "unknown_decl",
):
    setattr(_PositionedParser, _name, _marking(_name))


class _PositionedBuilder(HTMLParserTreeBuilder):
    def feed(self, markup: str) -> None:  # type: ignore[override]
        super().feed(markup, _parser_class=_PositionedParser)


@dataclass(frozen=True)
class _Run:
    """Decoded text of one data event and the raw span it came from; only a
    literal run maps character by character."""

    text: str
    start: int
    end: int
    literal: bool


class _PositionedSoup(BeautifulSoup):
    """Beautiful Soup that knows, for each text node, the raw runs it was built from."""

    def __init__(self, source: str) -> None:
        self.line_starts = [0, *(m.end() for m in re.finditer("\n", source))]
        self.data_events: list[tuple[int, str, bool]] = []
        self.marks: list[int] = []
        self.data_starts: list[int] = []
        self.runs: dict[int, list[tuple[int, str, bool]]] = {}
        super().__init__(source, builder=_PositionedBuilder())
        self.source_length = len(source)
        self.boundaries = sorted({*self.marks, *self.data_starts})

    def endData(self, containerClass: type[NavigableString] | None = None) -> None:  # noqa: N802
        events, self.data_events = self.data_events, []
        before = self._most_recent_element
        super().endData(containerClass)
        created = self._most_recent_element
        if events and created is not before and isinstance(created, NavigableString):
            self.runs[id(created)] = events

    def runs_of(self, string: NavigableString) -> list[_Run]:
        events = self.runs.get(id(string), [])
        if "".join(data for _, data, _ in events) != str(string):
            # Beautiful Soup collapsed a whitespace-only string: no word inside.
            events = [(events[0][0], str(string), False)] if events else []
        runs = []
        for offset, data, literal in events:
            if literal:
                runs.append(_Run(data, offset, offset + len(data), True))
            elif data:  # a reference: its raw text ends where the next event starts
                n = bisect.bisect_right(self.boundaries, offset)
                end = self.boundaries[n] if n < len(self.boundaries) else self.source_length
                runs.append(_Run(data, offset, end, False))
        return runs


class _MappedText:
    """Text nodes joined by ``sep``, with a map from text offsets to source offsets."""

    def __init__(self, soup: _PositionedSoup, strings: Sequence[NavigableString], sep: str) -> None:
        pieces: list[str] = []
        self._starts: list[int] = []
        self._runs: list[_Run] = []
        length = 0
        for n, string in enumerate(strings):
            if n and sep:
                pieces.append(sep)
                length += len(sep)
            for run in soup.runs_of(string):
                self._starts.append(length)
                self._runs.append(run)
                pieces.append(run.text)
                length += len(run.text)
        self.text = "".join(pieces)

    def _run_at(self, offset: int) -> tuple[int, _Run]:
        n = bisect.bisect_right(self._starts, offset) - 1
        return self._starts[n], self._runs[n]

    def raw_start(self, offset: int) -> int:
        base, run = self._run_at(offset)
        return run.start + (offset - base) if run.literal else run.start

    def raw_end(self, offset: int) -> int:
        base, run = self._run_at(offset - 1)
        return run.start + (offset - base) if run.literal else run.end

    def piece(self, start: int, end: int, text: str, sep: str = "\n") -> Piece:
        return Piece(text, self.raw_start(start), self.raw_end(end), sep=sep)

    def words(self) -> list[Piece]:
        return [self.piece(m.start(), m.end(), m.group(), sep=" ") for m in _WORD.finditer(self.text)]


def _visible(node: Tag | NavigableString) -> list[NavigableString]:
    """Text nodes a reader sees (comments, scripts, styles are other string types)."""
    if isinstance(node, NavigableString):
        return [node] if type(node) is NavigableString else []
    return [s for s in node.descendants if type(s) is NavigableString]


def _is_block(node: object) -> bool:
    return isinstance(node, Tag) and (node.name in _HTML_BLOCKS or node.find(_HTML_BLOCKS) is not None)


def _html_paragraph(soup: _PositionedSoup, strings: Sequence[NavigableString]) -> Block | None:
    words = _MappedText(soup, strings, " ").words()
    if not words:
        return None
    return _block("paragraph", _sentences(words, None), " ".join(w.text for w in words))


_MAX_LIST_DEPTH = 20  # deeper lists are flattened into their item's text (bounded recursion)


def _html_list_lines(soup: _PositionedSoup, tag: Tag, depth: int = 0) -> list[Piece]:
    """One piece per item: its text with a marker, nested lists indented below it."""
    items: list[Piece] = []
    number = 0
    for child in tag.children:
        is_item = isinstance(child, Tag) and child.name == "li"
        number += is_item
        lines: list[Piece] = []
        inline: list[NavigableString] = []

        def flush(lines: list[Piece] = lines, inline: list[NavigableString] = inline) -> None:  # this item's
            words = _MappedText(soup, inline, " ").words()
            if words:
                lines.append(Piece(" ".join(w.text for w in words), words[0].start, words[-1].end))
            inline.clear()

        for node in child.children if is_item else [child]:
            if isinstance(node, Tag) and node.name in _HTML_LISTS and depth < _MAX_LIST_DEPTH:
                flush()
                lines.extend(_html_list_lines(soup, node, depth + 1))
            else:
                inline.extend(_visible(node))
        flush()
        if not lines:
            continue
        marker = (f"{number}." if tag.name == "ol" else "-") if is_item else ""
        first = lines[0]
        text = "  " * depth + (f"{marker} " if marker else "") + first.text
        rest = [
            line.text if line.text.startswith("  ") and line is not first else "  " * (depth + 1) + line.text
            for line in lines[1:]
        ]
        items.append(Piece("\n".join([text, *rest]), first.start, max(line.end for line in lines)))
    return items


_MAX_COLSPAN = 50  # a larger colspan is read as this (a table of 1000 empty columns helps no one)


def _table_place(node: Tag | NavigableString, table: Tag) -> tuple[Tag | None, Tag | None]:
    """The outermost row and cell of ``table`` that hold ``node`` (a nested
    table is flattened into the cell of the outer one)."""
    row = cell = None
    for parent in node.parents:
        if parent is table:
            break
        if parent.name == "tr":
            row = parent
        elif parent.name in ("td", "th"):
            cell = parent
    return row, cell


def _colspan(cell: object) -> int:
    raw = cell.get("colspan") if isinstance(cell, Tag) else None
    try:
        return max(1, min(int(str(raw).strip()), _MAX_COLSPAN))
    except ValueError:
        return 1


_LOOSE, _ROWLESS = object(), object()  # keys of text outside any cell, of cells outside any row


def _html_table(soup: _PositionedSoup, tag: Tag) -> Block | None:
    """A Markdown table, as a Markdown document writes it: the first row is
    the header, the ``|---|`` rule follows it, every row has every column
    (empty cells kept, a ``colspan`` as empty cells after its own) and a
    ``|`` inside a cell is escaped. The header part is its row and the rule,
    so a split table repeats both and each piece still renders as a table.
    Text in the table before its first row (a caption) is a line above the
    header, repeated with it; text outside any row after it is a row.
    A nested table is flattened into its cell."""
    rows: list[tuple[object, list[tuple[object, list[NavigableString]]]]] = []
    for node in tag.descendants:
        is_cell = isinstance(node, Tag) and node.name in ("td", "th")
        if not is_cell and type(node) is not NavigableString:
            continue
        row, cell = _table_place(node, tag)  # type: ignore[arg-type]
        if is_cell:
            if cell is not None:
                continue  # a cell of a nested table: its text is its outer cell's
            cell = node  # type: ignore[assignment]
        # Cells outside any row form a row together; text outside any cell is loose.
        key: object = row if row is not None else _ROWLESS if cell is not None else _LOOSE
        if not rows or rows[-1][0] is not key:
            rows.append((key, []))
        cells = rows[-1][1]
        cell_key: object = cell if cell is not None else _LOOSE
        if not cells or cells[-1][0] is not cell_key:
            cells.append((cell_key, []))
        if not is_cell:
            cells[-1][1].append(node)  # type: ignore[arg-type]
    captions: list[Piece] = []
    body: list[tuple[list[str], int, int]] = []
    for key, cells in rows:
        texts = [_MappedText(soup, strings, " ").words() for _, strings in cells]
        words = [w for cell in texts for w in cell]
        if not words:
            continue
        if key is _LOOSE and not body:
            captions.extend(words)
            continue
        line: list[str] = []
        for (cell, _), cell_words in zip(cells, texts, strict=True):
            line.append(" ".join(w.text for w in cell_words).replace("|", "\\|"))
            line.extend([""] * (_colspan(cell) - 1))
        body.append((line, words[0].start, words[-1].end))
    caption = " ".join(w.text for w in captions)
    if not body:  # only loose text: a paragraph
        return _block("paragraph", _sentences(captions, None), caption) if captions else None
    width = max(len(line) for line, _, _ in body)
    lines = [
        Piece("| " + " | ".join(line + [""] * (width - len(line))) + " |", start, end) for line, start, end in body
    ]
    lines[0] = Piece(lines[0].text + "\n|" + "---|" * width, lines[0].start, lines[0].end)
    above = [Piece(caption, captions[0].start, captions[-1].end)] if captions else []
    parts = [*above, *lines]
    return _block("table", parts, "\n".join(p.text for p in parts), header=len(above) + 1)


def _html_code(soup: _PositionedSoup, tag: Tag) -> Block | None:
    mapped = _MappedText(soup, _visible(tag), "")
    lines = []
    for match in re.finditer(r"[^\r\n]+", mapped.text):
        stripped = match.group().strip()
        if stripped:
            offset = match.start() + match.group().index(stripped)
            lines.append(mapped.piece(offset, offset + len(stripped), match.group().rstrip()))
    if not lines:
        return None
    return _block("code", lines, mapped.text.strip("\n"))


def _html_heading(soup: _PositionedSoup, tag: Tag) -> tuple[Block | None, list[object]]:
    """A heading is its inline text; unclosed headings swallow what follows
    (``<h1>T<p>…``), so the children from the first block on are returned to walk."""
    children = list(tag.children)
    first_block = next((n for n, c in enumerate(children) if _is_block(c)), len(children))
    strings = [s for c in children[:first_block] for s in _visible(c)]
    words = _MappedText(soup, strings, " ").words()
    heading = None
    if words:
        heading = Block(
            "heading", " ".join(w.text for w in words), words[0].start, words[-1].end, level=_HTML_HEADINGS[tag.name]
        )
    return heading, children[first_block:]


def html_blocks(source: str) -> list[Block]:
    soup = _PositionedSoup(source)
    for tag in soup.find_all(lambda t: t.name in _HTML_SKIP or _hidden(t)):
        if not tag.decomposed:
            tag.decompose()
    blocks: list[Block] = []
    inline: list[NavigableString] = []

    def flush() -> None:
        paragraph = _html_paragraph(soup, inline)
        if paragraph:
            blocks.append(paragraph)
        inline.clear()

    # Iterative, not recursive: deeply nested markup must not exhaust the stack.
    stack: list[Iterator[object]] = [iter(list(soup.children))]
    while stack:
        child = next(stack[-1], None)
        if child is None:
            stack.pop()
            flush()
            continue
        if not _is_block(child):  # text, or an inline element with no block inside
            inline.extend(_visible(child))  # type: ignore[arg-type]
            continue
        flush()
        assert isinstance(child, Tag)
        block: Block | None = None
        if child.name in _HTML_HEADINGS:
            block, rest = _html_heading(soup, child)
            stack.append(iter(rest))
        elif child.name in _HTML_LISTS:
            items = _html_list_lines(soup, child)
            block = _block("list", items, "\n".join(p.text for p in items)) if items else None
        elif child.name == "table":
            block = _html_table(soup, child)
        elif child.name == "pre":
            block = _html_code(soup, child)
        elif child.name in _HTML_LEAVES:
            block = _html_paragraph(soup, _visible(child))
        else:
            stack.append(iter(list(child.children)))
        if block:
            blocks.append(block)
    return blocks


# --- plain text -------------------------------------------------------------------

_LIST_LINE = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s+")


def _paragraph_lines(source: str) -> Iterator[list[Piece]]:
    """Runs of non-blank lines separated by blank lines."""
    run: list[Piece] = []
    cursor = 0
    for match in [*_LINE_BREAK.finditer(source), None]:
        stop = match.start() if match else len(source)
        line = source[cursor:stop]
        if line.strip():
            lead = len(line) - len(line.lstrip())
            text = line.strip()
            run.append(Piece(text, cursor + lead, cursor + lead + len(text)))
        elif run:
            yield run
            run = []
        cursor = match.end() if match else len(source)
    if run:
        yield run


def text_blocks(source: str) -> list[Block]:
    """Plain text: blank lines separate paragraphs; a run of lines that all
    start with a bullet or number is a list (after its lead-in lines, if any)."""
    blocks: list[Block] = []
    for lines in _paragraph_lines(source):
        first_item = next(
            (n for n in range(len(lines)) if all(_LIST_LINE.match(line.text) for line in lines[n:])), len(lines)
        )
        if first_item:
            start, end = lines[0].start, lines[first_item - 1].end
            words = _verbatim_words(source, start, end)
            blocks.append(_block("paragraph", _sentences(words, source), source[start:end]))
        if first_item < len(lines):
            items = lines[first_item:]
            blocks.append(_block("list", items, source[items[0].start : items[-1].end]))
    return blocks


PARSERS: dict[str, Callable[[str], list[Block]]] = {
    "markdown": markdown_blocks,
    "html": html_blocks,
    "text": text_blocks,
    # PDF and DOCX are stored as the Markdown retrieval.converters made of them.
    "pdf": markdown_blocks,
    "docx": markdown_blocks,
}
VERBATIM_FORMATS = {"markdown", "text", "pdf", "docx"}


# --- grouping and packing ------------------------------------------------------


def _is_lead_in(block: Block) -> bool:
    return block.kind == "paragraph" and block.text.rstrip().endswith(":")


def _heading_unit(heading: Block) -> _Unit:
    return _Unit("heading", [Piece(heading.text, heading.start, heading.end)])


def _sections(blocks: list[Block]) -> Iterator[tuple[tuple[str, ...], list[_Unit]]]:
    """Yield (heading path, units) per section; a lead-in paragraph joins the
    list or table right after it, and its last sentence is what a split repeats.

    A heading with no text under it is never lost. Followed by a deeper
    heading, it stays in the breadcrumb of what follows. Followed by one of
    its own level or higher, or ending the document, it leaves the
    breadcrumb; it becomes a unit of its own, at the head of the next
    section's text (or a last section holding only it), so it can be quoted
    and searched."""
    path: list[tuple[int, str]] = []
    units: list[_Unit] = []
    empty: list[Block] = []  # headings on the path with nothing under them yet
    orphans: list[_Unit] = []  # empty headings that left the breadcrumb
    i = 0
    while i < len(blocks):
        block = blocks[i]
        if block.kind == "heading":
            if units:
                yield tuple(title for _, title in path), units
                units = []
            orphans += [_heading_unit(h) for h in empty if h.level >= block.level]
            empty = [h for h in empty if h.level < block.level] + [block]
            path = [(level, title) for level, title in path if level < block.level]
            path.append((block.level, block.text))
            i += 1
            continue
        if orphans:
            # The chunk's text starts at the first orphan: the headings between
            # it and this text are in it too, as the source reads.
            first = orphans[0].parts[0].start
            units, orphans = orphans + [_heading_unit(h) for h in empty if h.start > first], []
        empty = []
        header = block.parts[: block.header]
        following = blocks[i + 1] if i + 1 < len(blocks) else None
        if _is_lead_in(block) and following is not None and following.kind in ("list", "table"):
            header = following.parts[: following.header]
            units.append(_Unit(following.kind, [*block.parts, *following.parts], context=(block.parts[-1], *header)))
            i += 2
            continue
        units.append(_Unit(block.kind, list(block.parts), context=header))
        i += 1
    orphans += [_heading_unit(h) for h in empty]
    if units or orphans:
        yield tuple(title for _, title in path), units + orphans


class _Packer:
    """Builds chunk text from parts: verbatim slices of ``source`` for
    Markdown and plain text, the parts' own (extracted) text for HTML."""

    def __init__(self, source: str, verbatim: bool, count: TokenCounter, max_tokens: int) -> None:
        self.source, self.verbatim, self.count, self.max_tokens = source, verbatim, count, max_tokens

    def own(self, parts: Sequence[Piece]) -> str:
        if self.verbatim:
            return self.source[parts[0].start : parts[-1].end]
        return parts[0].text + "".join(p.sep + p.text for p in parts[1:])

    def text(self, units: Sequence[_Unit]) -> str:
        repeat = "".join(p.text + "\n" for p in units[0].repeat)
        if self.verbatim:
            return repeat + self.source[units[0].parts[0].start : units[-1].parts[-1].end]
        return repeat + "\n\n".join(self.own(u.parts) for u in units)

    def words(self, sentence: Piece) -> list[Piece]:
        if self.verbatim:
            return _verbatim_words(self.source, sentence.start, sentence.end)
        return list(sentence.words)

    def pieces(self, unit: _Unit) -> list[_Unit]:
        """Split a unit that is over the limit between its parts; only a
        sentence over the limit by itself is cut further, between words."""
        if self.count(self.own(unit.parts)) <= self.max_tokens:
            return [unit]
        parts: list[Piece] = []
        for part in unit.parts:
            if part.divisible and self.count(part.text) > self.max_tokens:
                parts.extend(self.words(part))
            else:
                parts.append(part)
        out: list[_Unit] = []
        for part in parts:
            if out:
                candidate = _Unit(unit.kind, [*out[-1].parts, part], repeat=out[-1].repeat, bound=out[-1].bound)
                if self.count(self.text([candidate])) <= self.max_tokens:
                    out[-1] = candidate
                    continue
                if all(p in unit.context for p in out[-1].parts):
                    # A header without a row (a lead-in without an item) says
                    # nothing by itself, and the next piece repeats it anyway:
                    # its first part joins it, over the limit if need be.
                    out[-1] = dataclasses.replace(candidate, bound=len(out[-1].parts))
                    continue
            repeat = tuple(c for c in unit.context if c.end <= part.start)
            out.append(_Unit(unit.kind, [part], repeat=repeat))
        return out


def chunk_blocks(
    blocks: list[Block],
    *,
    count: TokenCounter,
    max_tokens: int,
    title: str = "",
    source: str = "",
    verbatim: bool = False,
) -> list[ChunkDraft]:
    """Pack blocks into chunks; ``verbatim`` (with ``source``) makes chunk text
    the source slice of its span rather than the blocks' extracted text."""
    packer = _Packer(source, verbatim, count, max_tokens)
    drafts: list[ChunkDraft] = []
    for path, units in _sections(blocks):
        pieces = [piece for unit in units if unit.parts for piece in packer.pieces(unit)]
        group: list[_Unit] = []

        def flush(group: list[_Unit] = group, path: tuple[str, ...] = path) -> None:  # this section's
            if not group:
                return
            text = packer.text(group)
            kinds = {u.kind for u in group}
            drafts.append(
                ChunkDraft(
                    position=len(drafts) + 1,
                    kind=kinds.pop() if len(kinds) == 1 else "mixed",
                    heading_path=path or ((title,) if title else ()),
                    text=text,
                    token_count=count(text),
                    char_start=group[0].parts[0].start,
                    char_end=group[-1].parts[-1].end,
                    repeated=tuple((p.start, p.end) for p in group[0].repeat),
                    parts=sum(len(u.parts) - u.bound for u in group),
                )
            )
            group.clear()

        for piece in pieces:
            # A piece that repeats a lead-in or header opens its own chunk.
            if group and (piece.repeat or count(packer.text([*group, piece])) > max_tokens):
                flush()
            group.append(piece)
        flush()
    return drafts


def chunk_document(
    content: str, fmt: str, *, count: TokenCounter, max_tokens: int, title: str = ""
) -> list[ChunkDraft]:
    """Cut ``content`` (in ``fmt``: markdown, html, text) into chunks of at
    most ``max_tokens`` tokens where the structure allows it."""
    try:
        parse = PARSERS[fmt]
    except KeyError:
        raise ChunkingError(f"format tidak dikenal: {fmt!r} (pilih markdown, html, text, pdf atau docx)") from None
    drafts = chunk_blocks(
        parse(content),
        count=count,
        max_tokens=max_tokens,
        title=title,
        source=content,
        verbatim=fmt in VERBATIM_FORMATS,
    )
    if not drafts:
        raise ChunkingError("dokumen tidak berisi teks yang bisa diindeks")
    return drafts


def has_text(content: str, fmt: str) -> bool:
    """Whether ``content`` parses into at least one block of text."""
    parse = PARSERS.get(fmt)
    return parse is not None and any(b.kind != "heading" or b.text for b in parse(content))
