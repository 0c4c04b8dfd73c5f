"""Editors' review of claims (the time they spent looking: ``lookups.py``).

Reads (which answers and claims a reader may see) are QuerySets here too, so
every view and partial filters the same way.
"""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.contrib.auth.base_user import AbstractBaseUser
from django.contrib.auth.models import AnonymousUser
from django.db import transaction
from django.db.models import Exists, OuterRef, Q, QuerySet
from django.utils import timezone

from retrieval.in_force import numbers_in_force
from retrieval.models import Document
from review.lookups import lookup_close
from review.models import Answer, AnswerStatus, Claim, ClaimEvidence, ClaimReview, EvidenceLookup

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


def colleagues_of(reader: Reader) -> QuerySet:
    """Users who share at least one group with ``reader`` (``reader`` too, when
    they are in a group)."""
    return get_user_model().objects.filter(groups__user=reader).values("pk")


def answers_visible_to(reader: Reader) -> QuerySet[Answer]:
    """Answers a reader may open. A question is its asker's work in progress
    and may carry what is not for others (notes, names, drafts): it and its
    answer are seen by the one who asked, and by reviewers who share a group
    with the asker and may read every document the answer cites — by nobody
    else. Superusers see everything."""
    if not reader.is_authenticated or not reader.is_active:
        return Answer.objects.none()
    if reader.is_superuser:
        return Answer.objects.all()
    own = Q(question__asked_by=reader)
    if not can_review(reader):
        return Answer.objects.filter(own)
    visible = Document.objects.visible_to(reader).values("pk")
    # exclude() keeps rows whose document is gone (NULL): they count as hidden.
    hidden = ClaimEvidence.objects.filter(claim__answer=OuterRef("pk")).exclude(document__in=visible)
    return Answer.objects.filter(own | (Q(question__asked_by__in=colleagues_of(reader)) & ~Exists(hidden)))


def categories_visible_to(reader: Reader) -> QuerySet:
    """The categories of the questions a reader may open, each once, in
    order: the ask form's suggestions and the history's filter choices."""
    return (
        answers_visible_to(reader)
        .exclude(question__category="")
        .values_list("question__category", flat=True)
        .distinct()
        .order_by("question__category")
    )


def claims_visible_to(reader: Reader) -> QuerySet[Claim]:
    """Claims of visible answers whose own evidence the reader may see."""
    answers = answers_visible_to(reader)
    if reader.is_authenticated and reader.is_superuser:
        return Claim.objects.filter(answer__in=answers)
    visible = Document.objects.visible_to(reader).values("pk")
    hidden = ClaimEvidence.objects.filter(claim=OuterRef("pk")).exclude(document__in=visible)
    return Claim.objects.filter(answer__in=answers).exclude(Exists(hidden))


def lookups_visible_to(reader: Reader) -> QuerySet[EvidenceLookup]:
    """Evidence-lookup times a reader may see: an editor's times are theirs
    and their group's — their own, and those of editors who share a group
    with the reader, on claims the reader may see."""
    if not reader.is_authenticated or not reader.is_active:
        return EvidenceLookup.objects.none()
    if reader.is_superuser:
        return EvidenceLookup.objects.all()
    return EvidenceLookup.objects.filter(
        Q(editor=reader) | Q(editor__in=colleagues_of(reader)), claim__in=claims_visible_to(reader)
    )


def claim_old_sources(*, claim: Claim, reader: Reader) -> list[tuple[str, int]]:
    """The claim's evidence resting on a revision that is not the one its
    document has in force on the answer's date (now, or the date it was asked
    "as of"): (evidence id, revision in force then), from documents the reader
    may see. A decision on such a claim asks the editor to confirm."""
    rows = list(
        ClaimEvidence.objects.filter(claim=claim, document__in=Document.objects.visible_to(reader))
        .order_by("rank")
        .values_list("evidence_id", "document__key", "revision__number")
    )
    as_of = Answer.objects.filter(pk=claim.answer_id).values_list("question__as_of", flat=True).first()
    in_force = numbers_in_force({key for _, key, _ in rows}, as_of)
    return [(eid, in_force[key]) for eid, key, number in rows if key in in_force and number != in_force[key]]


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
