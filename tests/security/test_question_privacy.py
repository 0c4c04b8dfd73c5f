"""An editor's question is the editor's own (issue 51, item 1).

A question and its answer are seen by the one who asked, and by reviewers
who share a group with the asker and may read every document the answer
cites — by nobody else, on every surface: desk pages and htmx partials, the
API, exports, the history and its counts, the queue, /waktu/, /laporan/ and
Django admin for staff who are not superusers. Hidden means 404, and absent
from every list and count.

The evidence here is public on purpose: the old rule showed an answer to
anyone who could read its evidence, question text included."""

from __future__ import annotations

import json

import pytest
from django.contrib.auth.models import Permission
from django.db.models import Q
from django.test import Client
from django.urls import reverse

from review.asking import question_ask
from review.lookups import lookup_looked
from review.models import Answer, Claim, ClaimEvidence, ClaimReview, Question
from review.reviewing import claim_review

pytestmark = pytest.mark.django_db

SECRET = "RAHASIA-7731"
QUESTION = "Sejak kapan verifikasi dua langkah (2FA) wajib untuk semua akun admin?"
# What the editor wrote around the question; stored with it (the engine would refuse a question naming
# an identifier no source holds, so the note is added after the answer is drafted).
NOTE = f"Catatan internal redaksi (jangan dikutip): sumber {SECRET}. "
CATEGORY = "kategori-rahasia-7731"


@pytest.fixture
def desk(make_revision, make_user):
    make_revision(
        "# Keamanan akun\n\nVerifikasi dua langkah (2FA) wajib untuk semua akun admin sejak 1 Maret 2026.",
        key="PUB1",
        title="Keamanan akun",
        public=True,
    )
    legal = make_revision(
        "# Memo hukum\n\nMemo: 2FA admin diwajibkan karena audit kepatuhan Q1.",
        key="HKM1",
        title="Memo hukum",
        groups=("hukum",),
    )
    asker = make_user("penanya", "redaksi", "hukum", reviewer=True)
    answer = question_ask(text=QUESTION, user=asker, category=CATEGORY).answer
    assert answer.claims.exists(), "the answer needs claims for the claim surfaces to mean anything"
    Question.objects.filter(pk=answer.question_id).update(text=NOTE + QUESTION)
    claim = answer.claims.order_by("position").first()
    Answer.objects.filter(pk=answer.pk).update(status="needs_review")
    lookup_looked(claim=claim, editor=asker, looked_ms=2500, seen_ms=2500)
    claim_review(claim=claim, reviewer=asker, status=ClaimReview.NEEDS_REVIEW, note="cek lagi")
    Claim.objects.filter(answer=answer).exclude(pk=claim.pk).update(review_status=ClaimReview.PENDING)
    staff = make_user("staf", "produk", is_staff=True)
    staff.user_permissions.set(
        Permission.objects.filter(Q(codename__startswith="view_"), content_type__app_label__in=["retrieval", "review"])
    )
    return {
        "answer": answer,
        "claim": claim,
        "legal_chunk": legal.chunks.order_by("position").first(),
        "asker": asker,
        # Positive control: same groups as the asker, a reviewer, reads every document.
        "colleague": make_user("rekan", "redaksi", "hukum", reviewer=True),
        "pembaca": make_user("pembaca"),
        "other_group": make_user("peninjau-produk", "produk", reviewer=True),
        # Shares "redaksi" with the asker but may not read the legal memo.
        "no_memo": make_user("peninjau-redaksi", "redaksi", reviewer=True),
        "same_group_reader": make_user("pembaca-redaksi", "redaksi", "hukum"),
        "staff": staff,
    }


def _cite_the_memo(desk: dict) -> None:
    """One claim of the answer also cites the legal memo."""
    chunk = desk["legal_chunk"]
    ClaimEvidence.objects.create(
        claim=desk["claim"],
        evidence_id=chunk.key,
        document=chunk.document,
        revision=chunk.revision,
        chunk=chunk,
        rank=99,
    )


def _client(user) -> Client:  # noqa: ANN001
    client = Client()
    client.force_login(user)
    return client


HX = {"HTTP_HX_REQUEST": "true"}


def _surfaces(desk: dict) -> dict[str, tuple[str, dict, dict]]:
    """Name → (path, GET params, headers) of every page that could show the question."""
    answer, question, claim = desk["answer"], desk["answer"].question, desk["claim"]
    return {
        "answer page": (reverse("answer", args=[answer.pk]), {}, {}),
        "question page": (reverse("question", args=[question.pk]), {}, {}),
        "question partial": (reverse("question", args=[question.pk]), {}, HX),
        "export json": (reverse("answer-export", args=[answer.pk]), {"format": "json"}, {}),
        "export md": (reverse("answer-export", args=[answer.pk]), {"format": "md"}, {}),
        "api answer": (reverse("api-answer", args=[answer.pk]), {}, {}),
        "history": (reverse("history"), {}, {}),
        "history search": (reverse("history"), {"q": "2FA"}, HX),
        "history category": (reverse("history"), {"category": CATEGORY}, {}),
        "queue": (reverse("queue"), {}, {}),
        "home": (reverse("home"), {}, {}),
        "lookup dashboard": (reverse("dashboard"), {}, {}),
        "report": (reverse("report"), {}, {}),
        "revision back link": (reverse("revision", args=["PUB1", 1]), {"jawaban": answer.pk}, {}),
        "admin questions": ("/admin/review/question/", {}, {}),
        "admin answers": ("/admin/review/answer/", {}, {}),
        "admin claims": ("/admin/review/claim/", {}, {}),
        "admin lookups": ("/admin/review/evidencelookup/", {}, {}),
        "admin question": (f"/admin/review/question/{question.pk}/change/", {}, {}),
        "admin answer": (f"/admin/review/answer/{answer.pk}/change/", {}, {}),
        "admin claim": (f"/admin/review/claim/{claim.pk}/change/", {}, {}),
    }


