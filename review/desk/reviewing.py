"""Editors' review of claims (the time they spent looking: ``lookups.py``).

Reads (which answers and claims a reader may see) are QuerySets here too, so
every view and partial filters the same way.
"""

from __future__ import annotations

from django.contrib.auth.base_user import AbstractBaseUser
from django.contrib.auth.models import AnonymousUser
from django.db import transaction
from django.db.models import Exists, F, OuterRef, Q, QuerySet
from django.utils import timezone

from retrieval.models import Document
from review.models import Answer, AnswerStatus, Claim, ClaimEvidence, ClaimReview

from .lookups import lookup_close

Reader = AbstractBaseUser | AnonymousUser


REVIEW_PERMISSION = "review.review_claim"
NOTE_LIMIT = 1000


class OldSourcesUnconfirmed(ValueError):
    """A decision on a claim resting on a revision no longer in force, not
    yet confirmed: ``old`` holds (evidence id, revision in force now)."""

    def __init__(self, old: list[tuple[str, int]]) -> None:
        self.old = old
        sources = ", ".join(f"{eid} (kini r{now})" for eid, now in old)
        super().__init__(f"Klaim ini bersandar pada revisi lama: {sources}. Konfirmasi untuk tetap menilainya.")


def can_review(user: Reader) -> bool:
    """The editor's right to judge claims (given to an editors' group)."""
    return bool(user.is_authenticated and user.is_active and user.has_perm(REVIEW_PERMISSION))


def answers_visible_to(reader: Reader) -> QuerySet[Answer]:
    """Answers a reader may open: their own questions, and answers whose
    evidence all comes from documents the reader may see now. (An answer
    without evidence shows only its question, which may itself be private.)"""
    if not reader.is_authenticated or not reader.is_active:
        return Answer.objects.none()
    if reader.is_superuser:
        return Answer.objects.all()
    visible = Document.objects.visible_to(reader).values("pk")
    cited = ClaimEvidence.objects.filter(claim__answer=OuterRef("pk"))
    # exclude() keeps rows whose document is gone (NULL): they count as hidden.
    hidden = cited.exclude(document__in=visible)
    return Answer.objects.filter(Q(question__asked_by=reader) | (Exists(cited) & ~Exists(hidden)))


def claims_visible_to(reader: Reader) -> QuerySet[Claim]:
    """Claims of visible answers whose own evidence the reader may see."""
    answers = answers_visible_to(reader)
    if reader.is_authenticated and reader.is_superuser:
        return Claim.objects.filter(answer__in=answers)
    visible = Document.objects.visible_to(reader).values("pk")
    hidden = ClaimEvidence.objects.filter(claim=OuterRef("pk")).exclude(document__in=visible)
    return Claim.objects.filter(answer__in=answers).exclude(Exists(hidden))


def claim_old_sources(*, claim: Claim, reader: Reader) -> list[tuple[str, int]]:
    """The claim's evidence resting on a revision that is not its document's
    active one now (evidence id, revision in force), from documents the reader
    may see. A decision on such a claim asks the editor to confirm."""
    rows = (
        ClaimEvidence.objects.filter(
            claim=claim,
            document__in=Document.objects.visible_to(reader),
            document__current_revision__isnull=False,
        )
        .exclude(revision_id=F("document__current_revision_id"))
        .order_by("rank")
        .values_list("evidence_id", "document__current_revision__number")
    )
    return list(rows)


@transaction.atomic
def claim_review(
    *, claim: Claim, reviewer: AbstractBaseUser, status: str, note: str = "", confirmed: bool = False
) -> Claim:
    """Record the editor's judgement of a claim, close the lookup with its
    duration, and let the answer's status follow its claims. A claim resting
    on a revision no longer in force is judged only once ``confirmed``:
    else ``OldSourcesUnconfirmed`` and nothing is saved."""
    if status not in (ClaimReview.SUPPORTED, ClaimReview.NEEDS_REVIEW):
        raise ValueError("Pilih 'didukung' atau 'perlu ditinjau'.")
    if len(note) > NOTE_LIMIT:
        raise ValueError(
            f"Catatan paling banyak {NOTE_LIMIT} karakter (terkirim {len(note)}); tidak ada yang disimpan."
        )
    if not confirmed and (old := claim_old_sources(claim=claim, reader=reviewer)):
        raise OldSourcesUnconfirmed(old)
    now = timezone.now()
    claim = Claim.objects.select_for_update().get(pk=claim.pk)
    claim.review_status, claim.review_note, claim.reviewer, claim.reviewed_at = status, note.strip(), reviewer, now
    claim.save(update_fields=["review_status", "review_note", "reviewer", "reviewed_at"])

    lookup_close(claim=claim, editor=reviewer, outcome=status, now=now)

    answer_status_refresh(answer=claim.answer)
    return claim


@transaction.atomic
def claim_note_save(*, claim: Claim, editor: AbstractBaseUser, note: str) -> Claim:
    """Keep the editor's note on a claim without judging it: the status, the
    reviewer and the open lookup stay as they were. This is what Enter in
    the note field does, so a note can never turn into a decision."""
    if len(note) > NOTE_LIMIT:
        raise ValueError(
            f"Catatan paling banyak {NOTE_LIMIT} karakter (terkirim {len(note)}); tidak ada yang disimpan."
        )
    claim = Claim.objects.select_for_update().get(pk=claim.pk)
    claim.review_note = note.strip()
    claim.save(update_fields=["review_note"])
    return claim


def answer_status_refresh(*, answer: Answer) -> str:
    """An answer needs review while any claim does; once every claim is
    supported by an editor it is answered."""
    statuses = list(answer.claims.values_list("review_status", flat=True))
    if not statuses:
        return answer.status
    if ClaimReview.NEEDS_REVIEW in statuses:
        new = AnswerStatus.NEEDS_REVIEW
    elif all(s == ClaimReview.SUPPORTED for s in statuses):
        new = AnswerStatus.ANSWERED
    else:
        return answer.status
    if new != answer.status:
        Answer.objects.filter(pk=answer.pk).update(status=new)
        answer.status = new
    return new
