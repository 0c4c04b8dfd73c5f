"""Whether a stored answer's evidence is still in force.

An answer keeps the contract it was made with; the archive moves on. When a
document gets a newer active revision, every answer citing the older one must
say so wherever it is shown (page, partials, exports, API, the review queue),
and a decision on a claim resting on it must be confirmed.

Permissions: only evidence from documents the reader may see now is looked at.
Visibility is per document, so a reader who may see the old revision may see
the one that replaced it ("kini r3" tells them nothing they could not open);
evidence of a document they may not see is neither flagged nor counted, and
an answer is never marked "sumber berubah" because of it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date

from django.db.models import Exists, F, OuterRef, Q, QuerySet

from answering.contract import AnswerContract
from retrieval.in_force import PUBLISHED, numbers_in_force
from retrieval.models import Document, Revision
from review.models import Answer, ClaimEvidence
from review.reviewing import Reader, claims_visible_to

STALE_FILTER = "berubah"  # ?sumber=berubah on the review queue and history


@dataclass(frozen=True)
class Freshness:
    """The contract with each evidence's ``superseded``/``current_revision``
    judged against the revision in force on the answer's date (now, unless
    it was asked "as of" a date), and the evidence ids whose revision stopped
    being in force since the answer was made (id → the revision in force).
    ``since``: for an answer as of a date, the documents that have had a newer
    revision since that date (key → the revision in force now) — not a fault
    of the answer, said apart from it."""

    contract: AnswerContract
    changed: dict[str, int] = field(default_factory=dict)
    since: dict[str, int] = field(default_factory=dict)

    def old_sources(self, evidence_ids: list[str]) -> list[tuple[str, int]]:
        """The given evidence ids resting on a revision not in force, with
        the revision that is: what a claim's "Revisi lama — kini rN" says."""
        out = []
        for eid in evidence_ids:
            e = self.contract.evidence.get(eid)
            if e is not None and e.superseded and e.current_revision:
                out.append((eid, e.current_revision))
        return out

    def changed_in(self, evidence_ids: list[str]) -> list[str]:
        return [eid for eid in evidence_ids if eid in self.changed]


def contract_now(contract: AnswerContract, reader: Reader, *, as_of: date | None = None) -> Freshness:
    """``contract`` (already as ``reader`` may see it, from ``contract_for``)
    with every evidence's revision checked against the revision its document
    has in force on ``as_of`` (None: now). A document with nothing in force
    then (all withdrawn or failing) keeps what was stored."""
    keys = set(
        Document.objects.visible_to(reader)
        .filter(key__in={e.document for e in contract.evidence.values()})
        .values_list("key", flat=True)
    )
    then = numbers_in_force(keys, as_of)
    now = numbers_in_force(keys) if as_of else then
    evidence, changed = {}, {}
    for eid, e in contract.evidence.items():
        current = then.get(e.document)
        if current is None:
            evidence[eid] = e
            continue
        superseded = current != e.revision
        # A dated answer is drafted from the revisions in force then: any
        # difference now is a change. A present one was stored with its flags.
        if superseded and (as_of or not e.superseded or e.current_revision != current):
            changed[eid] = current
        evidence[eid] = e.model_copy(
            update={"superseded": superseded, "current_revision": current if superseded else None}
        )
    since = {key: now[key] for key in keys if key in now and key in then and now[key] != then[key]}
    return Freshness(contract.model_copy(update={"evidence": evidence}), changed, since)


def newer_since(fresh: Freshness) -> dict[str, int]:
    """``fresh.since`` for the documents the answer's claims cite."""
    contract = fresh.contract
    cited = {
        contract.evidence[eid].document for c in contract.claims for eid in c.evidence_ids if eid in contract.evidence
    }
    return {key: number for key, number in sorted(fresh.since.items()) if key in cited}


def replaced_source(evidence_id: str, now: int) -> str:
    """ "D08:r1:p8" replaced by r2 → "D08 r1 kini r2": said per source, not per chunk."""
    document, revision, _ = evidence_id.rsplit(":", 2)
    return f"{document} {revision} kini r{now}"


def since_sentence(since: dict[str, int]) -> str:
    """ "Sejak tanggal itu, D21 kini r3." — what an answer as of a date says of
    the documents revised after that date."""
    parts = [f"{key} kini r{number}" for key, number in since.items()]
    listed = parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " dan " + parts[-1]
    return f"Sejak tanggal itu, {listed}."


def stale_evidence(reader: Reader) -> QuerySet[ClaimEvidence]:
    """Evidence, cited by a claim ``reader`` may see, whose revision stopped
    being in force after its answer was made. For an answer about the
    present: it was in force then, or the revision in force now came after
    the answer. For an answer as of a date: a newer revision in force on that
    date has appeared (one dated later is news, not a change: ``Freshness.since``).
    Correlated on ``OuterRef("pk")``, an answer."""
    dated = "claim__answer__question__as_of"
    newer_then = Revision.objects.filter(
        Q(document_date__lte=OuterRef(dated)) | Q(document_date__isnull=True),
        document_id=OuterRef("document_id"),
        number__gt=OuterRef("revision__number"),
        status__in=PUBLISHED,
    )
    present = (
        Q(**{f"{dated}__isnull": True}, document__current_revision__isnull=False)
        & ~Q(revision_id=F("document__current_revision_id"))
        & (Q(superseded=False) | Q(document__current_revision__created_at__gt=OuterRef("created_at")))
    )
    return ClaimEvidence.objects.filter(
        claim__answer=OuterRef("pk"),
        claim__in=claims_visible_to(reader),
        document__in=Document.objects.visible_to(reader),
    ).filter(present | (Q(**{f"{dated}__isnull": False}) & Exists(newer_then)))


def with_sources_changed(answers: QuerySet[Answer], reader: Reader) -> QuerySet[Answer]:
    """Annotate ``sources_changed``: the answer rests on evidence (that the
    reader may see) whose revision was replaced since it was made."""
    return answers.annotate(sources_changed=Exists(stale_evidence(reader)))


def asked_again_links(answer: Answer, reader: Reader) -> tuple[Answer | None, list[Answer]]:
    """The answer this one's question was asked again from, and the answers
    of questions asked again from this one — only those the reader may open
    (an answer they may not open is not mentioned at all)."""
    from review.reviewing import answers_visible_to

    visible = answers_visible_to(reader)
    older_id = answer.question.asked_again_from_id
    older = visible.filter(pk=older_id).select_related("question").first() if older_id else None
    newer = list(visible.filter(question__asked_again_from=answer).select_related("question").order_by("created_at"))
    return older, newer
