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

from django.db.models import Exists, F, OuterRef, Q, QuerySet

from retrieval.models import Document
from review.answers.contract import AnswerContract
from review.desk.reviewing import Reader, claims_visible_to
from review.models import Answer, ClaimEvidence

STALE_FILTER = "berubah"  # ?sumber=berubah on the review queue and history


@dataclass(frozen=True)
class Freshness:
    """The contract with each evidence's ``superseded``/``current_revision``
    as of now, and the evidence ids whose revision stopped being in force
    since the answer was made (id → the revision in force now)."""

    contract: AnswerContract
    changed: dict[str, int] = field(default_factory=dict)

    def old_sources(self, evidence_ids: list[str]) -> list[tuple[str, int]]:
        """The given evidence ids resting on a revision not in force now,
        with the revision that is: what a claim's "Revisi lama — kini rN" says."""
        out = []
        for eid in evidence_ids:
            e = self.contract.evidence.get(eid)
            if e is not None and e.superseded and e.current_revision:
                out.append((eid, e.current_revision))
        return out

    def changed_in(self, evidence_ids: list[str]) -> list[str]:
        return [eid for eid in evidence_ids if eid in self.changed]


def contract_now(contract: AnswerContract, reader: Reader) -> Freshness:
    """``contract`` (already as ``reader`` may see it, from ``contract_for``)
    with every evidence's revision checked against its document's active
    revision now. A document with no active revision (all withdrawn or
    failing) keeps what was stored: nothing newer is in force."""
    keys = {e.document for e in contract.evidence.values()}
    now = dict(
        Document.objects.visible_to(reader)
        .filter(key__in=keys, current_revision__isnull=False)
        .values_list("key", "current_revision__number")
    )
    evidence, changed = {}, {}
    for eid, e in contract.evidence.items():
        current = now.get(e.document)
        if current is None:
            evidence[eid] = e
            continue
        superseded = current != e.revision
        if superseded and (not e.superseded or e.current_revision != current):
            changed[eid] = current
        evidence[eid] = e.model_copy(
            update={"superseded": superseded, "current_revision": current if superseded else None}
        )
    return Freshness(contract.model_copy(update={"evidence": evidence}), changed)


def stale_evidence(reader: Reader) -> QuerySet[ClaimEvidence]:
    """Evidence, cited by a claim ``reader`` may see, whose revision stopped
    being in force after its answer was made: it was in force then, or the
    revision in force now came after the answer. Correlated on ``OuterRef("pk")``,
    an answer."""
    return (
        ClaimEvidence.objects.filter(
            claim__answer=OuterRef("pk"),
            claim__in=claims_visible_to(reader),
            document__in=Document.objects.visible_to(reader),
            document__current_revision__isnull=False,
        )
        .exclude(revision_id=F("document__current_revision_id"))
        .filter(Q(superseded=False) | Q(document__current_revision__created_at__gt=OuterRef("created_at")))
    )


def with_sources_changed(answers: QuerySet[Answer], reader: Reader) -> QuerySet[Answer]:
    """Annotate ``sources_changed``: the answer rests on evidence (that the
    reader may see) whose revision was replaced since it was made."""
    return answers.annotate(sources_changed=Exists(stale_evidence(reader)))


def asked_again_links(answer: Answer, reader: Reader) -> tuple[Answer | None, list[Answer]]:
    """The answer this one's question was asked again from, and the answers
    of questions asked again from this one — only those the reader may open
    (an answer they may not open is not mentioned at all)."""
    from review.desk.reviewing import answers_visible_to

    visible = answers_visible_to(reader)
    older_id = answer.question.asked_again_from_id
    older = visible.filter(pk=older_id).select_related("question").first() if older_id else None
    newer = list(visible.filter(question__asked_again_from=answer).select_related("question").order_by("created_at"))
    return older, newer
