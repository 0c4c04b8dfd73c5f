"""Questions made from an archive's own structure: the in-domain reading
no public set has.

A table row answers "what is <column> for <row key>?" with its cell, and a
key–value line ("Batas waktu: 30 detik") answers "what is <key>?" with its
value. Each is asked the ways editors ask (a question in Indonesian, a
search-box keyword, English), and near misses are made the way IDK-MRC
made its own, in the archive's terms: the same question about a row key of
another table, or about the key with its number changed (another version,
another code), asked of a passage that does not hold it.

What a lead-in announces is asked by that lead-in: a code block (a
command, an output, a manifest) or a list, as the answer units see them
(``units.py``: the lead-in is the sentence ending in ":" before it).
The question is the lead-in with some of its words left out (an editor
never repeats the page's sentence whole) and the answer the block's first
line or the list's first item; its near miss is the same question asked of
another document's passage that announces a block of the same kind.

A sentence that denies ("… tidak didukung oleh Kubernetes") answers the
yes/no question made by taking its negation out ("Apakah … didukung oleh
Kubernetes?"), with the negation and the word it governs as the span, the
way an editor's yes/no question is answered by the sentence that says no.
"""

from __future__ import annotations

import random
import re

from answering.units import units_of
from training.reader.examples import Example, Page

_MARKUP = re.compile(r"[`*_]+")
_KEY_VALUE = re.compile(r"^[ \t]*(?:[-*][ \t]+)?\**([A-Za-zÀ-ÿ][^:\n|*]{1,40}?)\**[ \t]*:[ \t]+(\S[^\n]{0,80})$", re.M)
_NUMBER = re.compile(r"\d+")

_TEMPLATES = (
    ("{ask} {column} untuk {key}?", "id"),
    ("{key} {column}", "keyword"),
    ("What is the {column} for {key}?", "en"),
    ("Di dokumentasi, {column} {key} itu {ask_tail}?", "frame"),
)


def _clean(cell: str) -> str:
    return _MARKUP.sub("", cell).strip()


def _ask(value: str) -> tuple[str, str]:
    return ("Berapa", "berapa") if any(c.isdigit() for c in value) else ("Apa", "apa")


def _table_facts(passage: str) -> list[tuple[str, str, int, int]]:
    """(row key, column, value start, value end) for each cell of each
    pipe table in ``passage`` (its first column the rows' keys)."""
    facts = []
    header: list[str] | None = None
    at = 0
    for line in passage.splitlines(keepends=True):
        start, stripped = at, line.strip()
        at += len(line)
        if "|" not in stripped:
            header = None
            continue
        cells = stripped.strip("|").split("|")
        if header is None:
            header = [_clean(c) for c in cells]
            continue
        if set(stripped) <= set("|-: "):
            continue
        key = _clean(cells[0])
        if not key:
            continue
        cursor = start + line.index(cells[0]) + len(cells[0]) if cells[0] in line else start
        for column, cell in zip(header[1:], cells[1:], strict=False):
            value = cell.strip()
            found = passage.find(value, cursor) if value else -1
            if found < 0 or not column or len(value) > 80:
                continue
            cursor = found + len(value)
            facts.append((key, column, found, found + len(value)))
    return facts


def _key_values(passage: str) -> list[tuple[str, str, int, int]]:
    return [(m.group(1).strip(), "", m.start(2), m.end(2)) for m in _KEY_VALUE.finditer(passage)]


def _question(key: str, column: str, value: str, style: int) -> str:
    ask, tail = _ask(value)
    if not column:  # a key-value line
        return ("{ask} {key}?", "{key}", "What is {key}?", "{key} itu {tail}?")[style].format(
            ask=ask, key=key, tail=tail
        )
    template = _TEMPLATES[style][0]
    return template.format(ask=ask, column=column.lower(), key=key, ask_tail=tail)


# How an announced block or list is asked: Indonesian, a keyword, English, a frame.
_ANNOUNCED = {
    "code": ("Apa persisnya {gist}?", "{gist}", "What exactly is written for: {gist}?", "{gist}, persisnya bagaimana?"),
    "item": ("{gist} apa saja?", "{gist}", "What are the items of: {gist}?", "Sebutkan {gist}."),
}
# A shorter lead-in ("Keluaran:", "Isinya seperti ini:") says too little to be asked by.
_LEAD_MIN_WORDS = 4
# The share of a lead-in's words an announced question keeps.
_KEEP_WORDS = 0.7


def _announced_facts(passage: str, at: int) -> list[tuple[str, str, int, int]]:
    """(lead-in, kind, answer start, answer end) for each code block and
    the first item of each list that a lead-in announces in a chunk's text
    (``passage[at:]``): the block's first line, the item's text."""
    text = passage[at:]
    facts, seen = [], set()
    for unit in units_of(text):
        if unit.kind not in _ANNOUNCED:
            continue
        own = text[unit.start : unit.end]
        first = next((line.strip() for line in own.splitlines() if line.strip()), "")
        lead_end = unit.text.find(first) if first else -1
        lead = _clean(unit.text[:lead_end]).rstrip(": \n") if lead_end > 0 else ""
        if len(lead.split()) < _LEAD_MIN_WORDS or lead in seen or len(first) > 200:
            continue
        seen.add(lead)
        start = at + unit.start + own.index(first)
        facts.append((lead, unit.kind, start, start + len(first)))
    return facts


