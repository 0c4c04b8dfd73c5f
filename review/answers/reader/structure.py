"""Questions made from an archive's own structure: the in-domain reading
no public set has.

A table row answers "what is <column> for <row key>?" with its cell, and a
key–value line ("Batas waktu: 30 detik") answers "what is <key>?" with its
value. Each is asked the ways editors ask (a question in Indonesian, a
search-box keyword, English), and near misses are made the way IDK-MRC
made its own, in the archive's terms: the same question about a row key of
another table, or about the key with its number changed (another version,
another code), asked of a passage that does not hold it.
"""

from __future__ import annotations

import random
import re

from .examples import Example, Page

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
    pages: list[Page], source: str, *, per_passage: int = 6, seed: int = 0, weight: float = 1.0
) -> list[Example]:
    """Answered examples from each passage's table cells and key-value
    lines, and about half as many near misses."""
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
    return out
