"""Answer units: the pieces of an evidence chunk that can stand alone as a
quoted claim.

A chunk's text (a verbatim Markdown or plain-text slice, or the chunker's
rendering of HTML with ``-``/``1.`` list marks and ``| a | b |`` table rows)
is split into

- ``sentence``: a sentence of a paragraph;
- ``item``: a list item, rendered after its lead-in ("Syarat cuti: …");
- ``row``: a table row, rendered with its header
  ("ERR_CONN_RESET — Kategori: Jaringan; Arti: Koneksi TCP diputus");
- ``field``: a key–value line ("Waktu pemutaran: hingga 30 jam").

Every unit keeps the exact span ``[start, end)`` of its own text in the chunk
(the desk highlights it); ``text`` is the faithful rendering a claim quotes:
the same words, less Markdown markup, with the lead-in or the header that
the row or item needs to be read alone. Headings, code, questions,
fragments and text addressed to a model are not units: they assert nothing.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from .text import is_instruction, plain

UNITS_VERSION = "units-v1"


@dataclass(frozen=True)
class Unit:
    text: str  # what a claim quotes
    start: int  # span of the unit's own text in the chunk
    end: int
    kind: str  # sentence | item | row | field


_LINE = re.compile(r"[^\n]*(?:\n|$)")
_LIST_MARK = re.compile(r"^(\s*)(?:[-*+•]|\d{1,3}[.)])\s+")
_TABLE_ROW = re.compile(r"^\s*\|.*\|\s*$")
_TABLE_RULE = re.compile(r"^\s*\|?\s*:?-{2,}:?\s*(?:\|\s*:?-{2,}:?\s*)*\|?\s*$")
_FENCE = re.compile(r"^\s*(```|~~~)")
_HEADING = re.compile(r"^\s*#{1,6}\s")
_QUOTE = re.compile(r"^\s*>\s?")
# "Waktu pemutaran: hingga 30 jam", "**Tanggal rilis:** 1 April 2026": a
# short key (at most six words, no sentence end) then a value.
_FIELD = re.compile(r"^\W{0,4}([^:.!?\n]{1,60}?)\W{0,4}:\W{0,4}\s*\S")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(“‘À-Ý])|(?<=[.!?][\"'”’)])\s+")
_WORDS = re.compile(r"\w+")
# A period after these ends no sentence: initials ("P. Kennedy"), titles and
# the abbreviations of Indonesian and English prose.
_ABBREVIATION = re.compile(r"(?:^|[\s(\"'“])(?:\w|[A-Z][a-z]?|c|ca|dr|drs|ir|prof|hj|jl|jln|no|nr|st|sr|jr|mr|mrs|"
                           r"ms|vs|kab|kec|kel|tel|telp|hlm|yth|bpk|sdr|pt|tbk|cv|vol|ed|dkk|et al|e\.g|i\.e)\.$",
                           re.I)
# "skt. 1534", "thn. 2019": a short lower-case word, a period, a number.
_ABBREVIATED_NUMBER = re.compile(r"(?<![\w])[a-z]{1,4}\.\s+\d")


def units_of(text: str) -> list[Unit]:
    """The units of a chunk's text, in reading order."""
    lines = [(m.start(), m.group(0).rstrip("\n")) for m in _LINE.finditer(text) if m.group(0)]
    out: list[Unit] = []
    paragraph: list[tuple[int, str]] = []
    lead_in = ""  # the sentence ending in ":" that the following items or rows complete
    header: list[str] | None = None
    in_code = False

    def flush(structure: bool = False) -> None:
        """End the paragraph; before a list or table, its last sentence
        ending in ":" becomes their lead-in (it asserts nothing alone)."""
        nonlocal paragraph, lead_in
        units = _prose(paragraph)
        if structure and units and paragraph[-1][1].rstrip().endswith(":"):
            lead_in = units.pop().text
        out.extend(units)
        paragraph = []

    for index, (offset, line) in enumerate(lines):
        if _FENCE.match(line) or in_code:
            in_code = in_code != bool(_FENCE.match(line))
            flush()
            continue
        if _TABLE_ROW.match(line):
            flush(structure=True)
            if _TABLE_RULE.match(line):
                continue
            cells = _cells(line)
            if index == 0 or not _TABLE_ROW.match(lines[index - 1][1]):
                # The first row heads the table when a rule follows it
                # (Markdown) or more rows do (HTML's rendering has no rule;
                # the chunker repeats the header in front of split pieces).
                following = lines[index + 1][1] if index + 1 < len(lines) else ""
                header = cells if _TABLE_ROW.match(following) else None
                if header is not None:
                    continue
            out.extend(_row(line, offset, cells, header))
            continue
        header = None
        if not line.strip():
            if not (paragraph and paragraph[-1][1].rstrip().endswith(":")):
                flush()  # a lead-in waits over the blank line for its list or table
            continue
        if _HEADING.match(line):
            flush()
            lead_in = ""
            continue
        mark = _LIST_MARK.match(line)
        if mark:
            flush(structure=True)
            out.extend(_item(line, offset, mark.end(), lead_in))
            continue
        if paragraph and paragraph[-1][1].rstrip().endswith(":") and paragraph[-1][0] + len(paragraph[-1][1]) < offset - 1:
            flush()  # the lead-in was followed by prose after all
        if not paragraph:
            lead_in = ""  # new prose: the previous list or table is over
        quote = _QUOTE.match(line)
        start = offset + (quote.end() if quote else 0)
        body = text[start:offset + len(line)]
        if _looks_like_field(body.strip()) and not body.rstrip().endswith(":") and (
                not paragraph or paragraph[-1][1].rstrip()[-1:] in ".!?"):
            flush()  # "Waktu pemutaran: 30 jam" lines stand alone, one fact each
            out.append(Unit(" ".join(plain(body).split()), start, start + len(body.rstrip()), "field"))
            continue
        paragraph.append((start, body))
    flush()
    return [u for u in out if _asserts(u)]