# Pages that answer 404 for what the reader may not open; the rest are lists (200, or 403 for non-reviewers).
OBJECT_PAGES = {"answer page", "question page", "question partial", "export json", "export md", "api answer"}


def _traces(desk: dict, body: str, *, document_text: bool = False) -> list[str]:
    """What of the question shows in ``body``: its text, its category, a link to
    its answer, and (on pages that do not show the documents themselves, where
    a quoted claim would read as the source does) its claim texts."""
    answer = desk["answer"]
    found = [s for s in (SECRET, CATEGORY, f'href="/jawaban/{answer.pk}/"') if s in body]
    if not document_text:
        found += [f"claim {c.pk}" for c in answer.claims.all() if c.text[:60] in body]
    return found


def _staff_for_admin(desk: dict, user) -> Client:  # noqa: ANN001
    """Admin pages are for staff: the same user, made staff with view rights, so
    the admin's own scoping (not the staff check) is what is tested."""
    user.is_staff = True
    user.save(update_fields=["is_staff"])
    user.user_permissions.add(
        *Permission.objects.filter(codename__startswith="view_", content_type__app_label__in=["retrieval", "review"])
    )
    return _client(user)


def _sees(desk: dict, who: str) -> dict[str, tuple[int, list[str]]]:
    client = _staff_for_admin(desk, desk[who])
    seen = {}
    for name, (path, params, headers) in _surfaces(desk).items():
        response = client.get(path, params, **headers)
        traces = _traces(desk, response.content.decode(), document_text=name == "revision back link")
        seen[name] = (response.status_code, traces)
    return seen


def _assert_hidden(desk: dict, who: str) -> None:
    for name, (status, traces) in _sees(desk, who).items():
        assert not traces, (who, name, traces)
        if name in OBJECT_PAGES:
            assert status == 404, (who, name, status)
        elif name.startswith("admin") and name.endswith(("question", "answer", "claim")):
            assert status == 302, (who, name, status)  # Django admin: "does not exist", back to the index
        else:
            assert status in (200, 403), (who, name, status)


def test_the_asker_and_a_colleague_who_may_read_everything_see_it(desk):
    """The positive control: without it the hidden cases below prove nothing."""
    _cite_the_memo(desk)
    for who in ("asker", "colleague"):
        seen = _sees(desk, who)
        for name in ("answer page", "export json", "export md", "api answer", "history", "history category"):
            assert seen[name][0] == 200 and SECRET in " ".join(seen[name][1]), (who, name, seen[name])
        for name in ("queue", "admin questions", "admin answers", "admin question", "admin answer"):
            assert seen[name][0] == 200 and seen[name][1], (who, name, seen[name])
        assert CATEGORY in seen["lookup dashboard"][1], who
    assert SECRET in _sees(desk, "asker")["home"][1]


@pytest.mark.parametrize("who", ["pembaca", "other_group", "same_group_reader", "staff"])
def test_nobody_else_sees_the_question_anywhere(desk, who):
    _assert_hidden(desk, who)


def test_a_reviewer_of_the_askers_group_who_may_not_read_one_cited_document_sees_nothing(desk):
    assert _sees(desk, "no_memo")["answer page"][0] == 200, "readable while it cites only public evidence"
    _cite_the_memo(desk)
    _assert_hidden(desk, "no_memo")


def test_hidden_claims_are_404_on_every_partial_and_the_api(desk):
    claim = desk["claim"]
    posts = [
        (reverse("claim-decide", args=[claim.pk]), {"status": "supported"}),
        (reverse("claim-opened", args=[claim.pk]), {}),
        (reverse("claim-looked", args=[claim.pk]), {"looked_ms": 10, "seen_ms": 10}),
        (reverse("claim-case", args=[claim.pk]), {}),
    ]
    for who in ("pembaca", "other_group"):
        client = _client(desk[who])
        for path, data in posts:
            response = client.post(path, data, **HX)
            assert response.status_code == 404 and SECRET not in response.content.decode(), (who, path)
        response = client.post(
            reverse("api-claim-review", args=[claim.pk]),
            json.dumps({"status": "supported"}),
            content_type="application/json",
        )
        assert response.status_code == 404, who
    assert Claim.objects.get(pk=claim.pk).review_status == ClaimReview.NEEDS_REVIEW


def test_counts_and_filter_choices_leave_the_question_out(desk):
    for who in ("other_group", "no_memo"):
        if who == "no_memo":
            _cite_the_memo(desk)
        client = _client(desk[who])
        queue = client.get(reverse("queue"))
        assert queue.context["counts"]["all"] == 0, who
        history = client.get(reverse("history"))
        assert history.context["page"].paginator.count == 0, who
        assert CATEGORY not in list(history.context["categories"]), who
