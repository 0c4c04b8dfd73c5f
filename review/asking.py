"""Asking a question and saving its answer: the one service every
interface calls (the ``ask`` command, ``POST /api/ask``, the editor's ask
page and the worker), and the stored answer as a reader may see it now.

The answer engine (``answering.engine``) drafts; this module saves the
question, the answer, its claims and the evidence each cites.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date

from django.contrib.auth.base_user import AbstractBaseUser
from django.contrib.auth.models import AnonymousUser
from django.db import transaction

from answering.contract import AnswerContract
from answering.engine import Drafted, answer_draft
from answering.generators import Generator
from nalarku_site.metrics import ASK_STAGE_SECONDS, stages_observe
from retrieval.models import Chunk, Document
from retrieval.search import timed, validate
from review.models import Answer, AnswerStatus, ClaimEvidence, Question, QuestionState
from review.models import Claim as ClaimRow

logger = logging.getLogger(__name__)


@dataclass
class Asked:
    answer: Answer
    contract: AnswerContract


def question_ask(
    *,
    text: str,
    user: AbstractBaseUser | AnonymousUser | None,
    as_of: date | None = None,
    generator: Generator | None = None,
    category: str = "",
    search_options: dict | None = None,
    question: Question | None = None,
    progress: Callable[[str], None] | None = None,
) -> Asked:
    """Answer ``text`` for ``user`` from what that user may see, and save it.
    Raises ``SearchError`` for an empty or over-long question. ``question``
    is an already saved question to answer (the editor's desk saves it
    first); ``progress`` hears the name of each stage as it starts."""
    progress = progress or (lambda stage: None)
    drafted = answer_draft(
        text=text, user=user, as_of=as_of, generator=generator, search_options=search_options, progress=progress
    )
    timings = drafted.timings
    progress("persist")
    with timed(timings, "persist"):
        answer = _persist(question=question, user=user, as_of=as_of, category=category, drafted=drafted)
    answer.timings_ms = timings
    answer.save(update_fields=["timings_ms"])
    stages_observe(ASK_STAGE_SECONDS, timings)
    return Asked(answer, contract_for(answer, user))


def question_submit(*, text: str, user: AbstractBaseUser, as_of: date | None = None, category: str = "") -> Question:
    """Save the question, queued; the caller hands it to a worker after
    commit (``review.tasks.answer_after_commit``) and the editor's page
    follows its stages. Raises ``SearchError`` for an invalid question."""
    text = validate(text, k=1, pool=1, mode="hybrid")
    question = Question.objects.create(
        text=text, asked_by=user, as_of=as_of, category=category, state=QuestionState.QUEUED
    )
    return question


def question_run(*, question_id: int) -> Answer | None:
    """Answer a saved question (the worker's job); idempotent: a question
    already answered is left alone. Stages are written as they start."""
    question = Question.objects.select_related("asked_by").filter(pk=question_id).first()
    if question is None or question.state == QuestionState.DONE or question.answers.exists():
        return None

    def progress(stage: str) -> None:
        Question.objects.filter(pk=question_id).update(state=QuestionState.RUNNING, stage=stage)

    try:
        return question_ask(
            text=question.text,
            user=question.asked_by,
            as_of=question.as_of,
            category=question.category,
            question=question,
            progress=progress,
        ).answer
    except Exception as exc:  # noqa: BLE001 - recorded for the editor, who can ask again
        logger.exception("question %s failed", question_id)
        Question.objects.filter(pk=question_id).update(state=QuestionState.FAILED, error=str(exc)[:500])
        return None


@transaction.atomic
def _persist(
    *,
    question: Question | None,
    user: AbstractBaseUser | AnonymousUser | None,
    as_of: date | None,
    category: str,
    drafted: Drafted,
) -> Answer:
    """The question (saved now, or marked done), its answer, each claim and
    the evidence it cites, in one transaction."""
    d = drafted
    asker = user if user is not None and user.is_authenticated else None
    if question is None:
        question = Question.objects.create(text=d.query, asked_by=asker, as_of=as_of, category=category)
    else:
        question.state, question.stage, question.error = QuestionState.DONE, "", ""
        question.save(update_fields=["state", "stage", "error"])
    contract = AnswerContract(
        question_id=question.public_id,
        status=d.status,
        claims=d.claims,
        missing=d.missing,
        conflicts=d.conflicts,
        evidence=d.evidence,
        degraded=d.degraded,
    )
    answer = Answer.objects.create(
        question=question,
        status=d.status,
        generator=d.generation.generator,
        retrieval=d.retrieval,
        degraded=d.degraded,
        raw_output=d.generation.raw,
        contract=contract.model_dump(mode="json"),
    )
    rank = {h.evidence_id: n for n, h in enumerate(d.chunks, 1)}
    by_id = {h.evidence_id: h for h in d.chunks}
    revisions = dict(Chunk.objects.filter(pk__in=[h.chunk_id for h in d.chunks]).values_list("pk", "revision_id"))
    rows = []
    for position, claim in enumerate(d.claims, 1):
        row = ClaimRow.objects.create(answer=answer, position=position, text=claim.text, flags=claim.flags)
        for evidence_id in claim.evidence_ids:
            hit = by_id[evidence_id]
            rows.append(
                ClaimEvidence(
                    claim=row,
                    evidence_id=evidence_id,
                    document_id=hit.document_id,
                    revision_id=revisions.get(hit.chunk_id),
                    chunk_id=hit.chunk_id,
                    rank=rank[evidence_id],
                    semantic_score=hit.semantic_score,
                    rrf_score=hit.rrf_score,
                    rerank_score=hit.rerank_score,
                    superseded=hit.superseded,
                    conflict=evidence_id in d.in_conflict,
                    via_graph=hit.via_graph,
                )
            )
    ClaimEvidence.objects.bulk_create(rows)
    return answer


def contract_for(answer: Answer, reader: AbstractBaseUser | AnonymousUser | None) -> AnswerContract:
    """The stored contract as ``reader`` may see it now: evidence from
    documents outside the reader's groups is left out, and so is every claim
    or conflict resting on it (its text came from that evidence)."""
    stored = AnswerContract.model_validate(answer.contract)
    stored.status = AnswerStatus(answer.status)  # editors' review moves it on
    documents = {e.document for e in stored.evidence.values()}
    visible = set(Document.objects.visible_to(reader).filter(key__in=documents).values_list("key", flat=True))
    allowed = {eid for eid, e in stored.evidence.items() if e.document in visible}
    if allowed == set(stored.evidence):
        return stored
    claims = [c for c in stored.claims if set(c.evidence_ids) <= allowed]
    conflicts = [c for c in stored.conflicts if set(c.evidence_ids) <= allowed]
    status = stored.status
    if not claims:
        status = AnswerStatus.INSUFFICIENT_EVIDENCE
    elif status == AnswerStatus.ANSWERED and len(claims) < len(stored.claims):
        status = AnswerStatus.NEEDS_REVIEW
    return stored.model_copy(
        update={
            "claims": claims,
            "conflicts": conflicts,
            "status": status,
            "evidence": {eid: e for eid, e in stored.evidence.items() if eid in allowed},
            # What was missing may have been phrased from the withheld evidence.
            "missing": [],
        }
    )
