"""Freshness and conflicts among the evidence of one answer.

Superseded evidence is flagged with the revision that serves now. Evidence
from different documents or revisions that disagree is listed as a conflict
with its sides — each source under what it says, newest first — saying
which side is newer (or that their dates are the same: "tanggal sama") and
which more authoritative by its source type's rank; the two are never
merged into one statement:

- availability status (private preview vs tersedia untuk semua pelanggan),
  each source on the side its own text takes now: not a question it
  quotes, nor a stage it reports as ended;
- numbers: the same quantity of the same subject only — the same unit, the
  same attribute (the key of a field or table cell, or the words just before
  the number: "waktu pemutaran 30 jam" and "waktu bicara 20 jam" are two
  quantities, not a conflict) and no two different identifiers
  (KR-220X vs KR-230) as subjects; and a number of the answer that another
  retrieved source, in the context or left out of it, gives otherwise for
  the same subject (the same unit, the same subject words near the number:
  a FAQ's "90 hari" against the policy table's "60 hari");
- dates of the same event;
- the meaning of the same code asked about (``LD-4031`` "token perangkat
  dicabut" in one source, "kuota penuh" in another): definitions sharing
  no words, a meaning the source itself marks as past ("sebelumnya …")
  left out.
"""

from __future__ import annotations

import re
from collections import Counter
from itertools import combinations
from typing import NamedTuple

from answering.answerer import Scored, hit_units
from answering.availability import STATUS_LABELS, STATUS_STAGES, availability
from answering.contract import Claim, Conflict
from answering.facts import fact_present, facts
from answering.quantities import asks_for_quantity, mentions, same_attribute
from answering.question_form import frame_free
from answering.sentences import plain, without_instructions
from retrieval import source_types
from retrieval.hits import Hit
from retrieval.lexical import STOPWORDS, stems
from retrieval.models import Document


def current_revisions(chunks: list[Hit]) -> dict[str, int]:
    """Document key → the number of the revision serving now, for the
    documents of superseded evidence."""
    keys = {h.document for h in chunks if h.superseded}
    if not keys:
        return {}
    return dict(
        Document.objects.filter(key__in=keys, current_revision__isnull=False).values_list(
            "key", "current_revision__number"
        )
    )


def _source(hit: Hit) -> str:
    return (
        f"{hit.document} r{hit.revision} ({source_types.label(hit.source_type).lower()}, "
        f"{hit.document_date or 'tanggal tidak diketahui'})"
    )


def _authority(hit: Hit) -> int:
    return source_types.authority(hit.source_type)


def _date(hit: Hit) -> str:
    return hit.document_date or ""


def _type(hit: Hit) -> str:
    return source_types.label(hit.source_type).lower()


def _weighing(sides: list[list[Hit]]) -> tuple[str, int | None, int | None, list[int]]:
    """Which side is newer and which more authoritative, said plainly: the
    sentence, the index of the newer side (None when the newest sources of
    the sides bear the same date: "tanggal sama", never "lebih baru"), the
    index of the more authoritative side (None when their best source types
    rank alike) and each side's best rank (``source_types.authority``, 1 the
    most authoritative)."""
    newest = [max(side, key=_date) for side in sides]
    strongest = [sorted(sorted(side, key=_date, reverse=True), key=_authority)[0] for side in sides]
    ranks = [_authority(h) for h in strongest]
    top = max(_date(h) for h in newest)
    tied = [i for i, h in enumerate(newest) if _date(h) == top]
    others = [h for i, h in enumerate(newest) if i not in tied]
    names = " dan ".join(dict.fromkeys(_source(newest[i]) for i in tied))
    if not top:
        when = f"{names}: tanggal tidak diketahui"
    elif not others:
        when = f"{names}: tanggal sama ({top})"
    else:
        when = (
            f"{names} lebih baru{' (tanggal sama)' if len(tied) > 1 else ''} dari "
            f"{', '.join(dict.fromkeys(_source(h) for h in others))}"
        )
    best = min(ranks)
    first = [i for i, r in enumerate(ranks) if r == best]
    if len(first) == len(sides):
        kinds = ", ".join(dict.fromkeys(_type(h) for h in strongest))
        weight = f"sama berwenang ({kinds}, peringkat {best})"
    else:
        lower = ", ".join(
            dict.fromkeys(f"{_type(strongest[i])} peringkat {ranks[i]}" for i in range(len(sides)) if i not in first)
        )
        weight = (
            f"{' dan '.join(dict.fromkeys(_source(strongest[i]) for i in first))} lebih berwenang "
            f"({_type(strongest[first[0]])} peringkat {best}, di atas {lower})"
        )
    return (
        f"{when}; {weight}",
        tied[0] if len(tied) == 1 and others else None,
        first[0] if len(first) == 1 else None,
        ranks,
    )


