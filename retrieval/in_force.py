"""Which revision of a document is in force on a date.

Now, it is the document's current revision (the newest fully indexed one).
On a past date, it is the newest revision published by then: active or
superseded, whose own ``document_date`` is on or before that date (a
revision without a date counts from the start). Answers asked "as of" a date
are drafted from, and judged fresh against, that revision."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date

from django.db.models import Q

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
