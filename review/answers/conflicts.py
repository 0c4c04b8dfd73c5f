"""Freshness and conflicts among the evidence of one answer.

Superseded evidence is flagged with the revision that serves now. Evidence
from different documents or revisions that disagree — availability status
(private preview vs tersedia untuk semua pelanggan), different numbers for
the same quantity, different dates for the same event — is listed as a
conflict with both dates; the two are never merged into one statement.
"""

from __future__ import annotations

from itertools import combinations

from retrieval.models import Document
from retrieval.search import Hit

from .contract import Claim, Conflict
from .text import STATUS_LABELS, availability, mentions, sentences, stems, without_instructions


def current_revisions(chunks: list[Hit]) -> dict[str, int]:
    """Document key → the number of the revision serving now, for the
    documents of superseded evidence."""
    keys = {h.document for h in chunks if h.superseded}
    if not keys:
        return {}
    return dict(Document.objects.filter(key__in=keys, current_revision__isnull=False)
                .values_list("key", "current_revision__number"))


def _source(hit: Hit) -> str:
    return f"{hit.document} r{hit.revision} ({hit.document_date or 'tanggal tidak diketahui'})"


def statements(chunks: list[Hit], claims: list[Claim], question: str) -> dict[str, str]:
    """What each chunk asserts about the question: the claims citing it, or
    else its sentences sharing the most terms with the question. A chunk is
    judged by what answers the question, not by every aside it holds (an
    article's history paragraph, or text planted to mislead)."""
    cited: dict[str, list[str]] = {}
    for claim in claims:
        for evidence_id in claim.evidence_ids:
            cited.setdefault(evidence_id, []).append(claim.text)
    out = {e: " ".join(texts) for e, texts in cited.items()}
    # A chunk with no sentence (a table, a list of fragments) speaks through
    # its text — less any line addressed to a model, which asserts nothing.
    rest = [(h, sentences(h.text) or [without_instructions(h.text)]) for h in chunks if h.evidence_id not in cited]
    flat = [question] + [s for _, group in rest for s in group]
    question_terms, *terms = stems(flat)
    start = 0
    for hit, group in rest:
        overlaps = [len(question_terms & t) for t in terms[start:start + len(group)]]
        best = max(overlaps)
        out[hit.evidence_id] = " ".join(s for s, o in zip(group, overlaps, strict=True) if o == best)
        start += len(group)
    return out


def conflicts_find(chunks: list[Hit], said: dict[str, str]) -> list[Conflict]:
    """Where the sources (document revisions) disagree.

    Availability status: one conflict listing every stage asserted, each with
    its sources and dates, newest first. Numbers and dates: one conflict per
    pair of sources whose values for the same quantity differ."""
    found: list[Conflict] = []
    by_stage: dict[str, list[Hit]] = {}
    for hit in sorted(chunks, key=lambda h: h.document_date or "", reverse=True):
        stage = availability(said[hit.evidence_id])
        if stage:
            by_stage.setdefault(stage, []).append(hit)
    if len(by_stage) > 1:
        order = sorted(by_stage, key=lambda st: max(h.document_date or "" for h in by_stage[st]), reverse=True)
        found.append(Conflict(
            evidence_ids=[h.evidence_id for st in order for h in by_stage[st]], kind="status",
            note="; ".join(f"{STATUS_LABELS[st]}: " + ", ".join(dict.fromkeys(_source(h) for h in by_stage[st]))
                           for st in order)))

    values = {h.evidence_id: mentions(said[h.evidence_id]) for h in chunks}
    seen: set[tuple] = set()
    for a, b in combinations(chunks, 2):
        pair = tuple(sorted([(a.document, a.revision), (b.document, b.revision)]))
        if pair[0] == pair[1]:
            continue
        newer, older = (a, b) if (a.document_date or "") >= (b.document_date or "") else (b, a)
        conflict = _differing_value(newer, older, values[newer.evidence_id], values[older.evidence_id])
        if conflict and (pair, conflict[0]) not in seen:
            seen.add((pair, conflict[0]))
            found.append(Conflict(evidence_ids=[newer.evidence_id, older.evidence_id], kind=conflict[0],
                                  note=conflict[1]))
    return found


def _differing_value(newer: Hit, older: Hit, new_mentions: list, old_mentions: list) -> tuple[str, str] | None:
    """Same unit, a shared word before it saying what is measured (for dates:
    which event), different value, and neither value found on the other side."""
    new_values = {(m.unit, m.value) for m in new_mentions}
    old_values = {(m.unit, m.value) for m in old_mentions}
    for m in new_mentions:
        for o in old_mentions:
            if (m.unit == o.unit and m.value != o.value and m.context & o.context
                    and (m.unit, m.value) not in old_values and (o.unit, o.value) not in new_values):
                kind = "date" if m.kind == "date" else "number"
                return kind, f"{_source(newer)}: “{m.text}”; {_source(older)}: “{o.text}”"
    return None