def _conflict(
    kind: str, sides: list[list[Hit]], labels: list[str], values: dict[str, str], lead: str | None = None
) -> Conflict:
    """One conflict: its sides (newest side first — the more authoritative
    first between sides of one date — and each side's sources newest first),
    what each side says and the weighing, in the note and as fields. The
    note opens with ``lead``, else with each side's label and sources."""
    sides = [sorted(side, key=_date, reverse=True) for side in sides]
    order = sorted(range(len(sides)), key=lambda i: min(_authority(h) for h in sides[i]))
    order.sort(key=lambda i: _date(sides[i][0]), reverse=True)
    sides, labels = [sides[i] for i in order], [labels[i] for i in order]
    weighing, newer, authoritative, ranks = _weighing(sides)
    if lead is None:
        lead = "; ".join(
            f"{label}: " + ", ".join(dict.fromkeys(_source(h) for h in side))
            for label, side in zip(labels, sides, strict=True)
        )
    return Conflict(
        evidence_ids=[h.evidence_id for side in sides for h in side],
        kind=kind,
        note=f"{lead}. {weighing[:1].upper()}{weighing[1:]}.",
        sides=[[h.evidence_id for h in side] for side in sides],
        values=values,
        labels=labels,
        newer=newer,
        authoritative=authoritative,
        ranks=ranks,
        weighing=weighing,
    )


def statements(chunks: list[Hit], claims: list[Claim], question: str, scored: Scored | None = None) -> dict[str, str]:
    """What each chunk asserts about the question: the claims citing it, or
    else the units that answer the question — by the scorer, those at least
    half as likely as the best unit and above the support bar, and the
    runners-up a claim could have been made of (``Scored.candidates``): the
    other side of a disagreement scores lower than the side it contradicts,
    and must still be heard; without the scorer, the sentences sharing the
    most terms with the question. A chunk is judged by what answers the
    question, not by every aside it holds (a release note's preview history
    under a question about webhooks, or text planted to mislead); a chunk
    with no answering unit asserts nothing."""
    cited: dict[str, list[str]] = {}
    for claim in claims:
        for evidence_id in claim.evidence_ids:
            cited.setdefault(evidence_id, []).append(claim.text)
    out = {e: " ".join(texts) for e, texts in cited.items()}
    if scored is not None:
        bar = max(scored.best * 0.5, scored.thresholds()["support_min"])
        runners_up = scored.candidates()
        for unit in scored.units:
            runner_up = (unit.hit.evidence_id, unit.unit.start, unit.unit.end) in runners_up
            if unit.hit.evidence_id not in cited and (unit.probability >= bar or runner_up):
                out[unit.hit.evidence_id] = f"{out.get(unit.hit.evidence_id, '')} {unit.unit.text}".strip()
        return {h.evidence_id: out.get(h.evidence_id, "") for h in chunks}
    # A chunk with no sentence (a table, a list of fragments) speaks through
    # its text — less any line addressed to a model, which asserts nothing.
    rest = [
        (h, [u.text for u in hit_units(h)] or [without_instructions(h.text)])
        for h in chunks
        if h.evidence_id not in cited
    ]
    flat = [question] + [s for _, group in rest for s in group]
    question_terms, *terms = stems(flat)
    start = 0
    for hit, group in rest:
        overlaps = [len(question_terms & t) for t in terms[start : start + len(group)]]
        best = max(overlaps)
        out[hit.evidence_id] = " ".join(s for s, o in zip(group, overlaps, strict=True) if o == best)
        start += len(group)
    return out


