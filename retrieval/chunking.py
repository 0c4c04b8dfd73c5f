"""Structure-aware chunking: by meaning first, then by size.

A document is parsed into *blocks* (heading, paragraph, list, table, code)
that each know their character span in the source. Blocks are grouped into
*units* that must stay together (a list with its lead-in sentence), units are
packed into chunks within one section (chunks never cross a heading), and a
unit larger than the limit is split along its own structure: a table by rows
with its header repeated, a list by items with its lead-in repeated, code by
lines, prose by sentences. Sizes are counted with the embedding model's own
tokenizer.

Markdown chunks are verbatim slices of the source; HTML and plain-text chunks
are the extracted text of the slice ``[char_start, char_end)``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from bs4 import BeautifulSoup, Comment, NavigableString, Tag
from markdown_it import MarkdownIt

# Enters the embedding cache key: bump it whenever chunk text can change.
CHUNKER_VERSION = "structure-v2"  # v2: hidden HTML elements are not text

TokenCounter = Callable[[str], int]

BREADCRUMB_SEPARATOR = " > "


@dataclass(frozen=True)
class Block:
    kind: str  # heading | paragraph | list | table | code
    text: str
    start: int
    end: int
    level: int = 0  # heading level
    parts: tuple[str, ...] = ()  # list items, table body rows or code lines
    header: str = ""  # table header (with its separator line for Markdown)


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

    @property
    def breadcrumb(self) -> str:
        return BREADCRUMB_SEPARATOR.join(self.heading_path)


@dataclass
class _Unit:
    kind: str
    text: str
    start: int
    end: int
    lead_in: str = ""
    parts: tuple[str, ...] = ()
    header: str = ""
    joiner: str = "\n"


class ChunkingError(ValueError):
    """The content cannot be chunked (e.g. it holds no text at all)."""


# --- parsing -----------------------------------------------------------------

_md = MarkdownIt("commonmark").enable("table")


def _line_offsets(source: str) -> list[int]:
    offsets = [0]
    for match in re.finditer("\n", source):
        offsets.append(match.end())
    offsets.append(len(source))
    return offsets


def _span(source: str, offsets: list[int], first_line: int, last_line: int) -> tuple[int, int, str]:
    start = offsets[min(first_line, len(offsets) - 1)]
    end = offsets[min(last_line, len(offsets) - 1)]
    text = source[start:end]
    stripped = text.rstrip()
    lead = len(text) - len(text.lstrip())
    return start + lead, start + len(stripped), stripped.strip()


def markdown_blocks(source: str) -> list[Block]:
    offsets = _line_offsets(source)
    tokens = _md.parse(source)
    blocks: list[Block] = []
    for i, token in enumerate(tokens):
        if token.level != 0 or token.map is None or token.nesting == -1:
            continue
        start, end, text = _span(source, offsets, *token.map)
        if not text:
            continue
        if token.type == "heading_open":
            title = tokens[i + 1].content.strip()
            blocks.append(Block("heading", title, start, end, level=int(token.tag[1])))
        elif token.type in ("bullet_list_open", "ordered_list_open"):
            items = _items_until_close(tokens, i, source, offsets)
            blocks.append(Block("list", text, start, end, parts=tuple(items)))
        elif token.type == "table_open":
            lines = text.splitlines()
            blocks.append(Block("table", text, start, end,
                                header="\n".join(lines[:2]), parts=tuple(lines[2:])))
        elif token.type in ("fence", "code_block"):
            blocks.append(Block("code", text, start, end, parts=tuple(text.splitlines())))
        elif token.type == "hr":
            continue
        else:  # paragraph, blockquote, html_block
            blocks.append(Block("paragraph", text, start, end))
    return blocks


def _items_until_close(tokens: list, open_index: int, source: str, offsets: list[int]) -> list[str]:
    """Source text of each top-level item of the list opened at ``open_index``."""
    depth = 0
    items: list[str] = []
    for token in tokens[open_index:]:
        depth += token.nesting
        if token.type == "list_item_open" and depth == 2 and token.map:
            items.append(_span(source, offsets, *token.map)[2])
        if depth == 0:
            break
    return items


_HTML_SKIP = {"script", "style", "template", "noscript", "head", "title", "meta", "link", "svg",
              "iframe", "object", "embed", "button", "form", "input", "select", "textarea"}
_HTML_HEADINGS = {f"h{n}": n for n in range(1, 7)}
_HTML_LEAVES = {"p", "blockquote", "dl", "figure", "address", "details", "center"}
_HTML_LISTS = {"ul", "ol"}
_HTML_BLOCKS = [*_HTML_HEADINGS, *_HTML_LEAVES, *_HTML_LISTS, "table", "pre", "div", "section", "article"]


def _clean(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def _html_position(tag: Tag, offsets: list[int]) -> int:
    line = tag.sourceline or 1
    return offsets[min(line - 1, len(offsets) - 1)] + (tag.sourcepos or 0)


def _html_list_items(tag: Tag, depth: int = 0) -> list[str]:
    items: list[str] = []
    ordered = tag.name == "ol"
    for n, li in enumerate(tag.find_all("li", recursive=False), start=1):
        nested = [child for child in li.find_all(["ul", "ol"], recursive=False)]
        for child in nested:
            child.extract()
        marker = f"{n}." if ordered else "-"
        line = "  " * depth + f"{marker} {_clean(li.get_text(' '))}"
        for child in nested:
            line += "\n" + "\n".join(_html_list_items(child, depth + 1))
        items.append(line)
    return items


def _html_table(tag: Tag) -> tuple[str, list[str]]:
    rows = tag.find_all("tr")
    cells = [[_clean(c.get_text(" ")) for c in row.find_all(["th", "td"])] for row in rows]
    cells = [row for row in cells if any(row)]
    if not cells:
        return "", []
    lines = ["| " + " | ".join(row) + " |" for row in cells]
    has_header = bool(rows[0].find("th")) or tag.find("thead") is not None
    if has_header:
        return lines[0], lines[1:]
    return "", lines


_HIDDEN_STYLE = re.compile(r"display\s*:\s*none|visibility\s*:\s*hidden", re.I)


def _hidden(tag: Tag) -> bool:
    """Content a reader never sees (``hidden``, ``aria-hidden``, inline
    ``display:none``) is not evidence; it is where planted instructions hide."""
    return (tag.has_attr("hidden") or tag.get("aria-hidden") == "true"
            or bool(_HIDDEN_STYLE.search(tag.get("style") or "")))


def html_blocks(source: str) -> list[Block]:
    offsets = _line_offsets(source)
    soup = BeautifulSoup(source, "html.parser")
    for tag in soup.find_all(_hidden):
        tag.decompose()
    pending: list[tuple[str, int, dict]] = []  # kind, start, payload

    def walk(node: Tag) -> None:
        for child in node.children:
            if isinstance(child, Comment):
                continue
            if isinstance(child, NavigableString):
                text = _clean(str(child))
                if text:
                    # Loose text: it starts somewhere after the parent's opening tag.
                    parent_start = _html_position(node, offsets) if node.name != "[document]" else 0
                    pending.append(("paragraph", parent_start, {"text": text}))
                continue
            if not isinstance(child, Tag) or child.name in _HTML_SKIP:
                continue
            start = _html_position(child, offsets)
            if child.name in _HTML_HEADINGS:
                # Unclosed headings swallow what follows (``<h1>T<p>…``): the
                # heading is its inline text; its block children are walked.
                inline = []
                for part in child.children:
                    if isinstance(part, Tag) and part.name in _HTML_BLOCKS:
                        break
                    if not isinstance(part, Comment):
                        inline.append(part.get_text(" ") if isinstance(part, Tag) else str(part))
                text = _clean(" ".join(inline))
                if text:
                    pending.append(("heading", start, {"text": text, "level": _HTML_HEADINGS[child.name]}))
                if child.find(_HTML_BLOCKS):
                    for part in list(child.children):
                        if not (isinstance(part, Tag) and part.name in _HTML_BLOCKS):
                            part.extract()
                    walk(child)
            elif child.name in _HTML_LISTS:
                items = _html_list_items(child)
                if items:
                    pending.append(("list", start, {"parts": items}))
            elif child.name == "table":
                header, rows = _html_table(child)
                if rows or header:
                    pending.append(("table", start, {"header": header, "parts": rows}))
            elif child.name == "pre":
                text = child.get_text().strip("\n")
                if text.strip():
                    pending.append(("code", start, {"text": text}))
            elif child.name in _HTML_LEAVES:
                text = _clean(child.get_text(" "))
                if text:
                    pending.append(("paragraph", start, {"text": text}))
            else:
                walk(child)

    walk(soup)
    pending.sort(key=lambda item: item[1])  # loose text is placed by its parent's start
    blocks: list[Block] = []
    for i, (kind, start, payload) in enumerate(pending):
        end = pending[i + 1][1] if i + 1 < len(pending) else len(source)
        end = max(end, start)
        if kind == "heading":
            blocks.append(Block("heading", payload["text"], start, end, level=payload["level"]))
        elif kind == "list":
            blocks.append(Block("list", "\n".join(payload["parts"]), start, end, parts=tuple(payload["parts"])))
        elif kind == "table":
            header, rows = payload["header"], payload["parts"]
            text = "\n".join(([header] if header else []) + rows)
            blocks.append(Block("table", text, start, end, header=header, parts=tuple(rows)))
        elif kind == "code":
            blocks.append(Block("code", payload["text"], start, end, parts=tuple(payload["text"].splitlines())))
        else:
            blocks.append(Block("paragraph", payload["text"], start, end))
    return blocks


_LIST_LINE = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s+")


def text_blocks(source: str) -> list[Block]:
    """Plain text: blank lines separate paragraphs; a run of lines that all
    start with a bullet or number is a list."""
    blocks: list[Block] = []
    for match in re.finditer(r"\S(?:.*\S)?(?:\n[ \t]*\S.*)*", source):
        text = match.group(0).strip()
        lines = text.splitlines()
        start = match.start()
        if all(_LIST_LINE.match(line) for line in lines):
            blocks.append(Block("list", text, start, match.end(), parts=tuple(lines)))
            continue
        # A paragraph whose last lines are a list: split into lead-in + list.
        first_item = next((n for n, line in enumerate(lines) if _LIST_LINE.match(line)
                           and all(_LIST_LINE.match(rest) for rest in lines[n:])), None)
        if first_item:
            lead = "\n".join(lines[:first_item])
            rest = "\n".join(lines[first_item:])
            rest_start = start + text.index(rest, len(lead))
            blocks.append(Block("paragraph", lead.strip(), start, start + len(lead.rstrip())))
            blocks.append(Block("list", rest, rest_start, match.end(), parts=tuple(lines[first_item:])))
        else:
            blocks.append(Block("paragraph", text, start, match.end()))
    return blocks


PARSERS: dict[str, Callable[[str], list[Block]]] = {
    "markdown": markdown_blocks,
    "html": html_blocks,
    "text": text_blocks,
}


# --- grouping and packing ------------------------------------------------------

_SENTENCE_END = re.compile(r"(?<=[.!?…])\s+(?=\S)")


def _last_sentence(text: str) -> str:
    sentences = _SENTENCE_END.split(text.strip())
    return sentences[-1] if sentences else text


def _is_lead_in(block: Block) -> bool:
    return block.kind == "paragraph" and block.text.rstrip().endswith(":")


def _sections(blocks: list[Block]) -> Iterator[tuple[tuple[str, ...], list[_Unit]]]:
    """Yield (heading path, units) per section; a lead-in paragraph joins the
    list or table right after it."""
    path: list[tuple[int, str]] = []
    units: list[_Unit] = []
    i = 0
    while i < len(blocks):
        block = blocks[i]
        if block.kind == "heading":
            if units:
                yield tuple(title for _, title in path), units
                units = []
            path = [(level, title) for level, title in path if level < block.level]
            path.append((block.level, block.text))
            i += 1
            continue
        following = blocks[i + 1] if i + 1 < len(blocks) else None
        if _is_lead_in(block) and following is not None and following.kind in ("list", "table"):
            units.append(_Unit(following.kind, f"{block.text}\n{following.text}", block.start,
                               following.end, lead_in=_last_sentence(block.text),
                               parts=following.parts, header=following.header))
            i += 2
            continue
        units.append(_Unit(block.kind, block.text, block.start, block.end,
                           parts=block.parts, header=block.header))
        i += 1
    if units:
        yield tuple(title for _, title in path), units


def _pieces(unit: _Unit, count: TokenCounter, max_tokens: int) -> list[_Unit]:
    """Split a unit that is over the limit along its own structure."""
    if count(unit.text) <= max_tokens:
        return [unit]
    if unit.kind in ("list", "table") and len(unit.parts) > 1:
        prefix = "\n".join(p for p in (unit.lead_in, unit.header) if p)
        return _pack_parts(unit, list(unit.parts), prefix, count, max_tokens)
    if unit.kind == "code" and len(unit.parts) > 1:
        return _pack_parts(unit, list(unit.parts), "", count, max_tokens)
    sentences = _SENTENCE_END.split(unit.text)
    if len(sentences) > 1:
        return _pack_parts(_Unit("paragraph", unit.text, unit.start, unit.end, joiner=" "),
                           sentences, "", count, max_tokens)
    words = unit.text.split(" ")
    if len(words) > 1:
        return _pack_parts(_Unit(unit.kind, unit.text, unit.start, unit.end, joiner=" "),
                           words, "", count, max_tokens)
    return [unit]  # one enormous token run: nothing sensible left to cut


def _pack_parts(unit: _Unit, parts: list[str], prefix: str, count: TokenCounter,
                max_tokens: int) -> list[_Unit]:
    """Greedily pack ``parts`` (rows, items, lines, sentences) under the limit,
    each piece starting with ``prefix`` (a repeated header or lead-in). Pieces
    get proportional character spans inside the unit's span."""
    pieces: list[list[str]] = [[]]
    for part in parts:
        candidate = pieces[-1] + [part]
        body = unit.joiner.join(candidate)
        text = f"{prefix}\n{body}" if prefix else body
        if pieces[-1] and count(text) > max_tokens:
            pieces.append([part])
        else:
            pieces[-1] = candidate
    out: list[_Unit] = []
    total = sum(len(p) for p in parts) or 1
    cursor = unit.start
    width = unit.end - unit.start
    for n, piece in enumerate(pieces):
        body = unit.joiner.join(piece)
        end = unit.end if n == len(pieces) - 1 else cursor + round(width * sum(len(p) for p in piece) / total)
        out.append(_Unit(unit.kind, f"{prefix}\n{body}" if prefix else body, cursor, end))
        cursor = end
    return out