# Indonesian negation (grammar, not a domain's words) and the word it governs.
_NEGATION = re.compile(r"\b(?:tidak|bukan|belum)\s+(?:akan\s+|dapat\s+|bisa\s+|boleh\s+|perlu\s+)?[^\W\d_]+", re.I)
_YES_NO = ("Apakah {claim}?", "Benarkah {claim}?", "{claim}, ya atau tidak?", "Apa benar {claim}?")


def _denials(passage: str, at: int) -> list[tuple[str, int, int]]:
    """(yes/no question, span start, span end) for each sentence of a chunk's
    text (``passage[at:]``) that denies once."""
    text = passage[at:]
    out = []
    for unit in units_of(text):
        if unit.kind != "sentence" or not 6 <= len(unit.text.split()) <= 40:
            continue
        said = text[unit.start : unit.end]
        found = list(_NEGATION.finditer(said))
        rendered = list(_NEGATION.finditer(unit.text))
        if len(found) != 1 or len(rendered) != 1:
            continue
        m, r = found[0], rendered[0]
        claim = (unit.text[: r.start()] + unit.text[r.start() :].split(None, 1)[1]).strip().rstrip(".")
        claim = _clean(claim[:1].lower() + claim[1:])
        out.append((claim, at + unit.start + m.start(), at + unit.start + m.end()))
    return out


def _denial_examples(
    pages: list[Page], source: str, rng: random.Random, weight: float, per_passage: int
) -> list[Example]:
    everywhere = [(page.document, passage) for page in pages for passage in page.passages]
    out = []
    for page in pages:
        for chunk, passage in zip(page.chunks, page.passages, strict=True):
            found = _denials(passage, len(passage) - len(chunk.text))
            rng.shuffle(found)
            for claim, start, end in found[: max(1, per_passage // 3)]:
                question = _YES_NO[rng.randrange(len(_YES_NO))].format(claim=claim)
                out.append(Example(question, passage, (start, end), source, weight))
                elsewhere = [p for doc, p in everywhere if doc != page.document]
                if elsewhere and rng.random() < 0.3:
                    out.append(Example(question, rng.choice(elsewhere), None, source, weight))
    return out


def _gist(lead: str, rng: random.Random) -> str:
    words = lead.split()
    kept = [w for w in words if rng.random() < _KEEP_WORDS] if len(words) > 4 else words
    return " ".join(kept or words).strip(" ,.:")


def _announced_examples(
    pages: list[Page], source: str, rng: random.Random, weight: float, per_passage: int
) -> list[Example]:
    facts = [
        [_announced_facts(passage, len(passage) - len(page.chunks[i].text)) for i, passage in enumerate(page.passages)]
        for page in pages
    ]
    by_kind: dict[str, list[tuple[str, str]]] = {}
    for page, found in zip(pages, facts, strict=True):
        for passage, held in zip(page.passages, found, strict=True):
            for kind in {kind for _, kind, *_ in held}:
                by_kind.setdefault(kind, []).append((page.document, passage))
    out = []
    for page, found in zip(pages, facts, strict=True):
        for passage, held in zip(page.passages, found, strict=True):
            for lead, kind, start, end in held[:per_passage]:
                style = rng.randrange(4)
                question = _ANNOUNCED[kind][style].format(gist=_gist(lead, rng))
                out.append(Example(question, passage, (start, end), source, weight))
                elsewhere = [p for doc, p in by_kind.get(kind, []) if doc != page.document]
                if elsewhere and rng.random() < 0.5:
                    out.append(Example(question, rng.choice(elsewhere), None, source, weight))
    return out


def _changed_number(key: str, rng: random.Random) -> str | None:
    numbers = list(_NUMBER.finditer(key))
    if not numbers:
        return None
    m = rng.choice(numbers)
    value = int(m.group())
    other = value + rng.choice([1, 2, 3, 5, 7]) * rng.choice([-1, 1])
    if other < 0 or other == value:
        other = value + 1
    return key[: m.start()] + str(other).zfill(len(m.group())) + key[m.end() :]


def structure_examples(
    pages: list[Page],
    source: str,
    *,
    per_passage: int = 6,
    seed: int = 0,
    weight: float = 1.0,
    announced: bool = True,
    denials: bool = True,
) -> list[Example]:
    """Answered examples from each passage's table cells, key-value lines,
    announced blocks and lists and denying sentences, and near misses."""
    rng = random.Random(seed)
    keys_elsewhere = {
        (p.document, i): [k for k, *_ in _table_facts(passage) + _key_values(passage)]
        for p in pages
        for i, passage in enumerate(p.passages)
    }
    out = []
    for page in pages:
        for passage in page.passages:
            facts = _table_facts(passage) + _key_values(passage)
            rng.shuffle(facts)
            for key, column, start, end in facts[:per_passage]:
                value = passage[start:end]
                style = rng.randrange(4)
                out.append(Example(_question(key, column, value, style), passage, (start, end), source, weight))
                if rng.random() < 0.5:
                    continue
                other = _changed_number(key, rng)
                if other is None or other in passage:
                    others = [
                        k
                        for (doc, _), ks in keys_elsewhere.items()
                        if doc != page.document
                        for k in ks
                        if k not in passage
                    ]
                    other = rng.choice(others) if others else None
                if other and other not in passage:
                    out.append(Example(_question(other, column, value, style), passage, None, source, weight))
    if announced:
        out += _announced_examples(pages, source, rng, weight, per_passage)
    if denials:
        out += _denial_examples(pages, source, rng, weight, per_passage)
    return out