def conflicts_find(
    chunks: list[Hit],
    said: dict[str, str],
    stages_said: dict[str, str] | None = None,
    codes: set[str] | None = None,
    codes_said: dict[str, str] | None = None,
) -> list[Conflict]:
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
    for hit in chunks if stages_said else []:
        stage = _stage(stages_said[hit.evidence_id], hit.text)
        if stage:
            by_stage.setdefault(stage, []).append(hit)
    if len(by_stage) > 1:
        stages = list(by_stage)
        found.append(
            _conflict(
                "status",
                [by_stage[st] for st in stages],
                [STATUS_LABELS[st] for st in stages],
                {h.evidence_id: st for st in stages for h in by_stage[st]},
            )
        )

    values = {h.evidence_id: mentions(said[h.evidence_id]) for h in chunks}
    seen: set[tuple] = set()
    for a, b in combinations(chunks, 2):
        pair = tuple(sorted([(a.document, a.revision), (b.document, b.revision)]))
        if pair[0] == pair[1]:
            continue
        # Newer by date, then (two revisions of one date) by revision: one
        # order for every pair, so no two conflicts name opposite sides newer.
        newer, older = (a, b) if (_date(a), a.revision) >= (_date(b), b.revision) else (b, a)
        if _different_subjects(newer, older, said):
            continue
        conflict = _differing_value(newer, older, values[newer.evidence_id], values[older.evidence_id])
        # One conflict per pair of sources and kind, and per pair of values:
        # the same two values seen through other chunks are the same conflict.
        values_key = conflict and (conflict[0], frozenset((conflict[2], conflict[3])))
        if conflict and (pair, conflict[0]) not in seen and values_key not in seen:
            seen.update({(pair, conflict[0]), values_key})
            kind, lead, new_value, old_value = conflict
            found.append(
                _conflict(
                    kind,
                    [[newer], [older]],
                    [new_value, old_value],
                    {newer.evidence_id: new_value, older.evidence_id: old_value},
                    lead,
                )
            )
    if codes:
        found += _meaning_conflicts(chunks, codes_said or said, codes)
    return found


# What a source says the stage is. A question it asks or quotes ("Kapan
# Smart Sync tersedia untuk semua pelanggan?") asserts no stage, nor does a
# stage it reports as ended or as of then ("status private preview tersebut
# sudah tidak berlaku", "yang saat itu menyebut …"); a sentence saying what
# holds now ("masih private preview", "saat ini", "hingga kini", "Status:")
# outweighs the rest of the source's sentences.
_ENDED = re.compile(
    r"\b(?:sudah|telah)\s+(?:tidak\s+berlaku|berakhir|usang|dihentikan)\b|\btidak\s+berlaku\s+lagi\b"
    r"|\b(?:saat|waktu|ketika)\s+itu\b|\b(?:sebelumnya|semula|awalnya|dulu|dulunya)\b"
    r"|\bno\s+longer\b|\bhas\s+ended\b|\bpreviously\b|\bat\s+the\s+time\b",
    re.I,
)
_BRACKETS = str.maketrans("()[]", "    ")
_NOW = re.compile(
    r"\b(?:masih|saat\s+ini|hingga\s+kini|sampai\s+kini|hingga\s+sekarang|sampai\s+sekarang|sekarang|kini"
    r"|still|currently|now)\b|\bstatus\s*:",
    re.I,
)


