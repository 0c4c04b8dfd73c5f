"""Freshness and conflicts among the evidence of one answer.

Superseded evidence is flagged with the revision that serves now. Evidence
from different documents or revisions that disagree is listed as a conflict
with both sides' source types and dates, saying which is newer and which
more authoritative; the two are never merged into one statement:

- availability status (private preview vs tersedia untuk semua pelanggan);
- numbers: the same quantity of the same subject only — the same unit, the
  same attribute (the key of a field or table cell, or the words just before
  the number: "waktu pemutaran 30 jam" and "waktu bicara 20 jam" are two
  quantities, not a conflict) and no two different identifiers
  (KR-220X vs KR-230) as subjects;
- dates of the same event;
- the meaning of the same code asked about (``LD-4031`` "token perangkat
  dicabut" in one source, "kuota penuh" in another): definitions sharing
  no words, a meaning the source itself marks as past ("sebelumnya …")
  left out.
"""

from __future__ import annotations

import re
from itertools import combinations

from retrieval import source_types
from retrieval.models import Document
from retrieval.search import Hit

from .contract import Claim, Conflict
from .scorer import Scored, hit_units, thresholds
from .text import (
    STATUS_LABELS,
    availability,
    fact_present,
    facts,
    mentions,
    same_attribute,
    stems,
    without_instructions,
)


def current_revisions(chunks: list[Hit]) -> dict[str, int]:
    """Document key → the number of the revision serving now, for the
    documents of superseded evidence."""
    keys = {h.document for h in chunks if h.superseded}
    if not keys:
        return {}
    return dict(Document.objects.filter(key__in=keys, current_revision__isnull=False)
                .values_list("key", "current_revision__number"))


def _source(hit: Hit) -> str:
    return (f"{hit.document} r{hit.revision} ({source_types.label(hit.source_type).lower()}, "
            f"{hit.document_date or 'tanggal tidak diketahui'})")


def _authority(hit: Hit) -> int:
    return source_types.authority(hit.source_type)


def _weighing(hits: list[Hit]) -> str:
    """Which side is newer and which more authoritative, said plainly."""
    newest = max(hits, key=lambda h: h.document_date or "")
    strongest = min(hits, key=_authority)
    others = [h for h in hits if (h.document, h.revision) != (newest.document, newest.revision)]
    if not others:
        return ""
    if (newest.document, newest.revision) == (strongest.document, strongest.revision) or \
            _authority(newest) == _authority(strongest):
        return f"{_source(newest)} lebih baru dari {', '.join(dict.fromkeys(_source(h) for h in others))}"
    return (f"{_source(newest)} lebih baru; {_source(strongest)} lebih berwenang "
            f"({source_types.label(strongest.source_type).lower()})")


# The units a claim could have been made of: the generator's candidates
# (review.answers.generators.ExtractiveGenerator's claim ratio and claims).
CANDIDATES = 5
CANDIDATE_RATIO = 0.15


def statements(chunks: list[Hit], claims: list[Claim], question: str, scored: Scored | None = None) -> dict[str, str]:
    """What each chunk asserts about the question: the claims citing it, or
    else the units that answer the question — by the scorer, those at least
    half as likely as the best unit and above the support bar, and the
    runners-up a claim could have been made of (``CANDIDATES`` most probable,
    ``CANDIDATE_RATIO`` × the best): the other side of a disagreement scores
    lower than the side it contradicts, and must still be heard; without the
    scorer, the sentences sharing the most terms with the question. A chunk
    is judged by what answers the question, not by every aside it holds (a
    release note's preview history under a question about webhooks, or text
    planted to mislead); a chunk with no answering unit asserts nothing."""
    cited: dict[str, list[str]] = {}
    for claim in claims:
        for evidence_id in claim.evidence_ids:
            cited.setdefault(evidence_id, []).append(claim.text)
    out = {e: " ".join(texts) for e, texts in cited.items()}
    if scored is not None:
        bar = max(scored.best * 0.5, thresholds()["support_min"])
        for rank, unit in enumerate(scored.units):
            runner_up = rank < CANDIDATES and unit.probability >= scored.best * CANDIDATE_RATIO
            if unit.hit.evidence_id not in cited and (unit.probability >= bar or runner_up):
                out[unit.hit.evidence_id] = f"{out.get(unit.hit.evidence_id, '')} {unit.unit.text}".strip()
        return {h.evidence_id: out.get(h.evidence_id, "") for h in chunks}
    # A chunk with no sentence (a table, a list of fragments) speaks through
    # its text — less any line addressed to a model, which asserts nothing.
    rest = [(h, [u.text for u in hit_units(h)] or [without_instructions(h.text)])
            for h in chunks if h.evidence_id not in cited]
    flat = [question] + [s for _, group in rest for s in group]
    question_terms, *terms = stems(flat)
    start = 0
    for hit, group in rest:
        overlaps = [len(question_terms & t) for t in terms[start:start + len(group)]]
        best = max(overlaps)
        out[hit.evidence_id] = " ".join(s for s, o in zip(group, overlaps, strict=True) if o == best)
        start += len(group)
    return out


