"""Answer units: the pieces of an evidence chunk that can stand alone as a
quoted claim.

A chunk's text (a verbatim Markdown, MDX or plain-text slice, or the
chunker's rendering of HTML, PDF or DOCX with ``-``/``1.`` list marks and
``| a | b |`` table rows) is split into

- ``sentence``: a sentence of a paragraph;
- ``item``: a list item, rendered after its lead-in ("Syarat cuti: …");
- ``row``: a table row, rendered with its header
  ("ERR_CONN_RESET — Kategori: Jaringan; Arti: Koneksi TCP diputus");
- ``field``: a key–value line ("Waktu pemutaran: hingga 30 jam");
- ``code``: a fenced (or announced, indented) code block, verbatim with its
  line breaks, after its lead-in
  ("Jalankan perintah berikut: lintas auth reset --user <email>");
- ``quote``: a short ``>`` blockquote that a lead-in announces or that is
  labelled as a message ("> Error 401: …"), quoted whole
  ("Muncul pesan berikut: Sesi Anda telah berakhir. Masuk kembali.").
  Other blockquotes (notes, status banners) are prose, as are quotations
  inside a sentence, except that one named as a message (pesan "…") is
  never cut at its periods.

Every unit keeps the exact span ``[start, end)`` of its own text in the chunk
(the desk highlights it); ``text`` is the faithful rendering a claim quotes:
the same words, less Markdown markup, with the lead-in or the header that
the row, item, code or message needs to be read alone. A lead-in ending in
":" is not a unit of its own before what it announces: it lives in the
units it introduces, and comes back as a sentence when nothing follows it.

Not units, because they assert nothing: headings (``#`` and setext), lines
written like a title ("Laporan Tahunan Kanal 2026"), anything restating the
chunk's breadcrumb, MDX/HTML container tags (``<Note>``, ``</Sandpack>``),
questions, fragments, and text addressed to a model.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from enum import Enum

from answering.sentences import is_instruction, plain

UNITS_VERSION = "units-v2"

# A code block or quoted message this short is one unit: it is what a
# reader copies whole, and splitting it would quote half a command.
SHORT_BLOCK_LINES = 6
SHORT_BLOCK_CHARS = 400
# A title is short; a longer capitalised line is more likely a sentence.
TITLE_MAX_WORDS = 10
# retrieval.chunking.BREADCRUMB_SEPARATOR, repeated so that splitting text
# into units does not import the chunker (and its HTML and Markdown parsers).
BREADCRUMB_SEPARATOR = " > "


@dataclass(frozen=True)
class Unit:
    text: str  # what a claim quotes
    start: int  # span of the unit's own text in the chunk
    end: int
    kind: str  # sentence | item | row | field | code | quote


class _Role(Enum):
    PROSE = "prose"
    OPEN = "open"  # a fence opening a code block
    CODE = "code"  # a line inside a fenced code block
    CLOSE = "close"  # the fence closing it


@dataclass(frozen=True)
class _Line:
    """A line of the chunk: ``text == chunk[offset:offset + len(text)]``
    always holds (container tags at its ends are cut off, never spliced)."""

    offset: int
    text: str
    role: _Role = _Role.PROSE

    @property
    def blank(self) -> bool:
        return self.role is _Role.PROSE and not self.text.strip()


_LINE = re.compile(r"[^\n]*(?:\n|$)")
_LIST_MARK = re.compile(r"^(\s*)(?:[-*+•]|\d{1,3}[.)])\s+")
_TABLE_ROW = re.compile(r"^\s*\|.*\|\s*$")
_TABLE_RULE = re.compile(r"^\s*\|?\s*:?-{2,}:?\s*(?:\|\s*:?-{2,}:?\s*)*\|?\s*$")
_FENCE = re.compile(r"^\s*(`{3,}|~{3,})(.*)$")
_HEADING = re.compile(r"^\s*#{1,6}\s")
_SETEXT_UNDERLINE = re.compile(r"^\s{0,3}(?:={3,}|-{3,})\s*$")
_QUOTE = re.compile(r"^\s*(?:>\s?)+")
_INDENTED = re.compile(r"^(?: {4}|\t)")
# <Note>, </Intro>, <Note type="warning">, <Callout />, <Sandpack>: MDX and
# HTML containers. A name starting with a letter and then only name
# characters, so autolinks (<https://…>, <a@b.id>) are not tags.
_TAG = r"<(/?)[A-Za-z][\w.:-]*(?:\s+[^<>]*?)?\s*(/?)>"
_TAG_LINE = re.compile(rf"^\s*(?:{_TAG}\s*)+$")
_OPENING_TAGS = re.compile(r"^\s*(?:<[A-Za-z][\w.:-]*(?:\s+[^<>]*?)?\s*/?>\s*)+")
_CLOSING_TAGS = re.compile(r"(?:\s*(?:</[A-Za-z][\w.:-]*\s*>|<[A-Za-z][\w.:-]*(?:\s+[^<>]*?)?\s*/>))+\s*$")
# "Waktu pemutaran: hingga 30 jam", "**Tanggal rilis:** 1 April 2026": a
# short key (at most six words, no sentence end) then a value.
_FIELD = re.compile(r"^\W{0,4}([^:.!?\n]{1,60}?)\W{0,4}:\W{0,4}\s*\S")
# After a closing quote or bracket a sentence ends unless a lower-case
# word carries it on (pesan "Token kedaluwarsa." muncul di layar).
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(“‘À-Ý])|(?<=[.!?][\"'”’)])\s+(?=[^\sa-z])")
_WORDS = re.compile(r"\w+")
_LETTER = re.compile(r"[^\W\d_]")
# A period after these ends no sentence: initials ("P. Kennedy", letters
# only: "kode 3. Sesi" ends one), titles and the abbreviations of
# Indonesian and English prose.
_ABBREVIATION = re.compile(
    r"(?:^|[\s(\"'“])(?:[^\W\d_]|[A-Z][a-z]?|c|ca|dr|drs|ir|prof|hj|jl|jln|no|nr|st|sr|jr|"
    r"mr|mrs|ms|vs|kab|kec|kel|tel|telp|hlm|yth|bpk|sdr|pt|tbk|cv|vol|ed|dkk|et al|e\.g|i\.e)\.$",
    re.I,
)
# "skt. 1534", "thn. 2019": a short lower-case word, a period, a number.
_ABBREVIATED_NUMBER = re.compile(r"(?<![\w])[a-z]{1,4}\.\s+\d")
_INLINE_CODE = re.compile(r"(`+)(.+?)\1")
# Straight quotes pair in order; the length cap keeps a stray quote from
# gluing a whole paragraph into one sentence.
_QUOTATION = re.compile(r"\"[^\"\n]{1,400}\"|“[^”\n]{1,400}”")
# What names the quotation after it as a message shown to a user (pesan
# galat "…", the error "…"): quoted exactly, it is never cut at its periods.
# Other quotations (what someone said) split into sentences as prose does.
_MESSAGE_NOUNS = r"(?:pesan|galat|kesalahan|error|message|peringatan|warning|notifikasi|bertuliskan|berbunyi)"
_NAMES_A_MESSAGE = re.compile(rf"\b{_MESSAGE_NOUNS}\b(?:\W+\w+){{0,3}}\W*$", re.I)
# A blockquote labelled as a message ("> Error 401: …", "> Galat: …"); one
# labelled otherwise ("> **Catatan:** …", "> Status: …") is an admonition:
# prose, split into sentences.
_LABELLED_MESSAGE = re.compile(rf"^\W*{_MESSAGE_NOUNS}\b", re.I)
_KEPT = re.compile("\ue000(\\d+)\ue001")
# Sentence ends, and the clause marks of bylines and datelines ("Oleh Dimas
# Pratama — TeknoWarta, 3 Maret 2026"): a line with them is no title.
_NOT_IN_A_TITLE = re.compile(r"[.!?:]\s*$|[.!?]\s|[,;·|—–]")
# "1.", "2.3", "IV", "b": the enumeration a heading may carry or drop.
_ENUMERATION = re.compile(r"^(?:\d+(?:\s\d+)*|x{0,3}(?:ix|iv|v?i{1,3}|v)|[a-z])\s+")


def units_of(text: str, *, breadcrumb: str = "") -> list[Unit]:
    """The units of a chunk's text, in reading order. ``breadcrumb`` is the
    chunk's title and heading path joined by " > "; a unit that only
    restates it is left out. Callers that number units (the prompt's
    ``D12:r3:p4#2``) must pass the same breadcrumb each time."""
    crumbs = _breadcrumb_forms(breadcrumb)
    return [u for u in _Reader(text).units() if _asserts(u) and not _restates(u, crumbs)]


class _Reader:
    """Reads a chunk's lines once, in order. Paragraph lines wait in
    ``paragraph`` until a blank line or a block ends them; a paragraph whose
    last sentence ends in ":" waits over blank lines (and container tags)
    for the list, table, code or message it announces."""

    def __init__(self, text: str) -> None:
        self.lines = _lines_of(text)
        self.out: list[Unit] = []
        self.paragraph: list[tuple[int, str]] = []
        self.lead_in = ""  # the lead-in the current list's items or table's rows complete
        self.header: list[str] | None = None
        self.announcing_item: int | None = None  # out[i]: an item ending in ":", just read
        self.titles: set[int] = set()  # the lines read as titles

    def units(self) -> list[Unit]:
        index = 0
        while index < len(self.lines):
            index = self._read(index)
        self._flush()
        return self.out

    def _read(self, index: int) -> int:
        """Read the line at ``index`` (and the block it opens); return the
        index of the next line to read."""
        line = self.lines[index]
        if line.blank:
            self.header = None
            if not self._paragraph_announces():
                self._flush()
            return index + 1
        item, self.announcing_item = self.announcing_item, None  # only blank lines may come between
        if line.role is not _Role.PROSE:
            self.header = None
            return self._code_block(index, item)
        if _TABLE_ROW.match(line.text):
            self._table_row(index)
            return index + 1
        self.header = None
        if _HEADING.match(line.text):
            self._end_section()
            return index + 1
        if self._is_setext_heading(index):
            self._end_section()
            return index + 2
        mark = _LIST_MARK.match(line.text)
        if mark:
            self._list_item(line, mark.end())
            return index + 1
        if _QUOTE.match(line.text):
            return self._quote_block(index, item)
        if _INDENTED.match(line.text) and (item is not None or self._paragraph_announces()):
            return self._indented_block(index, item)
        if self._stands_alone(index) and _reads_as_title(line.text):
            self._end_section()  # a title names what follows; it states nothing
            self.titles.add(index)
            return index + 1
        self._prose_line(line.offset, line.text)
        return index + 1

    # --- paragraphs and their lead-ins ------------------------------------------

    def _paragraph_announces(self) -> bool:
        return bool(self.paragraph) and self.paragraph[-1][1].rstrip().endswith(":")

    def _flush(self) -> None:
        self.out.extend(_prose(self.paragraph))
        self.paragraph = []

    def _flush_taking_lead_in(self) -> Unit | None:
        """End the paragraph; its last sentence, when it ends in ":", is
        returned instead of kept: it announces what starts here."""
        units = _prose(self.paragraph)
        lead = units.pop() if units and self._paragraph_announces() else None
        self.out.extend(units)
        self.paragraph = []
        return lead

    def _announcement(self, item: int | None) -> Unit | None:
        """The lead-in of the block starting here, taken out of the units:
        the paragraph's last sentence or the item just read, if it ends in ":"."""
        lead = self._flush_taking_lead_in()
        if lead is None and item is not None and item == len(self.out) - 1:
            lead = self.out.pop()
        return lead

    def _place_block(self, units: list[Unit], lead: Unit | None) -> None:
        """The block's units, or its lead-in back where it was when the block
        gives none: a lead-in never vanishes."""
        units = [u for u in units if _asserts(u)]
        self.out.extend(units or ([lead] if lead else []))

    def _end_section(self) -> None:
        self._flush()
        self.lead_in = ""

    def _prose_line(self, offset: int, body: str) -> None:
        last_offset, last_line = self.paragraph[-1] if self.paragraph else (0, "")
        if self._paragraph_announces() and last_offset + len(last_line) < offset - 1:
            self._flush()  # the lead-in was followed by prose after all
        if not self.paragraph:
            self.lead_in = ""  # new prose: the previous list or table is over
        if (
            _looks_like_field(body.strip())
            and not body.rstrip().endswith(":")
            and (not self.paragraph or self.paragraph[-1][1].rstrip()[-1:] in ".!?")
        ):
            self._flush()  # "Waktu pemutaran: 30 jam" lines stand alone, one fact each
            stripped = body.strip()
            start = offset + body.index(stripped)
            self.out.append(Unit(_rendered(stripped), start, start + len(stripped), "field"))
            return
        self.paragraph.append((offset, body))

    def _stands_alone(self, index: int) -> bool:
        """The line is a paragraph by itself: between blank lines (container
        tags and titles count as blank), or the chunk's first line when the
        next one does not continue its sentence (PDF pages start with their
        title, a long one over two lines)."""
        after = self.lines[index + 1 : index + 2]
        ends_alone = not after or after[0].blank
        if all(line.blank or k in self.titles for k, line in enumerate(self.lines[:index])):
            return ends_alone or not _continues_sentence(after[0].text)
        return index > 0 and (self.lines[index - 1].blank or index - 1 in self.titles) and ends_alone

    def _is_setext_heading(self, index: int) -> bool:
        """A line underlined with === or ---. Not a key-value line: in the
        plain-text renderings of forms and transcripts a --- under it is a
        separator, and the field stays a fact."""
        following = self.lines[index + 1] if index + 1 < len(self.lines) else None
        return (
            not self.paragraph
            and following is not None
            and following.role is _Role.PROSE
            and bool(_SETEXT_UNDERLINE.match(following.text))
            and not _looks_like_field(self.lines[index].text.strip())
        )

    # --- lists and tables -------------------------------------------------------

    def _list_item(self, line: _Line, mark_end: int) -> None:
        lead = self._flush_taking_lead_in()
        if lead is not None:
            self.lead_in = lead.text
        units = _item(line.text, line.offset, mark_end, self.lead_in)
        self.out.extend(units)
        if units and units[-1].text.endswith(":"):
            self.announcing_item = len(self.out) - 1  # "1. Pasang CLI:" may announce a code block

    def _table_row(self, index: int) -> None:
        lead = self._flush_taking_lead_in()
        if lead is not None:
            self.lead_in = lead.text
        line = self.lines[index]
        if _TABLE_RULE.match(line.text):
            return
        cells = _cells(line.text)
        if index == 0 or not _TABLE_ROW.match(self.lines[index - 1].text):
            # The first row heads the table when a rule follows it
            # (Markdown) or more rows do (HTML's rendering has no rule;
            # the chunker repeats the header in front of split pieces).
            following = self.lines[index + 1].text if index + 1 < len(self.lines) else ""
            self.header = cells if _TABLE_ROW.match(following) else None
            if self.header is not None:
                return
        self.out.extend(_row(line.text, line.offset, cells, self.header))

    # --- code and quoted messages -----------------------------------------------

    def _code_block(self, index: int, item: int | None) -> int:
        """A fenced block, or the rest of one the chunk begins inside. Code
        does not end a list: its lead-in still completes the items after it."""
        body_start = index + (self.lines[index].role is _Role.OPEN)
        end = body_start
        while end < len(self.lines) and self.lines[end].role is _Role.CODE:
            end += 1
        lead = self._announcement(item)
        self._place_block(_code_units(self.lines[body_start:end], lead), lead)
        closes = end < len(self.lines) and self.lines[end].role is _Role.CLOSE
        return end + closes

    def _indented_block(self, index: int, item: int | None) -> int:
        """Indented lines a lead-in announces ("Jalankan:" then four spaces
        in): a literal, read like code."""
        end = index
        while (
            end < len(self.lines)
            and not self.lines[end].blank
            and self.lines[end].role is _Role.PROSE
            and _INDENTED.match(self.lines[end].text)
            and not _LIST_MARK.match(self.lines[end].text)
        ):
            end += 1
        lead = self._announcement(item)
        self._place_block(_code_units(self.lines[index:end], lead), lead)
        return end

    def _quote_block(self, index: int, item: int | None) -> int:
        """Consecutive ``>`` lines. A short one that a lead-in announces or
        that is labelled as a message is one unit, quoted whole; any other is
        quoted prose (a note, a status banner), split like a paragraph."""
        end = index
        while end < len(self.lines) and self.lines[end].role is _Role.PROSE and _QUOTE.match(self.lines[end].text):
            end += 1
        bodies = [_unquoted(line) for line in self.lines[index:end]]
        lead = self._announcement(item)
        message = _message(bodies, lead)
        if message is not None and _asserts(message):
            self.out.append(message)
            return end
        if lead is not None:
            self.out.append(lead)
        for offset, body in bodies:
            if body.strip():
                self._prose_line(offset, body)
            else:
                self._flush()  # a bare ">" separates the quote's paragraphs
        self._flush()
        return end


# --- lines ------------------------------------------------------------------------


def _lines_of(text: str) -> list[_Line]:
    """The chunk's lines with their roles. Container tags are dropped: a
    line that is only tags reads as a blank line (a container starts or ends
    a block, it does not glue to its neighbours), and tags at the ends of a
    line are cut off, with a blank line read in their place."""
    raw = [(m.start(), m.group(0).rstrip("\n")) for m in _LINE.finditer(text) if m.group(0)]
    out: list[_Line] = []
    for (offset, line), role in zip(raw, _roles([line for _, line in raw]), strict=True):
        if role is not _Role.PROSE:
            out.append(_Line(offset, line, role))
        elif _TAG_LINE.match(line):
            out.append(_Line(offset, ""))
        else:
            out.extend(_without_container_tags(offset, line))
    return out


def _without_container_tags(offset: int, line: str) -> list[_Line]:
    opening = _OPENING_TAGS.match(line)
    closing = _CLOSING_TAGS.search(line)
    if not opening and not closing:
        return [_Line(offset, line)]
    start = opening.end() if opening else 0
    end = closing.start() if closing and closing.start() >= start else len(line)
    before = [_Line(offset, "")] if opening else []
    after = [_Line(offset + end, "")] if closing else []
    return [*before, _Line(offset + start, line[start:end]), *after]


def _roles(lines: Sequence[str]) -> list[_Role]:
    """Which lines are fences and code. A chunk may begin inside a code
    block the chunker split by lines: then its first fence is a bare one
    without a partner, and closes the lines before it."""
    roles = [_Role.PROSE] * len(lines)
    fences = [i for i, line in enumerate(lines) if _FENCE.match(line)]
    first = 0
    if len(fences) % 2 and not _fence_info(lines[fences[0]]):
        roles[: fences[0]] = [_Role.CODE] * fences[0]
        roles[fences[0]] = _Role.CLOSE
        first = fences[0] + 1
    opener = ""
    for i in range(first, len(lines)):
        fence = _FENCE.match(lines[i])
        if not opener:
            if fence:
                opener, roles[i] = fence.group(1), _Role.OPEN
        elif (
            fence
            and fence.group(1)[0] == opener[0]
            and len(fence.group(1)) >= len(opener)
            and not _fence_info(lines[i])
        ):
            opener, roles[i] = "", _Role.CLOSE
        else:
            roles[i] = _Role.CODE
    return roles


def _fence_info(line: str) -> str:
    fence = _FENCE.match(line)
    return fence.group(2).strip() if fence else ""


def _continues_sentence(line: str) -> bool:
    """The line starts in lower case: the one before it runs on into it."""
    letter = _LETTER.search(line)
    starts_at = len(line) - len(line.lstrip())
    return letter is not None and letter.start() == starts_at and letter.group().islower()


def _reads_as_title(line: str) -> bool:
    """A title ("Laporan Tahunan Kanal 2026", "DAFTAR ISI"): short, no
    sentence punctuation, most words capitalised or all in capitals."""
    shown = _rendered(line)
    words = shown.split()
    if _looks_like_field(shown) or not words or len(words) > TITLE_MAX_WORDS or _NOT_IN_A_TITLE.search(shown):
        return False
    initials = [letter.group() for letter in map(_LETTER.search, words) if letter]
    if not initials:
        return False
    letters = "".join(c for c in shown if c.isalpha())
    return letters.isupper() or sum(i.isupper() for i in initials) * 2 > len(initials)


# --- rendering ------------------------------------------------------------------


def _rendered(source: str) -> str:
    """How a reader sees ``source``: Markdown markup removed and spaces
    collapsed, but inline code verbatim (``plain`` would read the
    ``__`` of `__init__.py` as bold)."""
    kept: list[str] = []

    def keep(match: re.Match[str]) -> str:
        kept.append(match.group(2))
        return f"\ue000{len(kept) - 1}\ue001"

    shown = " ".join(plain(_INLINE_CODE.sub(keep, source)).split())
    return _KEPT.sub(lambda m: kept[int(m.group(1))], shown)


def _announced(lead: Unit | None, text: str) -> str:
    """``text`` after its lead-in: on the lead-in's line, or below it when
    ``text`` has lines of its own (code keeps its line breaks)."""
    if lead is None:
        return text
    separator = "\n" if "\n" in text else " "
    return f"{lead.text.rstrip(':')}:{separator}{text}"


# A cell's own "|" is written `\|` (as the converters and the chunker write
# it): the row is split only at the others, and the cell reads "|" again.
_CELL_BORDER = re.compile(r"(?<!\\)\|")


def _cells(line: str) -> list[str]:
    inner = re.sub(r"^\s*\||(?<!\\)\|\s*$", "", line)
    return [_rendered(c.replace("\\|", "|")) for c in _CELL_BORDER.split(inner)]


def _row(line: str, offset: int, cells: list[str], header: list[str] | None) -> list[Unit]:
    inner = line.strip().strip("|")
    start = offset + line.index(inner.strip())
    end = start + len(inner.strip())
    if not any(cells):
        return []
    if header and len(header) == len(cells):
        named = [f"{h}: {c}" for h, c in zip(header[1:], cells[1:], strict=True) if c]
        text = f"{cells[0]} — {'; '.join(named)}" if named else cells[0]
    else:
        text = "; ".join(c for c in cells if c)
    return [Unit(text, start, end, "row")]


def _item(line: str, offset: int, mark_end: int, lead_in: str) -> list[Unit]:
    body = line[mark_end:].rstrip()
    start = offset + mark_end
    text = _rendered(body)
    if not text:
        return []
    if lead_in:
        text = f"{lead_in.rstrip(':')}: {text}"
    return [Unit(text, start, start + len(body), "item")]


def _looks_like_field(line: str) -> bool:
    match = _FIELD.match(plain(line))
    return bool(match) and len(match.group(1).split()) <= 6


def _code_units(lines: Sequence[_Line], lead: Unit | None) -> list[Unit]:
    """A short block is one unit. A long one is one unit per group of lines
    between blank lines when every group is short (a script's steps), else
    one unit of the first lines of its first group: a unit is something a
    reader can quote, and a hundred-line listing is not; its opening lines
    still let the scorer point at the block, and the span says exactly how
    much was quoted."""
    content = [i for i, line in enumerate(lines) if line.text.strip()]
    if not content:
        return []
    whole = lines[content[0] : content[-1] + 1]
    if _short(_texts(whole)):
        return [_code_unit(whole, lead)]
    groups = _line_groups(whole)
    if len(groups) > 1 and all(_short(_texts(group)) for group in groups):
        return [_code_unit(group, lead) for group in groups]
    first: list[_Line] = []
    for line in groups[0]:
        if not _short(_texts([*first, line])):
            break
        first.append(line)
    return [_code_unit(first, lead)] if first else []


def _line_groups(lines: Sequence[_Line]) -> list[list[_Line]]:
    groups: list[list[_Line]] = [[]]
    for line in lines:
        if line.text.strip():
            groups[-1].append(line)
        elif groups[-1]:
            groups.append([])
    return [g for g in groups if g]


def _short(texts: Sequence[str]) -> bool:
    """Short enough to be quoted whole (``SHORT_BLOCK_LINES``, ``SHORT_BLOCK_CHARS``)."""
    content = [text.strip() for text in texts if text.strip()]
    return len(content) <= SHORT_BLOCK_LINES and sum(len(text) + 1 for text in content) <= SHORT_BLOCK_CHARS


def _texts(lines: Sequence[_Line]) -> list[str]:
    return [line.text for line in lines]


def _code_unit(lines: Sequence[_Line], lead: Unit | None) -> Unit:
    """Code verbatim, line breaks kept: they are its meaning (commands run
    one per line, Python and YAML nest by indentation), and a claim quoting
    a command must paste as it was written. Only the indentation the whole
    block shares (a fence inside a list item) is taken off."""
    indent = min(len(line.text) - len(line.text.lstrip()) for line in lines if line.text.strip())
    code = "\n".join(line.text[indent:].rstrip() for line in lines)
    start = lines[0].offset + min(indent, len(lines[0].text))
    end = lines[-1].offset + len(lines[-1].text.rstrip())
    return Unit(_announced(lead, code), start, end, "code")


def _unquoted(line: _Line) -> tuple[int, str]:
    mark = _QUOTE.match(line.text)
    cut = mark.end() if mark else 0
    return line.offset + cut, line.text[cut:]


def _message(bodies: list[tuple[int, str]], lead: Unit | None) -> Unit | None:
    """A quoted message as one unit: an error message is searched for and
    pasted whole, so it is never cut at its periods."""
    content = [(offset, body) for offset, body in bodies if body.strip()]
    if not content or not _short([body for _, body in content]):
        return None
    if lead is None and not _LABELLED_MESSAGE.match(plain(content[0][1])):
        return None
    first, last = content[0], content[-1]
    start = first[0] + len(first[1]) - len(first[1].lstrip())
    end = last[0] + len(last[1].rstrip())
    shown = _rendered(_with_gaps(content, start, end))
    return Unit(_announced(lead, shown), start, end, "quote")


# --- sentences ------------------------------------------------------------------


def _prose(paragraph: list[tuple[int, str]]) -> list[Unit]:
    """A paragraph's sentences."""
    if not paragraph:
        return []
    return list(_sentences_between(paragraph, paragraph[0][0], paragraph[-1][0] + len(paragraph[-1][1])))


def _with_gaps(pieces: list[tuple[int, str]], start: int, end: int) -> str:
    """The source text of ``pieces`` between ``start`` and ``end`` with the
    exact offsets kept: gaps between them (newlines, quote marks) become
    spaces of the same length."""
    chars = [" "] * (end - start)
    for offset, piece in pieces:
        lo, hi = max(offset, start), min(offset + len(piece), end)
        if lo < hi:
            chars[lo - start : hi - start] = piece[lo - offset : hi - offset]
    return "".join(chars)


def _unsplit(source: str) -> list[tuple[int, int]]:
    """Where no sentence ends: inline code, and a message quoted after what
    names it."""
    code = [m.span() for m in _INLINE_CODE.finditer(source)]
    messages = [
        m.span()
        for m in _QUOTATION.finditer(source)
        if _NAMES_A_MESSAGE.search(source, max(0, m.start() - 80), m.start())
    ]
    return code + messages


def _sentences_between(paragraph: list[tuple[int, str]], start: int, end: int) -> Iterator[Unit]:
    source = _with_gaps(paragraph, start, end)
    unsplit = _unsplit(source)
    cursor = 0
    ends = [
        m.start()
        for m in _SENTENCE_END.finditer(source)
        if not _ABBREVIATION.search(source[: m.start()])
        and not _ABBREVIATED_NUMBER.search(source, m.start() - 6)
        and not any(a < m.start() < b for a, b in unsplit)
    ]
    for boundary in [*ends, len(source)]:
        piece = source[cursor:boundary]
        lead = len(piece) - len(piece.lstrip())
        body = piece.strip()
        if body:
            yield Unit(_rendered(body), start + cursor + lead, start + cursor + lead + len(body), "sentence")
        cursor = boundary


# --- what is not a unit ---------------------------------------------------------


def _asserts(unit: Unit) -> bool:
    words = _WORDS.findall(unit.text)
    if unit.kind == "sentence" and (len(words) < 4 or unit.text.rstrip().endswith("?")):
        return False
    return len(words) >= 2 and not is_instruction(unit.text)


def _normalised(text: str) -> str:
    return " ".join(re.sub(r"[\W_]+", " ", plain(text).lower()).split())


def _unnumbered(text: str) -> str:
    return _ENUMERATION.sub("", text, count=1)


def _breadcrumb_forms(breadcrumb: str) -> set[str]:
    """Every way a unit could restate the breadcrumb: a part ("Instalasi"),
    consecutive parts run together ("Panduan Lintas — Instalasi", as a PDF
    page header prints them), each with or without its number ("2.1")."""
    parts = [_normalised(p) for p in breadcrumb.split(BREADCRUMB_SEPARATOR)]
    parts = [p for p in parts if p]
    forms: set[str] = set()
    for first in range(len(parts)):
        for last in range(first + 1, len(parts) + 1):
            joined = " ".join(parts[first:last])
            forms |= {joined, _unnumbered(joined)}
    forms |= {_unnumbered(p) for p in parts}
    return forms - {""}


def _restates(unit: Unit, crumbs: set[str]) -> bool:
    if not crumbs:
        return False
    said = _normalised(unit.text)
    return said in crumbs or _unnumbered(said) in crumbs