def _stage(said: str, text: str) -> str | None:
    """The stage a source takes: what its sentences on the question say
    (``said``); when those are only questions (a transcript whose line on
    the question is one from the audience, answered "Saat ini private
    preview …"), what its own text says holds now."""
    segments = [s for s in _SEGMENT.split(plain(said)) if s.strip()]
    if segments and all("?" in s for s in segments):
        return _stage_of(without_instructions(text), now_only=True)
    return _stage_of(said)


def _stage_of(text: str, now_only: bool = False) -> str | None:
    # Brackets around a name ("sebelum tersedia umum (GA)") do not change
    # what is asserted, nor what negates it.
    kept = [
        s.translate(_BRACKETS)
        for s in _SEGMENT.split(plain(text))
        if s.strip() and "?" not in s and not _ENDED.search(s)
    ]
    now = [stage for s in kept if _NOW.search(s) and (stage := availability(s))]
    if not now and not now_only:
        now = [stage for s in kept if (stage := availability(s))]
    return max(now, key=STATUS_STAGES.__getitem__) if now else None


# --- numbers outside the context ------------------------------------------------

# Words too common beside a quantity to say what it is the quantity of.
_FRAME = frozenset(
    """selama sesuai berlaku setelah sebelum mulai hanya paling lambat cepat maksimum maksimal minimum
    minimal default hingga sampai kurang lebih sekitar hampir tahun bulan minggu hari menit detik dalam jangka
    waktu periode total rata januari februari maret april juni juli agustus september oktober november
    desember""".split()
)
_WORD = re.compile(r"[A-Za-zÀ-ÿ]{4,}")
# A table row read with its header: "File di trash — Masa retensi: 60 hari; Keterangan: …".
_ROW_CELLS = re.compile(r"^(?P<label>[^—:]{1,120}?) — [^:;—]{1,60}:")


class _Subject(NamedTuple):
    """What a number is a quantity of: the thing (a table row's label, or in
    prose the words near the number) and all its words (a cell's header
    too: the attribute measured)."""

    thing: frozenset[str]
    words: frozenset[str]


def _subject(text: str, start: int, end: int) -> _Subject:
    """The subject of a number in ``text`` at [start, end): in a table row
    read with its header, the row's label, with the cell's header; in prose,
    the content words of its sentence near it (six before, four after) — as
    5-letter prefixes, so "dihapus" and "dihapusnya" agree."""
    row = _ROW_CELLS.match(text)
    if row is not None and row.end("label") < start:
        cell = text[row.end("label") : start].rsplit("; ", 1)[-1].removeprefix(" — ")
        thing = _prefixes(_WORD.findall(row.group("label")))
        return _Subject(thing, thing | _prefixes(_WORD.findall(cell.split(":", 1)[0] if ":" in cell else "")))
    sentence_start = max((m.end() for m in _SEGMENT.finditer(text, 0, start)), default=0)
    after = _SEGMENT.search(text, end)
    before = [w for w in _WORD.findall(text[sentence_start:start]) if _content(w)][-6:]
    words = _prefixes(
        before + [w for w in _WORD.findall(text[end : after.start() if after else len(text)]) if _content(w)][:4]
    )
    return _Subject(words, words)


def _prefixes(words: list[str]) -> frozenset[str]:
    return frozenset(w.lower()[:5] for w in words if _content(w))


def _content(word: str) -> bool:
    return word.lower() not in STOPWORDS and word.lower() not in _FRAME


def _same_subject(a: _Subject, b: _Subject) -> bool:
    """Two quantities are of one subject when they share two words at least,
    and half the words of the shorter subject, one of them a word of both
    things: "Versi lama objek — Masa retensi: 60 hari" and
    "log.local_retention — Nilai lama: 7 hari" share "lama" and "retensi",
    but the one's thing is the other's header — two quantities."""
    shared = len(a.words & b.words)
    return shared >= 2 and shared * 2 >= min(len(a.words), len(b.words)) and bool(a.thing & b.thing)