def _cells(line: str) -> list[str]:
    return [plain(c).strip() for c in line.strip().strip("|").split("|")]


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
    text = plain(body).strip()
    if not text:
        return []
    if lead_in:
        text = f"{lead_in.rstrip(':')}: {text}"
    return [Unit(text, start, start + len(body), "item")]


def _looks_like_field(line: str) -> bool:
    match = _FIELD.match(plain(line))
    return bool(match) and len(match.group(1).split()) <= 6


def _prose(paragraph: list[tuple[int, str]]) -> list[Unit]:
    """A paragraph's sentences."""
    if not paragraph:
        return []
    return list(_sentences_between(paragraph, paragraph[0][0], paragraph[-1][0] + len(paragraph[-1][1])))


def _sentences_between(paragraph: list[tuple[int, str]], start: int, end: int) -> Iterator[Unit]:
    # Rebuild the paragraph's source text with the exact offsets kept: gaps
    # between lines (newlines, quote marks) become spaces of the same length.
    chars = [" "] * (end - start)
    for offset, line in paragraph:
        chars[offset - start:offset - start + len(line)] = line
    source = "".join(chars)
    cursor = 0
    ends = [m.start() for m in _SENTENCE_END.finditer(source)
            if not _ABBREVIATION.search(source[:m.start()]) and not _ABBREVIATED_NUMBER.search(source, m.start() - 6)]
    for boundary in [*ends, len(source)]:
        piece = source[cursor:boundary]
        lead = len(piece) - len(piece.lstrip())
        body = piece.strip()
        if body:
            yield Unit(" ".join(plain(body).split()), start + cursor + lead, start + cursor + lead + len(body),
                       "sentence")
        cursor = boundary


def _asserts(unit: Unit) -> bool:
    words = _WORDS.findall(unit.text)
    if unit.kind == "sentence" and (len(words) < 4 or unit.text.rstrip().endswith("?")):
        return False
    return len(words) >= 2 and not is_instruction(unit.text)
