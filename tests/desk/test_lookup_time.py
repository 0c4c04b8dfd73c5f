"""Lookup time measures looking (review/lookups.py): the page's clock
reports what it measured, the server adds the reports up in one record per
editor and claim, and the time nobody was looking — a closed browser, a
hidden tab — never counts. The clock itself, in Chromium, is
tests/browser/test_lookup_clock.py."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.urls import reverse

from review.asking import question_ask
from review.lookup_times import lookup_stats
from review.lookups import REPORT_CAP_MS
from review.models import EvidenceLookup
from review.reviewing import lookups_visible_to

from .test_desk import HX, QUESTION, archive  # noqa: F401 - the fixture

pytestmark = pytest.mark.django_db


@pytest.fixture
def answered(client, archive, make_user):  # noqa: F811
    editor = make_user("editor", reviewer=True)
    client.force_login(editor)
    answer = question_ask(text=QUESTION, user=editor).answer
    client.get(reverse("answer", args=[answer.pk]))
    return editor, list(answer.claims.order_by("position"))


def _beacon(client, claim, looked_ms: int, seen_ms: int):  # noqa: ANN001, ANN202
    return client.post(reverse("claim-looked", args=[claim.pk]), {"looked_ms": looked_ms, "seen_ms": seen_ms})


def test_a_reopened_answer_counts_the_seconds_spent_looking_not_the_gap(client, answered):
    editor, claims = answered
    claim = claims[0]
    # First visit: 5 s looked at, then the browser closed (the beacon on leaving the page).
    assert _beacon(client, claim, 5000, 7000).status_code == 204
    # 40 s later the answer is opened again, in a new session, and decided 4.1 s after.
    EvidenceLookup.objects.filter(claim=claim).update(
        shown_at=EvidenceLookup.objects.get(claim=claim).shown_at - timedelta(seconds=47),
        seen_at=EvidenceLookup.objects.get(claim=claim).seen_at - timedelta(seconds=40),
    )
    client.logout()
    client.force_login(editor)
    client.get(reverse("answer", args=[claim.answer_id]))
    response = client.post(
        reverse("claim-decide", args=[claim.pk]), {"status": "supported", "looked_ms": 4100, "seen_ms": 4100}, **HX
    )
    assert response.status_code == 200
    lookup = EvidenceLookup.objects.get(claim=claim, editor=editor)  # one record, not one per visit
    assert lookup.duration_ms == 9100 and lookup.outcome == "supported"
    # The raw times stay for audit: first served, first seen, decided.
    assert lookup.shown_at < lookup.seen_at < lookup.decided_at
    assert (lookup.decided_at - lookup.seen_at).total_seconds() > 45


def test_a_second_decision_keeps_one_record_and_adds_the_looking(client, answered):
    editor, claims = answered
    decide = reverse("claim-decide", args=[claims[0].pk])
    client.post(decide, {"status": "supported", "looked_ms": 3000, "seen_ms": 3500}, **HX)
    client.post(decide, {"status": "needs_review", "looked_ms": 2000, "seen_ms": 6000}, **HX)  # same page, later
    lookup = EvidenceLookup.objects.get(claim=claims[0], editor=editor)
    assert lookup.duration_ms == 5000 and lookup.outcome == "needs_review"


def test_a_note_keeps_its_looking_for_the_decision(client, answered):
    editor, claims = answered
    decide = reverse("claim-decide", args=[claims[0].pk])
    client.post(decide, {"note": "cek tabel", "looked_ms": 2500, "seen_ms": 2600}, **HX)
    assert EvidenceLookup.objects.get(claim=claims[0], editor=editor).decided_at is None
    client.post(decide, {"status": "supported", "looked_ms": 1500, "seen_ms": 4000}, **HX)
    assert EvidenceLookup.objects.get(claim=claims[0], editor=editor).duration_ms == 4000


def test_a_decision_the_page_never_measured_is_not_a_figure(client, answered):
    editor, claims = answered
    client.post(reverse("claim-decide", args=[claims[0].pk]), {"status": "supported"}, **HX)
    lookup = EvidenceLookup.objects.get(claim=claims[0], editor=editor)
    assert lookup.decided_at and lookup.duration_ms is None
    assert lookup_stats("editor", lookups=lookups_visible_to(editor)) == []
    client.post(
        reverse("claim-decide", args=[claims[1].pk]), {"status": "supported", "looked_ms": 800, "seen_ms": 900}, **HX
    )
    [stat] = lookup_stats("editor", lookups=lookups_visible_to(editor))
    assert stat.count == 1 and stat.median_s == 0.8


def test_reports_are_bounded_by_the_time_on_screen_and_the_cap(client, answered):
    editor, claims = answered
    assert _beacon(client, claims[0], 10 * 3600 * 1000, 10 * 3600 * 1000).status_code == 204
    lookup = EvidenceLookup.objects.get(claim=claims[0], editor=editor)
    assert lookup.looked_ms == REPORT_CAP_MS
    # Claimed looking longer than the claim has been on screen is cut to that time.
    EvidenceLookup.objects.filter(pk=lookup.pk).update(
        seen_at=lookup.seen_at + timedelta(hours=10) - timedelta(seconds=20)
    )
    client.post(reverse("claim-decide", args=[claims[0].pk]), {"status": "supported"}, **HX)
    lookup.refresh_from_db()
    assert 20_000 <= lookup.duration_ms < 25_000


@pytest.mark.parametrize("bad", [{"looked_ms": "x", "seen_ms": "1"}, {"looked_ms": "-5", "seen_ms": "1"}, {}])
def test_a_bad_report_is_refused_and_changes_nothing(client, answered, bad):
    editor, claims = answered
    response = client.post(reverse("claim-looked", args=[claims[0].pk]), bad)
    assert response.status_code == 400 and "bilangan bulat" in response.content.decode()
    assert EvidenceLookup.objects.get(claim=claims[0], editor=editor).looked_ms == 0


def test_the_beacon_needs_a_reviewer_who_may_see_the_claim(client, answered, make_user):
    editor, claims = answered
    client.force_login(make_user("pembaca"))
    assert _beacon(client, claims[0], 1000, 1000).status_code == 404  # another's question: not theirs to see
    # Their own question, without the right to review: seen, but the clock is for reviewers.
    own = question_ask(text=QUESTION, user=User.objects.get(username="pembaca")).answer
    assert _beacon(client, own.claims.first(), 1000, 1000).status_code == 403
    # A claim resting on a memo only the legal group may read: not found for the editor.
    legal = make_user("legal", "hukum", reviewer=True)
    memo = question_ask(text="Apa isi memo Proyek Garuda Biru?", user=legal).answer
    hidden = [c for c in memo.claims.all() if c.evidence.filter(evidence_id__startswith="H1:").exists()]
    assert hidden, "the memo's answer cites the memo"
    client.force_login(editor)
    assert _beacon(client, hidden[0], 1000, 1000).status_code == 404
    assert not EvidenceLookup.objects.filter(claim=hidden[0]).exclude(editor=legal).exists()
    assert not EvidenceLookup.objects.filter(editor__username="pembaca").exists()