def _quantities(text: str) -> list[tuple[str, str, str, _Subject]]:
    """The numbers of ``text`` with a unit: (unit, value, as written, subject)."""
    out, seen = [], Counter()
    for m in mentions(text):
        if m.kind != "number":
            continue
        places = list(re.finditer(re.escape(m.text), text))
        at = places[min(seen[m.text], len(places) - 1)]
        seen[m.text] += 1
        out.append((m.unit, m.value, m.text, _subject(text, at.start(), at.end())))
    return out


_DURATIONS = frozenset({"detik", "menit", "jam", "hari", "minggu", "bulan", "tahun"})
_HOW_LONG = re.compile(r"\bberapa\s+lama\b|\bsampai\s+kapan\b|\bhow\s+long\b", re.I)
_UNIT_WORD = re.compile(r"(?<![\w.,])(jam|hari|detik|menit|minggu|bulan|tahun|gb|tb|mb|%|persen)\b", re.I)


def _asked_units(question: str) -> frozenset[str] | None:
    """The units of measure the question asks a number in: those it names
    ("masih 90 hari", "per TB", "berapa persen"), durations for "berapa
    lama"; None (any unit) for a bare "berapa"/"how much"; empty when it
    asks for no quantity at all."""
    named = frozenset(m.group(1).lower().replace("persen", "%") for m in _UNIT_WORD.finditer(question))
    if _HOW_LONG.search(question):
        return named | _DURATIONS
    if named:
        return named
    return None if asks_for_quantity(question) else frozenset()


def numbers_beyond(
    chunks: list[Hit], said: dict[str, str], others: list[Hit], question: str, conflicts: list[Conflict]
) -> tuple[list[Conflict], list[Hit]]:
    """Numbers the answer gives (``said``: what each chunk of the context
    asserts in answer) that another retrieved source gives otherwise: the
    same unit of measure — one the question asks a number in — the same
    subject words near the number (the question's among them), another
    document, and neither sentence giving the other's value too. Such a
    source may have stayed out of the context (a chunk budget, a policy's
    other chunks taking its place), yet an editor must see it: a FAQ's
    "90 hari" against the policy's "60 hari". ``others``: every retrieved
    hit, the context's among them. Returns the conflicts, and the hits
    outside the context they rest on, which join the evidence."""
    units = _asked_units(question)
    if units is not None and not units:
        return [], []  # the question asks for no quantity
    question_words = _prefixes(_WORD.findall(question))
    in_context = {h.evidence_id for h in chunks}
    paired = {frozenset(e.rsplit(":", 1)[0] for e in c.evidence_ids) for c in conflicts if c.kind == "number"}
    stated = {
        h.evidence_id: [(u.text, _quantities(u.text)) for u in hit_units(h)]
        for h in others
        if not (h.superseded or h.via_graph)
    }
    found: list[Conflict] = []
    joined: list[Hit] = []
    for hit in chunks:
        for sentence in _SEGMENT.split(said.get(hit.evidence_id, "")):
            quantities = _quantities(sentence)
            asserted = [q for q in quantities if units is None or q[0] in units]
            given = {(q[0], q[1]) for q in quantities}
            for other in others:
                sources = frozenset({f"{hit.document}:r{hit.revision}", f"{other.document}:r{other.revision}"})
                if (
                    not asserted
                    or other.evidence_id not in stated
                    or other.document == hit.document
                    or sources in paired
                ):
                    continue
                best = None
                for text, theirs in stated[other.evidence_id]:
                    if not theirs or _different_subjects_text(f"{hit.title} {sentence}", f"{other.title} {text}"):
                        continue
                    also = {(q[0], q[1]) for q in theirs}
                    for unit, value, written, subject in asserted:
                        for their_unit, their_value, their_written, their_subject in theirs:
                            if (
                                their_unit == unit
                                and their_value != value
                                and (unit, value) not in also
                                and (their_unit, their_value) not in given
                                and _same_subject(subject, their_subject)
                                and their_subject.words & question_words
                                and (best is None or len(subject.words & their_subject.words) > best[0])
                            ):
                                best = (len(subject.words & their_subject.words), written, their_written)
                if best is None:
                    continue
                paired.add(sources)
                value = {hit.evidence_id: best[1], other.evidence_id: best[2]}
                newer, older = (hit, other) if _date(hit) >= _date(other) else (other, hit)
                found.append(
                    _conflict(
                        "number",
                        [[newer], [older]],
                        [value[newer.evidence_id], value[older.evidence_id]],
                        value,
                        f"{_source(newer)}: “{value[newer.evidence_id]}”; "
                        f"{_source(older)}: “{value[older.evidence_id]}”",
                    )
                )
                if other.evidence_id not in in_context and other not in joined:
                    joined.append(other)
    return found, joined


