"""Quantities and dates: numbers with their units and what they measure, dates
and the events they date, and the unit of measure a question asks in."""

from __future__ import annotations

import re
from dataclasses import dataclass

from retrieval.lexical import STOPWORDS

_MONTHS = "januari februari maret april mei juni juli agustus september oktober november desember".split()

_QUANTITY = re.compile(
    r"(?<![\w.,])(\d+(?:[.,]\d+)?)\s*(jam|hari|detik|menit|minggu|bulan|tahun|gb|tb|mb|%|persen)\b", re.I
)

_DATE = re.compile(r"\b(\d{1,2})\s+(" + "|".join(_MONTHS) + r")\s+(\d{4})\b|\b(\d{4})-(\d{2})-(\d{2})\b", re.I)

_WORD = re.compile(r"[A-Za-zÀ-ÿ]{4,}")


@dataclass(frozen=True)
class Mention:
    """A value (``30 jam``, ``2026-05-02``) with the words just before it,
    which say what it measures."""

    kind: str  # "number" | "date"
    unit: str
    value: str
    context: frozenset[str]  # numbers: the attribute measured; dates: the events dated
    text: str


# What a date can be the date of; two dates conflict only for the same event.
_EVENTS = {
    "tersed": "available",
    "berlak": "effective",
    "efekti": "effective",
    "mulai": "effective",
    "rilis": "release",
    "dirili": "release",
    "diluncu": "launch",
    "peluncu": "launch",
    "umum": "available",
    "genera": "available",
}

_SEGMENT_START = re.compile(r"[;|\n]|\s[—–]\s|[.!?]\s")

_KEY = re.compile(r"^\W*([^:]{1,60}):")


def _attribute(text: str, start: int) -> frozenset[str]:
    """What a number measures: the key of its "Key: value" segment (a field,
    a table cell under its header), else the last content words before it in
    its sentence; as 5-letter prefixes, so "pemutaran" and "pemutarannya" agree."""
    segment_start = max((m.end() for m in _SEGMENT_START.finditer(text, 0, start)), default=0)
    before = text[segment_start:start]
    key = _KEY.match(before)
    words = _WORD.findall((key.group(1) if key else before).lower())
    words = [w for w in words if w not in STOPWORDS]
    return frozenset(w[:5] for w in (words if key else words[-3:]))


def same_attribute(a: frozenset[str], b: frozenset[str]) -> bool:
    """Two numbers measure the same thing when their attributes are the same
    words, or the shorter one (two words at least) is inside the longer."""
    small, large = sorted((a, b), key=len)
    return bool(small) and (small == large or (len(small) >= 2 and small <= large))


def _events(text: str, start: int) -> frozenset[str]:
    words = _WORD.findall(text[max(0, start - 80) : start].lower())
    return frozenset(event for w in words[-8:] for prefix, event in _EVENTS.items() if w.startswith(prefix))


def mentions(text: str) -> list[Mention]:
    out = []
    for m in _QUANTITY.finditer(text):
        unit = m.group(2).lower().replace("persen", "%")
        out.append(Mention("number", unit, m.group(1).replace(",", "."), _attribute(text, m.start()), m.group(0)))
    for m in _DATE.finditer(text):
        if m.group(1):
            value = f"{m.group(3)}-{_MONTHS.index(m.group(2).lower()) + 1:02d}-{int(m.group(1)):02d}"
        else:
            value = f"{m.group(4)}-{m.group(5)}-{m.group(6)}"
        out.append(Mention("date", "date", value, _events(text, m.start()), m.group(0)))
    return out


_QUANTITY_QUESTION = re.compile(r"\bberapa\b|\bhow\s+(many|much|long)\b", re.I)


def asks_for_quantity(question: str) -> bool:
    return _QUANTITY_QUESTION.search(question) is not None


# Units of measure a "berapa" question can ask in ("berapa meter", "berapa
# GB"); the answer must be given in it (or its symbol).
_MEASURES = {
    "meter": r"meter|m",
    "kilometer": r"kilometer|km",
    "sentimeter": r"sentimeter|cm",
    "milimeter": r"milimeter|mm",
    "kilogram": r"kilogram|kg",
    "gram": r"gram|g",
    "ton": r"ton",
    "liter": r"liter|l",
    "watt": r"watt|w",
    "volt": r"volt|v",
    "mah": r"mah",
    "inci": r"inci|inch|\"",
    "jam": r"jam",
    "menit": r"menit",
    "detik": r"detik",
    "gb": r"gb",
    "tb": r"tb",
    "mb": r"mb",
    "persen": r"persen|%",
    "milidetik": r"milidetik|ms",
    "mikrodetik": r"mikrodetik|µs|us",
    "hertz": r"hertz|hz",
    "megahertz": r"megahertz|mhz",
    "gigahertz": r"gigahertz|ghz",
    "kbps": r"kbps",
    "mbps": r"mbps",
    "gbps": r"gbps",
    "tops": r"tops",
    "kwh": r"kwh",
    "kilowatt": r"kilowatt|kw",
    "desibel": r"desibel|db",
}

# A price is a quantity too: "berapa harga/biaya/tarif" is answered by an
# amount of money (Rp149.000, 2,5 juta rupiah, USD 20), as "berapa jam" by hours.
_PRICE_WORDS = ("harga", "biaya", "tarif", "ongkos")

_MONEY = re.compile(
    r"(?:(?<!\w)(?:rp|idr|usd|us\$|\$|€)\.?\s?\d|\d\s*(?:rupiah|ribu|juta|miliar|triliun|dolar|dollar)\b)", re.I
)

_MEASURE_QUESTION = re.compile(r"\bberapa\s+(" + "|".join((*_MEASURES, *_PRICE_WORDS)) + r")\b", re.I)

# Each way a unit is written after a number ("%", "g", "ms") and the word
# it stands for; the longest first, so "ms" is read before "m".
_MEASURE_WRITTEN = {
    alt.replace("\\", ""): word for word, alts in reversed(_MEASURES.items()) for alt in alts.split("|")
}

_MEASURE_GIVEN = re.compile(
    r"\d\s*(" + "|".join(re.escape(a) for a in sorted(_MEASURE_WRITTEN, key=len, reverse=True)) + r")(?!\w)", re.I
)


def measure_words(text: str) -> set[str]:
    """The unit words of the numbers ``text`` gives in a unit, however the
    unit is written: "99,9%" gives ‘persen’, "254 g" ‘gram’. A question's
    ‘persen’ is then found in evidence that writes "%", as its ‘jam’ is in
    evidence that writes "jam"."""
    return {_MEASURE_WRITTEN[m.group(1).lower()] for m in _MEASURE_GIVEN.finditer(text)}


def asked_measure(question: str) -> tuple[str, re.Pattern] | None:
    """The unit of measure a "berapa" question asks in, with the pattern of
    a number given in it: ("meter", 10 m / 10 meter); a price asks in money
    ("harga", Rp149.000)."""
    match = _MEASURE_QUESTION.search(question)
    if match is None:
        return None
    word = match.group(1).lower()
    if word in _PRICE_WORDS:
        return word, _MONEY
    return word, re.compile(rf"\d\s*(?:{_MEASURES[word]})(?!\w)", re.I)
