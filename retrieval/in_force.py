"""Which revision of a document is in force on a date.

Now, it is the document's current revision (the newest fully indexed one).
On a past date, it is the newest revision published by then: active or
superseded, whose own ``document_date`` is on or before that date (a
revision without a date counts from the start). Answers asked "as of" a date
are drafted from, and judged fresh against, that revision."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date

from django.contrib.auth.base_user import AbstractBaseUser
from django.contrib.auth.models import AnonymousUser
from django.db.models import Q

from .hits import Hit
from .models import Document, Revision, RevisionStatus

PUBLISHED = [RevisionStatus.ACTIVE, RevisionStatus.SUPERSEDED]


def numbers_in_force(keys: Iterable[str], on: date | None = None) -> dict[str, int]:
    """Document key → the number of its revision in force ``on`` that date
    (None: now). Documents with no revision in force then are left out."""
    keys = set(keys)
    if on is None:
        return dict(
            Document.objects.filter(key__in=keys, current_revision__isnull=False).values_list(
                "key", "current_revision__number"
            )
        )
    in_force: dict[str, int] = {}
    for key, number in (
        Revision.objects.filter(document__key__in=keys, status__in=PUBLISHED)
        .filter(Q(document_date__lte=on) | Q(document_date__isnull=True))
        .order_by("document__key", "number")
        .values_list("document__key", "number")
    ):
        in_force[key] = number  # the last one wins: the newest in force
    return in_force


def archive_starts(reader: AbstractBaseUser | AnonymousUser | None) -> date | None:
    """The first date on which ``reader``'s archive holds anything: the
    earliest dated revision published of a document they may see; None when
    one has no date (it counts from the start) or nothing is published.
    Asked "as of" an earlier day, the archive has nothing to answer with."""
    published = Revision.objects.filter(document__in=Document.objects.visible_to(reader), status__in=PUBLISHED)
    if published.filter(document_date__isnull=True).exists():
        return None
    return published.order_by("document_date").values_list("document_date", flat=True).first()


def as_of_problem(as_of: date | None, reader: AbstractBaseUser | AnonymousUser | None, today: date) -> str:
    """Why an "as of" date cannot be asked, in the editor's words; "" when it can."""
    if as_of is None:
        return ""
    if as_of > today:
        return "Tanggal 'menurut arsip per' tidak boleh di masa depan."
    starts = archive_starts(reader)
    if starts is not None and as_of < starts:
        return (
            f"Arsip baru berisi dokumen sejak {starts:%Y-%m-%d}: pilih tanggal itu atau sesudahnya "
            "(atau kosongkan untuk menjawab menurut arsip sekarang)."
        )
    return ""


def hits_as_of(hits: list[Hit], as_of: date) -> list[Hit]:
    """Hits from the revision each document had in force on ``as_of``."""
    in_force = numbers_in_force({h.document for h in hits}, as_of)
    # Still flagged if superseded since: the editor sees a newer one exists.
    return [hit for hit in hits if in_force.get(hit.document) == hit.revision]