# What defines a code: "LD-4031 berarti …", "…, artinya …", or the meaning
# column of an error table's row read with its header ("LD-4031 — Kategori:
# Kuota; Arti: …": the category is not the meaning).
_DEFINES = re.compile(
    r"\b(?:berarti|artinya|arti|bermakna|bermaksud|maksudnya|menandakan|means|indicates)\b"
    r"(?:\s+\w+)?\s*[:,]?\s+(?P<meaning>\w+\s+\w+.*)",
    re.I,
)
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
            overlaps = [
                _overlap(terms[x] - cue, terms[y] - cue) for x in defined[a.evidence_id] for y in defined[b.evidence_id]
            ]
            if max(overlaps) >= 1 / 3:
                continue  # they share a meaning: a short gloss and a long definition agree
            seen.add(pair)
            newer, older = (a, b) if _date(a) >= _date(b) else (b, a)
            new_value, old_value = defined[newer.evidence_id][0], defined[older.evidence_id][0]
            found.append(
                _conflict(
                    "meaning",
                    [[newer], [older]],
                    [new_value, old_value],
                    {newer.evidence_id: new_value, older.evidence_id: old_value},
                    f"{code.upper()}: {_source(newer)}: “{new_value}”; {_source(older)}: “{old_value}”",
                )
            )
    return found


def _overlap(a: set[str], b: set[str]) -> float:
    """Share of the shorter definition's words that the other one uses."""
    return len(a & b) / max(min(len(a), len(b)), 1)


def conflict_sides_claimed(
    claims: list[Claim], conflicts: list[Conflict], scored: Scored, joined: list[Hit] | None = None
) -> list[Claim]:
    """``claims`` with one claim for each side of a conflict that no claim
    cites: the most probable unit of that side that says what the side
    says (its stage, its value, its definition), flagged ``conflict`` (and
    ``weak_support`` below the support bar), so an editor sees both sides
    as claims, not one claim and a note. A side from ``joined`` evidence
    (a source outside the context, never scored: ``numbers_beyond``) is
    claimed by its unit that gives the side's value, flagged weak."""
    cited = {e for claim in claims for e in claim.evidence_ids}
    out = list(claims)
    bar = scored.thresholds()["support_min"]
    unscored = {h.evidence_id: h for h in joined or []}
    for conflict in conflicts:
        for side in conflict.sides or [[e] for e in conflict.evidence_ids]:
            if cited & set(side):
                continue
            units = [u for u in scored.units if u.hit.evidence_id in side]  # most probable first
            unit = next(
                (u for u in units if _says(u.unit.text, conflict.kind, conflict.values.get(u.hit.evidence_id))),
                units[0] if units else None,
            )
            if unit is None:
                found = next(
                    (
                        (h, u)
                        for e in side
                        if (h := unscored.get(e))
                        for u in hit_units(h)
                        if _says(u.text, conflict.kind, conflict.values.get(e))
                    ),
                    None,
                )
                if found is not None:
                    hit, one = found
                    out.append(
                        Claim(
                            text=one.text,
                            evidence_ids=[hit.evidence_id],
                            flags=["conflict", "weak_support"],
                            spans={hit.evidence_id: [one.start, one.end]},
                        )
                    )
                    cited |= set(side)
                continue
            out.append(
                Claim(
                    text=unit.unit.text,
                    evidence_ids=[unit.hit.evidence_id],
                    flags=["conflict"] + (["weak_support"] if unit.probability < bar else []),
                    spans={unit.hit.evidence_id: [unit.unit.start, unit.unit.end]},
                    score=unit.probability,
                )
            )
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
    return _different_subjects_text(f"{a.title} {said[a.evidence_id]}", f"{b.title} {said[b.evidence_id]}")


