"""Lookup time: how long an editor spent looking at a claim's evidence.

The editor's browser measures it (``static/js/nalarku.js``, the lookup
clock): the clock of a claim runs while its row is on screen, in a visible
tab, with the editor active (mouse, keys, scroll or touch) within the last
minute; it pauses otherwise. The browser reports what it measured with each
decision or note, and, when the tab is hidden or the page is left, in a
beacon, so that time looked at before the browser was closed still counts
when the answer is reopened later, and the time nobody was looking never
counts.

One record per editor and claim. It keeps the raw times for audit:
``shown_at`` (the answer first served to this editor), ``seen_at`` (the
claim first on this editor's screen, as reported), ``opened_at`` (its
evidence first unfolded) and ``decided_at`` (the last decision); its
``looked_ms`` adds up the reports, and ``duration_ms`` is that sum at the
decision, never more than the time since ``seen_at``. A decision made
without the desk's page (the API, a browser without JavaScript) reports no
looking: its duration stays empty, "not measured", rather than a guess.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from django.contrib.auth.models import AbstractBaseUser
from django.db import IntegrityError, transaction
from django.http import QueryDict
from django.utils import timezone

from review.models import Answer, Claim, ClaimReview, EvidenceLookup

# One report never claims more than this: a tab left open over a weekend
# with a moving mouse is still not a weekend of looking.
REPORT_CAP_MS = 30 * 60 * 1000


def lookups_start(*, answer: Answer, editor: AbstractBaseUser, claims: list[Claim]) -> None:
    """The answer is served to the editor: a record per undecided claim
    (an existing one keeps its first ``shown_at``). Nothing is timed yet:
    the clock starts when the browser shows the claim."""
    now = timezone.now()
    for claim in claims:
        if claim.review_status == ClaimReview.PENDING:
            _record(claim=claim, editor=editor, now=now)


def lookup_open(*, claim: Claim, editor: AbstractBaseUser) -> None:
    """The editor unfolded the claim's evidence: noted once, for audit."""
    lookup = _record(claim=claim, editor=editor, now=timezone.now())
    if lookup.opened_at is None:
        EvidenceLookup.objects.filter(pk=lookup.pk, opened_at=None).update(opened_at=timezone.now())


def looked_report(data: QueryDict) -> tuple[int, int] | None:
    """``looked_ms`` and ``seen_ms`` as the browser sent them (with a decision,
    a note or a beacon); None where it sent none or nonsense."""
    try:
        looked, seen = int(data.get("looked_ms", "")), int(data.get("seen_ms", ""))
    except ValueError:
        return None
    if looked < 0 or seen < 0:
        return None
    looked = min(looked, REPORT_CAP_MS)
    return looked, max(seen, looked)  # the claim was on screen at least as long as it was looked at


@transaction.atomic
def lookup_looked(*, claim: Claim, editor: AbstractBaseUser, looked_ms: int, seen_ms: int) -> EvidenceLookup:
    """Add a report of looking to the editor's record of the claim."""
    now = timezone.now()
    seen_at = now - timedelta(milliseconds=seen_ms)
    lookup = _record(claim=claim, editor=editor, now=seen_at, lock=True)
    lookup.looked_ms += looked_ms
    lookup.seen_at = min(lookup.seen_at or seen_at, seen_at)
    lookup.save(update_fields=["looked_ms", "seen_at"])
    return lookup


def lookup_close(*, claim: Claim, editor: AbstractBaseUser, outcome: str, now: datetime) -> EvidenceLookup:
    """The decision: the record takes its time and outcome (a later decision
    of the same editor updates them; the looking keeps adding up)."""
    lookup = _record(claim=claim, editor=editor, now=now, lock=True)
    lookup.decided_at, lookup.outcome = now, outcome
    lookup.duration_ms = lookup_duration(lookup, now)
    lookup.save(update_fields=["decided_at", "outcome", "duration_ms"])
    return lookup


def lookup_duration(lookup: EvidenceLookup, now: datetime) -> int | None:
    if lookup.seen_at is None:  # the browser never reported the claim on screen
        return None
    since_seen = max(0, int((now - lookup.seen_at).total_seconds() * 1000))
    return min(lookup.looked_ms, since_seen)


def _record(*, claim: Claim, editor: AbstractBaseUser, now: datetime, lock: bool = False) -> EvidenceLookup:
    records = EvidenceLookup.objects.select_for_update() if lock else EvidenceLookup.objects
    try:
        with transaction.atomic():
            lookup, _ = records.get_or_create(editor=editor, claim=claim, defaults={"shown_at": now})
    except IntegrityError:  # a concurrent request made it first
        lookup = records.get(editor=editor, claim=claim)
    return lookup
