"""The answer engine, stage by stage, in one pass:

search (``retrieval.search``, the revisions in force on the date asked) →
context (``context``) → the evidence's units scored (``scorer``) and read
(``reader``) → claims (``generators``) → validation (``validation``) →
conflicts (``conflicts``) → status (here) → the drafted answer, typed
(``Drafted``, whose parts make the ``contract``).

Nothing here saves: ``review.asking`` saves the draft as a question's answer.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, datetime

from django.conf import settings
from django.contrib.auth.base_user import AbstractBaseUser
from django.contrib.auth.models import AnonymousUser

from answering.answerer import ArtefactError, Scored, artefact, evidence_score
from answering.availability import asks_availability
from answering.conflicts import (
    claims_disagree,
    conflict_sides_claimed,
    conflicts_find,
    current_revisions,
    in_force_first,
    numbers_beyond,
    statements,
)
from answering.context import ContextPolicy, context_select
from answering.contract import Claim, Conflict, Draft, Evidence
from answering.facts import identifiers
from answering.generators import (
    AnswererGenerator,
    Generation,
    Generator,
    GeneratorUnavailable,
    SentenceGenerator,
    generator_from_config,
    missing_phrases,
)
from answering.question_form import asks_about_present
from answering.validation import draft_validate
from retrieval.hits import Hit, SearchResponse
from retrieval.http import ServiceError
from retrieval.in_force import hits_as_of
from retrieval.models import Chunk, EmbeddingSpace
from retrieval.pages import chunks_located, span_labels
from retrieval.search import search, timed
from review.models import AnswerStatus

logger = logging.getLogger(__name__)

# The generators whose claims are the evidence's own units, in claim order.
QUOTING = {"answerer", "reader"}
# Flags that leave a claim for an editor to judge.
DOUBTFUL = {"evidence_removed", "unsupported_fact", "weak_support", "conflict", "superseded_evidence"}


@dataclass
class Drafted:
    """An answer drafted, not yet saved: the contract's parts, and what the
    saved record keeps beside them (the generation, the retrieval settings,
    the context in rank order, each stage's milliseconds)."""

    query: str
    status: str
    generation: Generation
    retrieval: dict
    degraded: list[str]
    claims: list[Claim]
    chunks: list[Hit]
    in_conflict: set[str]
    missing: list[str]
    conflicts: list[Conflict]
    evidence: dict[str, Evidence]
    timings: dict[str, float] = field(default_factory=dict)


def answer_draft(
    *,
    text: str,
    user: AbstractBaseUser | AnonymousUser | None,
    as_of: date | None = None,
    generator: Generator | None = None,
    search_options: dict | None = None,
    progress: Callable[[str], None] | None = None,
    timings: dict[str, float] | None = None,
) -> Drafted:
    """Draft the answer to ``text`` from what ``user`` may see, stage by
    stage; nothing is saved. Raises ``SearchError`` for an empty or
    over-long question. ``progress`` hears the name of each stage as it
    starts; ``timings`` collects each stage's milliseconds."""
    progress = progress or (lambda stage: None)
    timings = {} if timings is None else timings
    options = {"k": settings.NALARKU_ANSWER_SEARCH_K, **(search_options or {})}
    present = as_of is None and asks_about_present(text)
    progress("search")
    with timed(timings, "search"):
        response = search(text, user, include_superseded=as_of is not None, **options)
    for stage in ("embed", "sql", "rerank", "expand"):
        if stage in response.timings_ms:
            timings[stage] = response.timings_ms[stage]
    degraded = list(response.degraded)
    hits = hits_as_of(response.results, as_of) if as_of else response.results

    with timed(timings, "context"):
        chunks = context_select(hits, question=response.query, newest_first=present)
    progress("generate")
    with timed(timings, "score"):
        scored = _score(response, chunks, options.get("collection", "editorial"), degraded, as_of=as_of is not None)
    generator = generator or generator_from_config()
    if scored is not None and chunks and getattr(generator, "reads", False):
        with timed(timings, "read"):
            scored = _read(generator, response.query, chunks, scored, degraded)
    with timed(timings, "generate"):
        generation = _generate(generator, response.query, chunks, scored, degraded)
    progress("validate")
    with timed(timings, "validate"):
        validated = draft_validate(generation.draft, chunks, scored=scored if generation.scored else None)
        conflicts, joined = _conflicts(
            chunks, validated.claims, response.query, scored if generation.scored else None, hits
        )
        chunks = chunks + joined  # sources outside the context that contradict it are evidence too
        current = current_revisions(chunks)
    degraded += [d for d in generation.degraded + validated.degraded if d not in degraded]
    if generation.scored and scored is not None and conflicts:
        validated.claims = conflict_sides_claimed(validated.claims, conflicts, scored, joined)
    # Two claims giving the same quantity different values disagree, whatever
    # their sources' other sentences say: an editor picks the side in force.
    conflicts += claims_disagree(validated.claims, chunks, conflicts, response.query)
    # The answer leads with the side in force, as the conflict box orders it.
    validated.claims = in_force_first(validated.claims, conflicts)

    by_id = {h.evidence_id: h for h in chunks}
    in_conflict = {e for c in conflicts for e in c.evidence_ids}
    _flag_claims(validated.claims, chunks, conflicts, as_of=as_of)
    # The page of what each claim quotes: a chunk may run over a page break.
    located = chunks_located(by_id[e] for claim in validated.claims for e in claim.evidence_ids)
    for claim in validated.claims:
        claim.pages = span_labels([by_id[e] for e in claim.evidence_ids], claim.spans, located)
    band = scored.band() if generation.scored and scored is not None else generation.draft.status
    doubt = generation.scored and _doubt_is_a_conflict(scored, conflicts)
    if band == AnswerStatus.INSUFFICIENT_EVIDENCE and doubt:
        # Sources that disagree about the answer lower the scorer's belief
        # that the evidence answers (it learned from contexts that agree):
        # an editor weighs both sides instead of hearing "not enough evidence".
        band = AnswerStatus.NEEDS_REVIEW
        validated.missing = [
            "Sumber berbeda pendapat tentang jawabannya: editor memutuskan sisi mana yang berlaku (lihat konflik)"
        ]
    status = _status(band, validated.claims, conflicts, chunks, as_of=as_of, quoted=generation.generator in QUOTING)
    if status == AnswerStatus.ANSWERED and "planted_instruction_ignored" in degraded:
        status = AnswerStatus.NEEDS_REVIEW  # the model was steered by a source: an editor looks
    missing = validated.missing
    if status == AnswerStatus.INSUFFICIENT_EVIDENCE:
        # Nothing answers: no claim is shown as if it did, and sources that
        # disagree about something else are no conflict of this answer.
        validated.claims, conflicts, in_conflict = [], [], set()
        chunks = [h for h in chunks if h not in joined]  # they were evidence of a conflict only
        if scored is not None and not any(m.startswith("Tidak ada bukti") for m in missing):
            missing = list(dict.fromkeys(missing_phrases(scored) + missing))  # the draft may hold them already
        missing = missing or ["Tidak ada bukti di arsip yang dapat Anda lihat yang menjawab pertanyaan ini"]
    indexed = dict(Chunk.objects.filter(pk__in=[h.chunk_id for h in chunks]).values_list("key", "revision__indexed_at"))
    evidence = {h.evidence_id: _evidence(h, current, indexed.get(h.evidence_id)) for h in chunks}

    retrieval = {
        **options,
        "mode": response.mode,
        "as_of": as_of.isoformat() if as_of else None,
        "present": present,
        "context": vars(ContextPolicy.from_settings()),
        "fusion": settings.NALARKU_FUSION["method"],
        "reranker": settings.NALARKU_RERANK.get("provider") or None,
        "embedding_space": EmbeddingSpace.objects.filter(is_active=True).values_list("pk", flat=True).first(),
        "candidates": [h.evidence_id for h in hits],
        # Which scorer judged the evidence and how sure it was: the status
        # bars are read against this (and eval_answers can replay a bar).
        "scorer": _scorer_record(scored, doubt) if generation.scored and scored is not None else None,
    }
    return Drafted(
        query=response.query,
        status=status,
        generation=generation,
        retrieval=retrieval,
        degraded=degraded,
        claims=validated.claims,
        chunks=chunks,
        in_conflict=in_conflict,
        missing=missing,
        conflicts=conflicts,
        evidence=evidence,
        timings=timings,
    )


def _score(
    response: SearchResponse, chunks: list[Hit], collection: str, degraded: list[str], *, as_of: bool = False
) -> Scored | None:
    """The evidence's units scored, or None (and ``answerer_unavailable``) when
    the artefact or the embeddings cannot be had: the answer then comes from
    the sentence generator, which needs neither the artefact nor a model."""
    try:
        return evidence_score(response.query, chunks, vector=response.vector, collection=collection, as_of=as_of)
    except (ArtefactError, ServiceError) as exc:
        logger.warning("answer scorer unavailable: %s", exc)
        degraded.append("answerer_unavailable")
        return None


def _read(generator: Generator, question: str, chunks: list[Hit], scored: Scored, degraded: list[str]) -> Scored:
    """The evidence judged by the reader; the scorer's judgement, and
    ``reader_unavailable``, when the reader cannot be loaded."""
    from answering.reader.model import ReaderUnavailable
    from answering.reader.scoring import evidence_read

    try:
        return evidence_read(generator.reader(), question, chunks, scored, unit_spans=generator.unit_spans_on())
    except ReaderUnavailable as exc:
        logger.warning("reader unavailable, the scorer judges: %s", exc)
        degraded.append("reader_unavailable")
        return scored


def _generate(
    generator: Generator | None, question: str, chunks: list[Hit], scored: Scored | None, degraded: list[str]
) -> Generation:
    if not chunks:
        # Nothing passed the relevance bar: no model is asked to answer from nothing.
        return Generation(Draft(status="insufficient_evidence", claims=[], missing=[]), "none", scored=False)
    generator = generator or generator_from_config()
    if scored is None:
        generator = SentenceGenerator(**settings.NALARKU_SENTENCE)
    try:
        return generator.generate(question, chunks, scored)
    except (GeneratorUnavailable, ServiceError) as exc:
        logger.warning("generator unavailable, answerer fallback: %s", exc)
        degraded.append("generator_unavailable")
        return AnswererGenerator(**settings.NALARKU_CLAIMS).generate(question, chunks, scored)


def _conflicts(
    chunks: list[Hit], claims: list[Claim], question: str, scored: Scored | None, hits: list[Hit] | None = None
) -> tuple[list[Conflict], list[Hit]]:
    """Conflicts among what the evidence says in answer: numbers and dates
    from the units that answer the question (by the scorer), availability
    stages only when the question asks about availability — then from each
    source's sentences on the question's subject, since "masih private
    preview" answers "sudah GA?" without sharing its words; what each
    source says a code of the question means, from the same sentences; and
    numbers the answering units give that another retrieved source gives
    otherwise for the same subject (``numbers_beyond``). Returns them with
    the retrieved hits outside the context they rest on."""
    if scored is None:  # the baselines, as they were
        said = statements(chunks, claims, question)
        return conflicts_find(chunks, said, said), []
    codes = identifiers(question)
    # Where the reader drew the claims, a side is what the scorer's judgement
    # also holds: the first claim (the reader's answer), further claims the
    # scorer seconds, and for the uncited chunks the scorer's own units. The
    # reader reads each chunk alone and reads an off-subject span as surely
    # as the answer (``Scored.seconded``); such a claim stays, for an editor
    # to judge, but asserts nothing against the answer.
    claims = [
        c for i, c in enumerate(claims) if i == 0 or any(scored.seconded(e, c.spans.get(e)) for e in c.evidence_ids)
    ]
    topical = statements(chunks, claims, question) if codes or asks_availability(question) else None
    said = statements(chunks, claims, question, scored.prior or scored)
    found = conflicts_find(
        chunks, said, topical if asks_availability(question) else None, codes=codes, codes_said=topical
    )
    beyond, joined = numbers_beyond(chunks, said, hits or [], question, found)
    return found + beyond, joined


def _flag_claims(claims: list[Claim], chunks: list[Hit], conflicts: list[Conflict], *, as_of: date | None) -> None:
    """Superseded evidence, evidence in a conflict, evidence reached through
    relations. Asked "as of" a date, the revision in force that day is the
    right evidence, whatever came since: no claim is flagged for it."""
    by_id = {h.evidence_id: h for h in chunks}
    in_conflict = {e for c in conflicts for e in c.evidence_ids}
    for claim in claims:
        cited = [by_id[e] for e in claim.evidence_ids]
        for flag, holds in (
            ("superseded_evidence", as_of is None and any(h.superseded for h in cited)),
            ("conflict", bool(in_conflict & set(claim.evidence_ids))),
            ("via_graph", any(h.via_graph for h in cited)),
        ):
            if holds and flag not in claim.flags:
                claim.flags.append(flag)


def _doubt_is_a_conflict(scored: Scored | None, conflicts: list[Conflict]) -> bool:
    """The evidence was refused, yet its sources disagree about the answer —
    and it names every name, code and number of the question, so it is about
    the thing asked, not a sibling of it (a near miss stays refused). A
    question asking a quantity in a unit ("berapa persen") is in doubt only
    where the sources disagree about a value in that unit: a disagreement
    about days is no doubt about a percentage."""
    if scored is None:
        return False
    unit = scored.asked_unit
    about = [c for c in conflicts if unit is None or any(unit.search(v) for v in (*c.values.values(), *c.labels))]
    return bool(about and scored.units and not scored.absent_identifiers and not scored.protected_missing)


def _status(
    band: str,
    claims: list[Claim],
    conflicts: list[Conflict],
    chunks: list[Hit],
    *,
    as_of: date | None,
    quoted: bool = False,
) -> str:
    """The band the evidence earns, lowered by anything an editor must look
    at; never higher than the band. ``quoted``: the claims are the engine's
    quotes, in claim order; the first must be well supported, and the
    further candidates below the support bar keep their ``weak_support``
    flag for the editor without lowering the status (a model's weak claim
    is an assertion, and always does)."""
    if not chunks or not claims or band == AnswerStatus.INSUFFICIENT_EVIDENCE:
        return AnswerStatus.INSUFFICIENT_EVIDENCE
    # Asked "as of" a date, evidence superseded since is the right evidence.
    doubtful = DOUBTFUL - {"superseded_evidence"} if as_of else DOUBTFUL

    def doubts(position: int, claim: Claim) -> bool:
        flags = set(claim.flags) - ({"weak_support"} if quoted and position else set())
        return bool(doubtful & flags)

    if band != AnswerStatus.ANSWERED or conflicts or any(doubts(i, c) for i, c in enumerate(claims)):
        return AnswerStatus.NEEDS_REVIEW
    return AnswerStatus.ANSWERED


def _scorer_record(scored: Scored, doubt: bool) -> dict:
    record = {
        "artefact": scored.judged_by or artefact().meta["name"],
        "answerable": round(scored.answerable, 4),
        "bars": scored.thresholds(),
        # Whether these sources' disagreement would send a refusal to an
        # editor, whatever the band: a replayed bar then keeps exactly the
        # cases the pipeline keeps.
        "doubt_to_editor": doubt,
    }
    return record if scored.reading is None else {**record, "reading": scored.reading}


def _evidence(hit: Hit, current: dict[str, int], indexed_at: datetime | None = None) -> Evidence:
    return Evidence(
        document=hit.document,
        revision=hit.revision,
        title=hit.title,
        heading_path=hit.heading_path,
        page=hit.page,
        page_end=hit.page_end,
        ocr=hit.ocr,
        repeats=hit.repeats,
        repeat_pages=hit.repeat_pages,
        document_date=hit.document_date,
        indexed_at=indexed_at.isoformat() if indexed_at else None,
        source_type=hit.source_type,
        superseded=hit.superseded,
        current_revision=current.get(hit.document) if hit.superseded else None,
        url=hit.url,
        via_graph=hit.via_graph,
        relation=hit.relation,
        semantic_score=hit.semantic_score,
        rerank_score=hit.rerank_score,
    )
