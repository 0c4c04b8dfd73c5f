"""The evidence judged by the reader.

The scorer (``answerer.py``) has already cut every context chunk into units
and scored them from features; the reader reads the question with each
chunk (breadcrumb and text, as it was trained) and finds in each its best
span and how far that span stands above "no answer". The units are then
re-scored from what the reader read: the unit holding a chunk's best span
gets that span's calibrated probability, and the evidence's probability of
answering is the best span's. The bars (refuse, answer, support, claim) are
the reader's own, from its card.

Every other unit of a chunk gets, with ``unit_spans`` (the default), the
probability of its own best span, decoded from the same reading against
the chunk's no-answer score: where a chunk's best span lands one sentence
off, the sentence that answers can still be a further claim if its own
reading clears the claim bars. Without it, a small fraction of the best
span's. Either way claims are drawn from spans, not from words the
question shares, and the status is the best span's.

A table row or a field is named by its key (the row's first cell, the
field's name): a question naming a code ("Apa arti kode ERR_QX9?") is
answered by the row keyed by that code. The reader, a small model, tells
codes that differ in one digit apart poorly and can put its span in the
sibling row ("ERR_QX8 — Kuota penuh"); where its span lies in a row or
field without the question's code and another of the chunk's units of the
same kind has the code as its key, that unit is read on its own and its
reading stands for the chunk. A code in a value cell ("Nomor model —
Nilai: LX-700BT") names the table's subject, not a row: no move.
"""

from __future__ import annotations

import math
from dataclasses import replace

from django.conf import settings

from answering.answerer import Scored, ScoredUnit
from answering.facts import fact_present, identifiers
from answering.reader.model import Reader, Reading
from answering.reader.windows import passage_of
from retrieval.hits import Hit

# A unit beside the best span of its chunk keeps this share of its probability:
# it orders them after every span-holding unit and keeps them under the support bar.
BESIDE_SPAN = 0.05
# Units named by a key the question can name (a code, a version, a flag).
KEYED = ("row", "field")


def evidence_read(
    reader: Reader, question: str, chunks: list[Hit], scored: Scored, *, unit_spans: bool = False
) -> Scored:
    passages, offsets = zip(*(passage_of(h.title, h.heading_path, h.text) for h in chunks), strict=True)
    readings = dict(zip((h.evidence_id for h in chunks), reader.read(question, list(passages)), strict=True))
    shift = dict(zip((h.evidence_id for h in chunks), offsets, strict=True))
    holding = {h.evidence_id: _holding(scored, h, readings[h.evidence_id], shift[h.evidence_id]) for h in chunks}
    codes = identifiers(question)
    moved = set()  # chunks read again as one keyed unit: their reading is that unit's
    for hit in chunks if codes else []:
        keyed = _keyed_instead(scored, hit, holding[hit.evidence_id], codes)
        if keyed is not None:
            passage, _ = passage_of(hit.title, hit.heading_path, keyed.unit.text)
            readings[hit.evidence_id] = reader.read(question, [passage])[0]
            holding[hit.evidence_id] = keyed
            moved.add(hit.evidence_id)
    units = []
    for s in scored.units:
        key = s.hit.evidence_id
        reading = readings[key]
        if s is holding[key]:
            probability = reading.probability
        elif unit_spans and key not in moved:
            start = s.unit.start + shift[key]
            probability = reader.probability_within(reading, start, s.unit.end + shift[key])
        else:
            probability = reading.probability * BESIDE_SPAN
        units.append(replace(s, probability=round(probability, 4)))
    units.sort(key=lambda u: -u.probability)
    best = max(readings.values(), key=lambda r: r.probability, default=None)
    answerable = best.probability if best else 0.0
    if reader.combiner:
        answerable = combined(reader.combiner, answerable, scored.answerable)
    return replace(
        scored,
        units=units,
        answerable=round(answerable, 4),
        reading=round(best.margin, 4) if best else None,
        bars=bars_of(reader),
        judged_by=reader.name,
        prior=scored,
    )


def _keyed_instead(scored: Scored, hit: Hit, held: ScoredUnit | None, codes: set[str]) -> ScoredUnit | None:
    """The unit of ``hit`` of the held unit's kind keyed by a code of the
    question, when the held one (a row or field) holds none of them."""
    if held is None or held.unit.kind not in KEYED or _holds(held.unit.text, codes):
        return None
    return next(
        (
            s
            for s in scored.units
            if s.hit.evidence_id == hit.evidence_id and s.unit.kind == held.unit.kind and _holds(_key(s), codes)
        ),
        None,
    )


def _key(unit: ScoredUnit) -> str:
    """A row's first cell (``units._row`` writes "key — column: value; …"
    or "key; value; …"), a field's name."""
    text = unit.unit.text
    if unit.unit.kind == "field":
        return text.split(":", 1)[0]
    return text.split(" — ", 1)[0] if " — " in text else text.split("; ", 1)[0]


def _holds(text: str, codes: set[str]) -> bool:
    return any(fact_present(code, text) for code in codes)


def logit(p: float | None) -> float:
    p = min(max(p or 0.0, 1e-4), 1 - 1e-4)
    return math.log(p / (1 - p))


def combined(combiner: dict, reader_p: float | None, scorer_p: float | None) -> float:
    """The reader's probability that the evidence answers, combined with the
    scorer's (answerer-v6, which judged the same units first): a logistic
    regression on both log-odds, fitted end to end on the tuning sets
    (``bench/reader_bars.py --combine``). The reader reads the spans; the
    scorer's features know the archive's names, codes and answer types."""
    z = combiner["reader"] * logit(reader_p) + combiner["scorer"] * logit(scorer_p) + combiner["bias"]
    return 1.0 / (1.0 + math.exp(-max(min(z, 50.0), -50.0)))


def bars_of(reader: Reader) -> dict[str, float]:
    """The reader's bars: its card's, each replaced where the settings give one."""
    config = settings.NALARKU_READER
    bars = {k: float(config[k]) if config.get(k) is not None else v for k, v in reader.bars.items()}
    for key in ("claim_min", "claim_ratio"):
        if config.get(key) is not None:
            bars[key] = float(config[key])
    return bars


def _holding(scored: Scored, hit: Hit, reading: Reading, shift: int) -> ScoredUnit | None:
    """The unit of ``hit`` that quotes the reader's span: one whose text
    holds the span's text (a list item read with its lead-in repeats the
    lead-in: the item that holds the span, not its neighbour), else the one
    its span overlaps most; a span in the breadcrumb goes to the first unit."""
    own = [s for s in scored.units if s.hit.evidence_id == hit.evidence_id]
    if not own:
        return None
    start, end = reading.start - shift, reading.end - shift
    said = hit.text[max(start, 0) : max(end, 0)].strip()

    def fit(s: ScoredUnit) -> tuple[bool, int, int]:
        overlap = min(end, s.unit.end) - max(start, s.unit.start)
        return bool(said) and said in s.unit.text, overlap, -s.unit.start

    best = max(own, key=fit)
    return best if end > 0 else min(own, key=lambda s: s.unit.start)