def _different_subjects_text(a: str, b: str) -> bool:
    first, second = _identifiers(a), _identifiers(b)
    return bool(first and second and not first & second)


def _differing_value(
    newer: Hit, older: Hit, new_mentions: list, old_mentions: list
) -> tuple[str, str, str, str] | None:
    """Same unit, the same attribute measured (for dates: the same event),
    different value, and neither value found on the other side."""
    new_values = {(m.unit, m.value) for m in new_mentions}
    old_values = {(m.unit, m.value) for m in old_mentions}
    for m in new_mentions:
        for o in old_mentions:
            same = m.context & o.context if m.kind == "date" else same_attribute(m.context, o.context)
            if (
                m.unit == o.unit
                and m.value != o.value
                and same
                and (m.unit, m.value) not in old_values
                and (o.unit, o.value) not in new_values
            ):
                kind = "date" if m.kind == "date" else "number"
                return kind, f"{_source(newer)}: “{m.text}”; {_source(older)}: “{o.text}”", m.text, o.text
    return None


# --- claims that disagree ----------------------------------------------------------------

# A number and what it counts: the noun after it, with a rate's "per X"
# ("1.200 permintaan per menit", "60 hari", "5 GB"). Not a number inside a
# code or a version (LD-4290, v4.3.0), nor a date's day or year.
_COUNTED = re.compile(
    r"(?<![\w.,/-])(\d{1,3}(?:\.\d{3})+|\d+(?:,\d+)?)\s*(%|[A-Za-zÀ-ÿ]{2,}(?:\s+per\s+[A-Za-zÀ-ÿ]{2,})?)",
)
_MONTH_WORDS = frozenset(
    "januari februari maret april mei juni juli agustus september oktober november desember "
    "january february march may june july august october december".split()
)


def _counted(text: str) -> dict[str, set[str]]:
    """What ``text`` counts → the values it gives ("permintaan per menit" →
    {"1200"}), numbers read the Indonesian way (1.200 is twelve hundred)."""
    out: dict[str, set[str]] = {}
    for m in _COUNTED.finditer(text):
        unit = m.group(2).lower().replace("persen", "%")
        if unit.split()[0] in _MONTH_WORDS or not _content(unit.split()[0]):
            continue
        value = m.group(1).replace(".", "").replace(",", ".")
        out.setdefault(unit, set()).add(value)
    return out


