"""The evidence judged by the reader.

The scorer (``scorer.py``) has already cut every context chunk into units
and scored them from features; the reader reads the question with each
chunk (breadcrumb and text, as it was trained) and finds in each its best
span and how far that span stands above "no answer". The units are then
re-scored from what the reader read: the unit holding a chunk's best span
gets that span's calibrated probability, every other unit a small fraction
of it (so claims are drawn from spans, not from words the question shares),
and the evidence's probability of answering is the best span's. The bars
(refuse, answer, support) are the reader's own, from its card.
"""

from __future__ import annotations

from dataclasses import replace

from django.conf import settings

from retrieval.search import Hit

from ..scorer import Scored
from .model import Reader
from .windows import passage_of

# A unit beside the best span of its chunk keeps this share of its probability:
# it orders them after every span-holding unit and keeps them under the support bar.
BESIDE_SPAN = 0.05


def evidence_read(reader: Reader, question: str, chunks: list[Hit], scored: Scored) -> Scored:
    passages, offsets = zip(*(passage_of(h.title, h.heading_path, h.text) for h in chunks), strict=True)
    readings = dict(zip((h.evidence_id for h in chunks), reader.read(question, list(passages)), strict=True))
    shift = dict(zip((h.evidence_id for h in chunks), offsets, strict=True))
    units = []
    for s in scored.units:
        reading = readings[s.hit.evidence_id]
        start, end = reading.start - shift[s.hit.evidence_id], reading.end - shift[s.hit.evidence_id]
        holds = s.unit.start < end and start < s.unit.end or (end <= 0 and s.unit.start == _first(scored, s.hit))
        probability = reading.probability if holds else reading.probability * BESIDE_SPAN
        units.append(replace(s, probability=round(probability, 4)))
    units.sort(key=lambda u: -u.probability)
    best = max(readings.values(), key=lambda r: r.probability, default=None)
    return replace(
        scored,
        units=units,
        answerable=round(best.probability, 4) if best else 0.0,
        reading=round(best.margin, 4) if best else None,
        bars=bars_of(reader),
        judged_by=reader.name,
    )


def bars_of(reader: Reader) -> dict[str, float]:
    """The reader's bars: its card's, each replaced where the settings give one."""
    config = settings.NALARKU_READER
    return {k: float(config[k]) if config.get(k) is not None else v for k, v in reader.bars.items()}


def _first(scored: Scored, hit: Hit) -> int:
    """The start of a chunk's first unit: a span in the breadcrumb is
    claimed by the chunk's first unit."""
    return min((s.unit.start for s in scored.units if s.hit.evidence_id == hit.evidence_id), default=0)