def chunk_blocks(blocks: list[Block], *, count: TokenCounter, max_tokens: int,
                 title: str = "") -> list[ChunkDraft]:
    drafts: list[ChunkDraft] = []
    for path, units in _sections(blocks):
        pieces = [piece for unit in units for piece in _pieces(unit, count, max_tokens)]
        group: list[_Unit] = []

        def flush() -> None:
            if not group:
                return
            text = "\n\n".join(u.text for u in group)
            kinds = {u.kind for u in group}
            drafts.append(ChunkDraft(
                position=len(drafts) + 1,
                kind=kinds.pop() if len(kinds) == 1 else "mixed",
                heading_path=path or ((title,) if title else ()),
                text=text,
                token_count=count(text),
                char_start=group[0].start,
                char_end=group[-1].end,
            ))
            group.clear()

        for piece in pieces:
            if group and count("\n\n".join([*(u.text for u in group), piece.text])) > max_tokens:
                flush()
            group.append(piece)
        flush()
    return drafts


def chunk_document(content: str, fmt: str, *, count: TokenCounter, max_tokens: int,
                   title: str = "") -> list[ChunkDraft]:
    """Cut ``content`` (in ``fmt``: markdown, html, text) into chunks of at
    most ``max_tokens`` tokens where the structure allows it."""
    try:
        parse = PARSERS[fmt]
    except KeyError:
        raise ChunkingError(f"format tidak dikenal: {fmt!r} (pilih markdown, html atau text)") from None
    drafts = chunk_blocks(parse(content), count=count, max_tokens=max_tokens, title=title)
    if not drafts:
        raise ChunkingError("dokumen tidak berisi teks yang bisa diindeks")
    return drafts



def has_text(content: str, fmt: str) -> bool:
    """Whether ``content`` parses into at least one block of text."""
    parse = PARSERS.get(fmt)
    return parse is not None and any(b.kind != "heading" or b.text for b in parse(content))