def claims_disagree(claims: list[Claim], chunks: list[Hit], conflicts: list[Conflict], question: str) -> list[Conflict]:
    """Claims of one answer that give different values of the same quantity:
    a number conflict, whatever the sources' other sentences say. Each claim
    answers the question; two claims are of one subject when they hold the
    same words of the question (with their source's title and section):
    "public preview" asked, a claim on the private preview's 50 organisations
    is of another subject than the public preview's 612. Two claims naming
    different products or codes, or two rows of one table, are about
    different things, and a claim giving both values (a change "dari 600
    menjadi 1.200") takes no side. Pairs of sources already in a conflict
    are not listed twice."""
    asked = _prefixes(_WORD.findall(frame_free(question)))
    by_id = {h.evidence_id: h for h in chunks}
    paired = {frozenset(h.split(":r")[0] for h in c.evidence_ids) for c in conflicts}
    found: list[Conflict] = []
    cited = [(c, [by_id[e] for e in c.evidence_ids if e in by_id]) for c in claims]
    for (a, hits_a), (b, hits_b) in combinations([(c, h) for c, h in cited if h], 2):
        first, second = hits_a[0], hits_b[0]
        if (first.document, first.revision) == (second.document, second.revision):
            continue
        if frozenset({first.document, second.document}) in paired:
            continue
        if _different_subjects_text(a.text, b.text) or _different_rows(a.text, b.text):
            continue
        if _asked_words(a.text, first, asked) != _asked_words(b.text, second, asked):
            continue
        ours, theirs = _counted(a.text), _counted(b.text)
        for unit in sorted(ours.keys() & theirs.keys()):
            only_a, only_b = ours[unit] - theirs[unit], theirs[unit] - ours[unit]
            if not only_a or not only_b or ours[unit] & theirs[unit]:
                continue
            value = {first.evidence_id: _written(a.text, unit), second.evidence_id: _written(b.text, unit)}
            newer, older = (
                (first, second)
                if (_date(first), first.revision) >= (_date(second), second.revision)
                else (second, first)
            )
            found.append(
                _conflict(
                    "number",
                    [[newer], [older]],
                    [value[newer.evidence_id], value[older.evidence_id]],
                    value,
                    f"{_source(newer)}: “{value[newer.evidence_id]}”; {_source(older)}: “{value[older.evidence_id]}”",
                )
            )
            paired.add(frozenset({first.document, second.document}))
            break
    return found


def _asked_words(claim: str, hit: Hit, asked: frozenset[str]) -> frozenset[str]:
    """The question's words that a claim holds, read with its source's title and section."""
    return asked & _prefixes(_WORD.findall(f"{hit.title} {hit.heading_path} {claim}"))


def _row_thing(text: str) -> frozenset[str]:
    """A table row's label ("Enterprise — Komitmen uptime bulanan: 99,95%"), as
    words and codes; empty for prose."""
    row = _ROW_CELLS.match(text)
    if row is None:
        return frozenset()
    label = row.group("label")
    return _prefixes(_WORD.findall(label)) | frozenset(_identifiers(label))


def _different_rows(a: str, b: str) -> bool:
    """Two table rows of different labels (the Starter plan's row and the
    Enterprise plan's): each value is its own row's."""
    first, second = _row_thing(a), _row_thing(b)
    return bool(first and second and not first & second)


def _written(text: str, unit: str) -> str:
    """The value with its unit as the claim writes it ("1.200 permintaan per menit")."""
    for m in _COUNTED.finditer(text):
        if m.group(2).lower().replace("persen", "%") == unit:
            return m.group(0)
    return unit


def in_force_first(claims: list[Claim], conflicts: list[Conflict]) -> list[Claim]:
    """The claims with the side in force first, as the conflict box weighs
    it: the more authoritative side where the conflict names one (official
    documentation over an article quoting an old status), else the newer
    side (its sides are ordered newest first). Where the first claim takes
    another side of that conflict, the first claim citing the side in force
    leads instead. The claims keep their order otherwise; their flags and
    the status are unchanged."""
    if not claims:
        return claims
    lead = set(claims[0].evidence_ids)
    for conflict in conflicts:
        sides = conflict.sides or [[e] for e in conflict.evidence_ids]
        if len(sides) < 2:
            continue
        at_force = conflict.authoritative if conflict.authoritative is not None else (conflict.newer or 0)
        in_force = set(sides[at_force])
        others = {e for i, side in enumerate(sides) if i != at_force for e in side}
        if lead & in_force or not lead & others:
            continue
        at = next((i for i, c in enumerate(claims) if set(c.evidence_ids) & in_force), None)
        if at is not None:
            return [claims[at], *claims[:at], *claims[at + 1 :]]
    return claims