def conflicts_find(chunks: list[Hit], said: dict[str, str],
                   stages_said: dict[str, str] | None = None, codes: set[str] | None = None,
                   codes_said: dict[str, str] | None = None) -> list[Conflict]:
    """Where the sources (document revisions) disagree.

    Availability status, read from ``stages_said`` (None: the question does
    not ask about availability, and no stage conflict is raised): one
    conflict listing every stage asserted, each with its sources and dates,
    newest first. Numbers and dates, read from ``said``: one conflict per
    pair of sources whose values for the same quantity differ. Meanings of
    the ``codes`` the question asks about, read from ``codes_said`` (else
    ``said``): one conflict per pair of sources that define a code differently."""
    found: list[Conflict] = []
    by_stage: dict[str, list[Hit]] = {}
    for hit in sorted(chunks, key=lambda h: h.document_date or "", reverse=True) if stages_said else []:
        stage = availability(stages_said[hit.evidence_id])
        if stage:
            by_stage.setdefault(stage, []).append(hit)
    if len(by_stage) > 1:
        order = sorted(by_stage, key=lambda st: max(h.document_date or "" for h in by_stage[st]), reverse=True)
        sides = "; ".join(f"{STATUS_LABELS[st]}: " + ", ".join(dict.fromkeys(_source(h) for h in by_stage[st]))
                          for st in order)
        weighing = _weighing([h for st in order for h in by_stage[st]])
        found.append(Conflict(
            evidence_ids=[h.evidence_id for st in order for h in by_stage[st]], kind="status",
            note=f"{sides}. {weighing}." if weighing else sides,
            sides=[[h.evidence_id for h in by_stage[st]] for st in order],
            values={h.evidence_id: st for st in order for h in by_stage[st]}))

    values = {h.evidence_id: mentions(said[h.evidence_id]) for h in chunks}
    seen: set[tuple] = set()
    for a, b in combinations(chunks, 2):
        pair = tuple(sorted([(a.document, a.revision), (b.document, b.revision)]))
        if pair[0] == pair[1]:
            continue
        newer, older = (a, b) if (a.document_date or "") >= (b.document_date or "") else (b, a)
        if _different_subjects(newer, older, said):
            continue
        conflict = _differing_value(newer, older, values[newer.evidence_id], values[older.evidence_id])
        if conflict and (pair, conflict[0]) not in seen:
            seen.add((pair, conflict[0]))
            kind, note, new_value, old_value = conflict
            found.append(Conflict(evidence_ids=[newer.evidence_id, older.evidence_id], kind=kind, note=note,
                                  sides=[[newer.evidence_id], [older.evidence_id]],
                                  values={newer.evidence_id: new_value, older.evidence_id: old_value}))
    if codes:
        found += _meaning_conflicts(chunks, codes_said or said, codes)
    return found


# What defines a code: "LD-4031 berarti …", "…, artinya …", or the meaning
# column of an error table's row read with its header ("LD-4031 — Kategori:
# Kuota; Arti: …": the category is not the meaning).
_DEFINES = re.compile(r"\b(?:berarti|artinya|arti|bermakna|bermaksud|maksudnya|menandakan|means|indicates)\b"
                      r"(?:\s+\w+)?\s*[:,]?\s+(?P<meaning>\w+\s+\w+.*)", re.I)
_ROW = re.compile(r"^\S+ — ")
_MEANING_KEY = re.compile(r"^\W*(arti|makna|keterangan|deskripsi|penjelasan|meaning|description)\b", re.I)
# A meaning the source itself gives as the past one ("Sebelumnya LD-4031
# berarti …") is history, not a disagreement.
_PAST = re.compile(r"\b(sebelumnya|semula|dahulu|dulu|dulunya|previously|formerly|used\s+to)\b", re.I)
_SEGMENT = re.compile(r"(?<=[.!?])\s+|\n+")


def _meanings(text: str, code: str) -> list[str]:
    """What ``text`` says ``code`` means, one text per definition."""
    out = []
    for segment in _SEGMENT.split(text):
        if not fact_present(code, segment) or _PAST.search(segment):
            continue
        if _ROW.match(segment):
            cells = [c.split(":", 1) for c in segment.split(" — ", 1)[1].split("; ")]
            out += [value.strip() for key, *rest in cells for value in rest if _MEANING_KEY.match(key)]
        elif (match := _DEFINES.search(segment)) is not None:
            out.append(match.group("meaning").strip())
    return [m for m in out if m]


def _meaning_conflicts(chunks: list[Hit], said: dict[str, str], codes: set[str]) -> list[Conflict]:
    """Pairs of sources whose definitions of a code share hardly a content
    word (beyond the code and the words of defining; under a third of the
    shorter one's): one says it means one thing, the other another."""
    found: list[Conflict] = []
    for code in sorted(codes):
        defined = {h.evidence_id: _meanings(said[h.evidence_id], code) for h in chunks}
        flat = [m for ms in defined.values() for m in ms]
        if len(flat) < 2:
            continue
        code_stems, *flat_stems = stems([code, *flat])  # one round trip
        terms = dict(zip(flat, flat_stems, strict=True))
        cue = {code, *code_stems, "arti", "ber", "kode", "error"}
        seen: set[tuple] = set()
        for a, b in combinations(chunks, 2):
            pair = tuple(sorted([(a.document, a.revision), (b.document, b.revision)]))
            if pair[0] == pair[1] or pair in seen or not defined[a.evidence_id] or not defined[b.evidence_id]:
                continue
            overlaps = [_overlap(terms[x] - cue, terms[y] - cue)
                        for x in defined[a.evidence_id] for y in defined[b.evidence_id]]
            if max(overlaps) >= 1 / 3:
                continue  # they share a meaning: a short gloss and a long definition agree
            seen.add(pair)
            newer, older = (a, b) if (a.document_date or "") >= (b.document_date or "") else (b, a)
            found.append(Conflict(
                evidence_ids=[newer.evidence_id, older.evidence_id], kind="meaning",
                note=(f"{code.upper()}: {_source(newer)}: “{defined[newer.evidence_id][0]}”; "
                      f"{_source(older)}: “{defined[older.evidence_id][0]}”. {_weighing([newer, older])}."),
                sides=[[newer.evidence_id], [older.evidence_id]],
                values={newer.evidence_id: defined[newer.evidence_id][0], older.evidence_id: defined[older.evidence_id][0]}))
    return found


def _overlap(a: set[str], b: set[str]) -> float:
    """Share of the shorter definition's words that the other one uses."""
    return len(a & b) / max(min(len(a), len(b)), 1)


def conflict_sides_claimed(claims: list[Claim], conflicts: list[Conflict], scored: Scored) -> list[Claim]:
    """``claims`` with one claim for each side of a conflict that no claim
    cites: the most probable unit of that side that says what the side
    says (its stage, its value, its definition), flagged ``conflict`` (and
    ``weak_support`` below the support bar), so an editor sees both sides
    as claims, not one claim and a note."""
    cited = {e for claim in claims for e in claim.evidence_ids}
    out = list(claims)
    bar = thresholds()["support_min"]
    for conflict in conflicts:
        for side in conflict.sides or [[e] for e in conflict.evidence_ids]:
            if cited & set(side):
                continue
            units = [u for u in scored.units if u.hit.evidence_id in side]  # most probable first
            unit = next((u for u in units if _says(u.unit.text, conflict.kind, conflict.values.get(u.hit.evidence_id))),
                        units[0] if units else None)
            if unit is None:
                continue
            out.append(Claim(text=unit.unit.text, evidence_ids=[unit.hit.evidence_id],
                             flags=["conflict"] + (["weak_support"] if unit.probability < bar else []),
                             spans={unit.hit.evidence_id: [unit.unit.start, unit.unit.end]}, score=unit.probability))
            cited |= set(side)
    return out


def _says(text: str, kind: str, value: str | None) -> bool:
    """``text`` asserts ``value``, the side's stage, value or definition."""
    if not value:
        return False
    if kind == "status":
        return availability(text) == value
    if kind == "meaning":
        return value.lower()[:60] in text.lower() or text.lower() in value.lower()
    return value.lower() in text.lower()


def _identifiers(text: str) -> set[str]:
    return {f for f in facts(text) if any(c.isalpha() for c in f) and any(c.isdigit() or c in "_-" for c in f)}


def _different_subjects(a: Hit, b: Hit, said: dict[str, str]) -> bool:
    """Both sides name products or codes, and none in common: their numbers
    are about different things."""
    first = _identifiers(f"{a.title} {said[a.evidence_id]}")
    second = _identifiers(f"{b.title} {said[b.evidence_id]}")
    return bool(first and second and not first & second)


def _differing_value(newer: Hit, older: Hit, new_mentions: list,
                     old_mentions: list) -> tuple[str, str, str, str] | None:
    """Same unit, the same attribute measured (for dates: the same event),
    different value, and neither value found on the other side."""
    new_values = {(m.unit, m.value) for m in new_mentions}
    old_values = {(m.unit, m.value) for m in old_mentions}
    for m in new_mentions:
        for o in old_mentions:
            same = m.context & o.context if m.kind == "date" else same_attribute(m.context, o.context)
            if (m.unit == o.unit and m.value != o.value and same
                    and (m.unit, m.value) not in old_values and (o.unit, o.value) not in new_values):
                kind = "date" if m.kind == "date" else "number"
                return kind, (f"{_source(newer)}: “{m.text}”; {_source(older)}: “{o.text}”. "
                              f"{_weighing([newer, older])}."), m.text, o.text
    return None
