"""The permission-leak matrix: every surface a reader can reach, asked by a
reader inside a restricted document's group (who must see it, so the surface
can fail), by readers outside it (who must get nothing of it: no title, key,
text, URL or evidence id, and a 404 exactly like a missing object's), and by
the insider again once the group is revoked (at once, same session, same
token)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass

import pytest
from django.contrib.auth.models import Group, Permission
from django.db.models import Q
from django.test import Client
from django.urls import reverse

from review.asking import question_ask
from review.models import Answer
from review.tokens import token_issue

pytestmark = pytest.mark.django_db

KEY = "RHS9"
SECRETS = ("Kalimaya", "KLM-4471", "intra.example", KEY)
QUESTION = "Kapan fitur Sinar diluncurkan untuk pelanggan hukum?"
SEARCH = "peluncuran fitur Sinar untuk pelanggan hukum ditunda sampai Juli"  # names no secret: echoes are harmless


@pytest.fixture
def world(make_revision, make_user):
    make_revision(
        "# Panduan Sinar\n\nFitur Sinar tersedia dalam private preview sejak Maret 2026 untuk pelanggan terpilih.",
        key="P1",
        title="Panduan Sinar",
        public=True,
        source_type="documentation",
        relations=[("cites", KEY)],
    )
    make_revision(
        "# Memo\n\nMemo Kalimaya: fitur Sinar diluncurkan untuk pelanggan hukum pada 3 Juni 2026.",
        key=KEY,
        title="Memo Kalimaya",
        groups=("hukum",),
        source_type="policy",
        url="https://intra.example/kalimaya",
    )
    make_revision(
        "# Memo\n\nMemo Kalimaya: peluncuran fitur Sinar untuk pelanggan hukum ditunda sampai "
        "Juli 2026 (kode KLM-4471).",
        key=KEY,
        title="Memo Kalimaya",
        groups=("hukum",),
        source_type="policy",
        url="https://intra.example/kalimaya",
    )
    insider = make_user("legal", "hukum", "peninjau")
    Group.objects.get(name="peninjau").permissions.add(Permission.objects.get(codename="review_claim"))
    # A reviewer outside the memo's group: the matrix tests what groups hide;
    # the rights column below, what the permission refuses.
    outsider = make_user("pembaca", "peninjau")
    # Sees everything the insider sees, but has no right to review.
    onlooker = make_user("pengamat", "hukum")
    staff = make_user("staf", "redaksi", is_staff=True)
    staff.user_permissions.set(
        Permission.objects.filter(
            Q(codename__startswith="view_") | Q(codename="add_revision"),
            content_type__app_label__in=["retrieval", "review"],
        )
    )
    answer = question_ask(text=QUESTION, user=insider).answer
    assert any(e.startswith(f"{KEY}:") for e in answer.contract["evidence"]), "the memo must be evidence"
    return {
        "insider": insider,
        "outsider": outsider,
        "onlooker": onlooker,
        "staff": staff,
        "answer": answer,
        "claims": list(answer.claims.values_list("pk", flat=True)),
    }


@dataclass(frozen=True)
class Surface:
    name: str
    fetch: Callable[[Client, dict, dict], tuple[int, str]]  # (client, world, auth headers) → (status, body)
    insider_sees: bool = True  # the surface shows the memo to its group (else: it never shows document text)
    hidden_status: int | None = None  # what an outsider gets, when it is not a normal page


def _get(path: str, **params: object) -> Callable[[Client, dict, dict], tuple[int, str]]:
    def fetch(client: Client, world: dict, auth: dict) -> tuple[int, str]:
        response = client.get(path.format(**world), params, **auth)
        return response.status_code, response.content.decode()

    return fetch


def _answer_url(name: str, **params: object) -> Callable[[Client, dict, dict], tuple[int, str]]:
    def fetch(client: Client, world: dict, auth: dict) -> tuple[int, str]:
        response = client.get(reverse(name, args=[world["answer"].pk]), params)
        return response.status_code, response.content.decode()

    return fetch


def _ask(client: Client, world: dict, auth: dict) -> tuple[int, str]:
    response = client.post(
        reverse("api-ask"), json.dumps({"question": QUESTION}), content_type="application/json", **auth
    )
    return response.status_code, response.content.decode()


def _claim_posts(name: str) -> Callable[[Client, dict, dict], tuple[int, str]]:
    def fetch(client: Client, world: dict, auth: dict) -> tuple[int, str]:
        statuses, bodies = set(), []
        for pk in world["claims"]:
            response = client.post(
                reverse(name, args=[pk]), {"status": "supported", "note": "cek"}, HTTP_HX_REQUEST="true"
            )
            statuses.add(response.status_code)
            bodies.append(response.content.decode())
        return max(statuses), "\n".join(bodies)

    return fetch


def _evidence_redirect(client: Client, world: dict, auth: dict) -> tuple[int, str]:
    response = client.get(reverse("evidence", args=[f"{KEY}:r2:p1"]))
    return response.status_code, response.get("Location", "") + response.content.decode()


SURFACES = [
    Surface("api search hybrid + graph", _get("/api/search", q=SEARCH, k=20, include_superseded=1, expand=1)),
    Surface("api search lexical", _get("/api/search", q=SEARCH, mode="lexical", include_superseded=1)),
    Surface("api search vector", _get("/api/search", q=SEARCH, mode="vector", include_superseded=1)),
    Surface(
        "api search graph from a public hit", _get("/api/search", q="Panduan Sinar private preview", k=1, expand=1)
    ),
    Surface("api ask", _ask),
    Surface("search page", _get("/cari/", q=SEARCH, lama=1)),
    Surface("search page lexical partial", _get("/cari/", q=SEARCH, mode="lexical", lama=1)),
    Surface("stored answer page", _answer_url("answer"), hidden_status=404),
    Surface("answer export json", _answer_url("answer-export", format="json"), hidden_status=404),
    Surface("answer export markdown", _answer_url("answer-export", format="md"), hidden_status=404),
    Surface("evidence link", _evidence_redirect, hidden_status=404),
    Surface("document page", _get(f"/dokumen/{KEY}/"), hidden_status=404),
    Surface("revision page", _get(f"/dokumen/{KEY}/r1/"), hidden_status=404),
    Surface("revision diff", _get(f"/dokumen/{KEY}/beda/", dari=1, ke=2), hidden_status=404),
    Surface("archive", _get("/arsip/")),
    Surface("review queue", _get("/antrean/"), insider_sees=False),
    Surface("history", _get("/riwayat/", q="Sinar"), insider_sees=False),
    Surface("lookup dashboard", _get("/waktu/"), insider_sees=False),
    Surface("report", _get("/laporan/"), insider_sees=False),
    Surface("home", _get("/"), insider_sees=False),
]
CLAIM_SURFACES = [
    Surface(f"claim {name}", _claim_posts(name), hidden_status=404)
    for name in ("claim-decide", "claim-opened", "claim-case")
]


def reader(user, *, bearer: bool = False) -> tuple[Client, dict]:  # noqa: ANN001
    client = Client()
    if bearer:
        return client, {"HTTP_AUTHORIZATION": f"Bearer {token_issue(user=user, name='matriks')[1]}"}
    client.force_login(user)
    return client, {}


def unmasked(response) -> str:  # noqa: ANN001
    """The page without its CSRF token, which Django masks anew per response."""
    return re.sub(r"[A-Za-z0-9]{64}", "<csrf>", response.content.decode())


def leaks(body: str) -> list[str]:
    return [s for s in SECRETS if s in body]


@pytest.mark.parametrize("bearer", [False, True], ids=["session", "bearer"])
def test_outsiders_get_nothing_and_revocation_is_immediate(world, bearer):
    insider, insider_auth = reader(world["insider"], bearer=bearer)
    outsider, outsider_auth = reader(world["outsider"], bearer=bearer)
    surfaces = [s for s in SURFACES if not bearer or s.name.startswith("api")]
    for surface in surfaces:  # the insider first: nothing they fetched may be served on to others
        status, body = surface.fetch(insider, world, insider_auth)
        assert status in (200, 302), (surface.name, status)
        if surface.insider_sees:
            assert leaks(body), f"{surface.name}: the insider should see the memo (else this check proves nothing)"
    for surface in surfaces:
        status, body = surface.fetch(outsider, world, outsider_auth)
        assert status == (surface.hidden_status or 200), (surface.name, status)
        assert not leaks(body), (surface.name, leaks(body))

    world["insider"].groups.remove(Group.objects.get(name="hukum"))
    for surface in surfaces:
        status, body = surface.fetch(insider, world, insider_auth)
        if surface.name in ("stored answer page", "answer export json", "answer export markdown"):
            assert status == 200, surface.name  # their own question stays theirs, without the memo's claims
        else:
            assert status == (surface.hidden_status or 200), (surface.name, status)
        assert not leaks(body), (f"after revocation: {surface.name}", leaks(body))


def test_claim_partials_are_404_for_outsiders_and_after_revocation(world):
    insider, _ = reader(world["insider"])
    outsider, _ = reader(world["outsider"])
    assert world["claims"], "the insider's answer has claims resting on the memo"
    for surface in CLAIM_SURFACES:
        status, body = surface.fetch(outsider, world, {})
        assert status == 404 and not leaks(body), surface.name
    Answer.objects.filter(pk=world["answer"].pk).update(status="needs_review")
    world["insider"].groups.clear()
    for surface in CLAIM_SURFACES:
        status, body = surface.fetch(insider, world, {})
        assert status == 404 and not leaks(body), f"after revocation: {surface.name}"


def test_a_document_taken_out_of_a_group_disappears_at_once(world):
    insider, auth = reader(world["insider"], bearer=True)
    assert leaks(_get("/api/search", q=SEARCH, include_superseded=1)(insider, world, auth)[1])
    world["answer"].question.asked_by = None  # not their question any more: the answer is only its evidence
    world["answer"].question.save()
    from retrieval.models import Document

    Document.objects.get(key=KEY).groups.clear()
    assert not leaks(_get("/api/search", q=SEARCH, include_superseded=1)(insider, world, auth)[1])
    session, _ = reader(world["insider"])
    assert session.get(reverse("answer", args=[world["answer"].pk])).status_code == 404


def test_a_hidden_object_is_indistinguishable_from_a_missing_one(world):
    """Error pages are no oracle: the 404 for a hidden document, revision,
    diff or evidence id is byte for byte the 404 for one that never existed."""
    outsider, _ = reader(world["outsider"])
    pairs = [
        (f"/dokumen/{KEY}/", "/dokumen/TIDAKADA/"),
        (f"/dokumen/{KEY}/r2/", "/dokumen/TIDAKADA/r2/"),
        (f"/dokumen/{KEY}/beda/", "/dokumen/TIDAKADA/beda/"),
        (f"/bukti/{KEY}:r2:p1/", "/bukti/TIDAKADA:r2:p1/"),
        (reverse("answer", args=[world["answer"].pk]), reverse("answer", args=[999_999])),
    ]
    for hidden, missing in pairs:
        a, b = outsider.get(hidden), outsider.get(missing)
        assert (a.status_code, unmasked(a)) == (b.status_code, unmasked(b)), hidden


def test_api_answers_and_timings_fields_do_not_depend_on_hidden_documents(world, make_revision):
    """The outsider's ask contract (timings aside) is the same with the memo
    in the archive and with it deleted, so neither content nor its shape
    gives it away."""
    from retrieval.models import Document

    outsider, auth = reader(world["outsider"], bearer=True)

    def asked() -> dict:
        body = json.loads(_ask(outsider, world, auth)[1])
        body.pop("question_id")
        return body

    with_memo = asked()
    Document.objects.filter(key=KEY).delete()
    without_memo = asked()
    assert with_memo == without_memo


def test_admin_is_staff_only_and_scoped_to_the_staff_members_groups(world, admin_client):
    pages = [
        "/admin/retrieval/document/",
        "/admin/retrieval/revision/",
        "/admin/retrieval/chunk/",
        "/admin/retrieval/relation/",
        "/admin/review/question/",
        "/admin/review/answer/",
        "/admin/review/claim/",
        "/admin/review/evidencelookup/",
        "/admin/retrieval/revision/add/",
        "/admin/retrieval/chunk/?q=ditunda",
    ]
    superuser_sees = [p for p in pages if leaks(admin_client.get(p).content.decode())]
    assert {
        "/admin/retrieval/document/",
        "/admin/retrieval/revision/add/",
        "/admin/retrieval/chunk/?q=ditunda",
        "/admin/retrieval/relation/",
    } <= set(superuser_sees), superuser_sees

    outsider, _ = reader(world["outsider"])
    for page in pages:
        response = outsider.get(page)
        assert response.status_code == 302 and "/admin/login/" in response["Location"], page
    staff, _ = reader(world["staff"])
    for page in pages:
        response = staff.get(page)
        assert response.status_code == 200 and not leaks(response.content.decode()), (
            page,
            leaks(response.content.decode()),
        )
    from retrieval.models import Document, Revision

    hidden_doc = Document.objects.get(key=KEY)
    hidden_revision = Revision.objects.filter(document=hidden_doc).first()
    for page in (
        f"/admin/retrieval/document/{hidden_doc.pk}/change/",
        f"/admin/retrieval/revision/{hidden_revision.pk}/change/",
        f"/admin/review/answer/{world['answer'].pk}/change/",
    ):
        response = staff.get(page, follow=True)
        assert not leaks(response.content.decode()), page
        assert response.redirect_chain and response.redirect_chain[-1][0] == "/admin/", page


def _review_api(client: Client, world: dict, auth: dict) -> tuple[int, str]:
    statuses, bodies = set(), []
    for pk in world["claims"]:
        response = client.post(
            reverse("api-claim-review", args=[pk]),
            json.dumps({"status": "supported", "note": "cek"}),
            content_type="application/json",
            **auth,
        )
        statuses.add(response.status_code)
        bodies.append(response.content.decode())
    return max(statuses), "\n".join(bodies)


def _state(world: dict) -> tuple:
    """Everything a review can change."""
    from review.models import Claim, EvalCase, EvidenceLookup

    return (
        list(Claim.objects.filter(pk__in=world["claims"]).values_list("review_status", "review_note", "reviewer_id")),
        EvidenceLookup.objects.count(),
        EvalCase.objects.count(),
        Answer.objects.get(pk=world["answer"].pk).status,
    )


@pytest.mark.parametrize("bearer", [False, True], ids=["session", "bearer"])
def test_the_rights_column_a_reader_who_may_see_but_not_review_changes_nothing(world, bearer):
    """The onlooker asked the question (same groups as the insider), so may
    open the answer, but every state-changing review endpoint is a 403 and
    nothing changes; the reviewer's queue and lookup times are refused too."""
    _asked_by(world, "onlooker")
    Answer.objects.filter(pk=world["answer"].pk).update(status="needs_review")
    from review.models import Claim

    Claim.objects.filter(pk__in=world["claims"]).update(review_status="needs_review")  # so "case" can act
    onlooker, auth = reader(world["onlooker"], bearer=bearer)
    before = _state(world)
    writes = [("api review", _review_api)] + ([] if bearer else [(s.name, s.fetch) for s in CLAIM_SURFACES])
    for name, fetch in writes:
        status, body = fetch(onlooker, world, auth)
        assert status == 403, (name, status)
        assert _state(world) == before, f"{name} changed something"
    if not bearer:
        assert onlooker.get(reverse("answer", args=[world["answer"].pk])).status_code == 200
        for page in ("/antrean/", "/waktu/"):
            assert onlooker.get(page).status_code == 403, page
    # The same calls by a reviewer do change things (else the 403s prove nothing).
    insider, insider_auth = reader(world["insider"], bearer=bearer)
    assert _review_api(insider, world, insider_auth)[0] == 200
    assert _state(world) != before


def _asked_by(world: dict, who: str) -> None:
    """The world's answer becomes ``who``'s question: only the asker and
    reviewers of the asker's groups may open it."""
    from review.models import Question

    Question.objects.filter(pk=world["answer"].question_id).update(asked_by=world[who])


def test_a_reader_without_the_right_sees_no_ones_notes_and_no_review_counts(world):
    """The onlooker asked; the insider, a reviewer of the onlooker's group, judged a claim."""
    from review.models import Claim
    from review.reviewing import claim_review

    _asked_by(world, "onlooker")

    claim = Claim.objects.get(pk=world["claims"][0])
    claim_review(claim=claim, reviewer=world["insider"], status="needs_review", note="catatan-rahasia-editor")
    answer = reverse("answer", args=[world["answer"].pk])
    export = reverse("answer-export", args=[world["answer"].pk])
    views = {}
    for who in ("insider", "onlooker"):
        client, _ = reader(world[who])
        views[who] = {
            "page": client.get(answer).content.decode(),
            "json": json.loads(client.get(export, {"format": "json"}).content),
            "md": client.get(export, {"format": "md"}).content.decode(),
            "report": client.get("/laporan/").content.decode(),
        }
    mine, theirs = views["insider"], views["onlooker"]
    assert "catatan-rahasia-editor" in mine["page"] and "Didukung</button>" in mine["page"]
    assert mine["json"]["claims"][0]["review"]["note"] == "catatan-rahasia-editor"
    assert " — _" in mine["md"] and "Waktu mencari bukti" in mine["report"]
    # The onlooker reads the same claims, without anyone's notes, decisions or review buttons.
    assert claim.text[:40] in theirs["page"]
    assert "catatan-rahasia-editor" not in theirs["page"] and "Didukung</button>" not in theirs["page"]
    assert 'class="decided"' in mine["page"] and 'class="decided"' not in theirs["page"]
    assert all("review" not in c for c in theirs["json"]["claims"]) and theirs["json"]["claims"]
    assert " — _" not in theirs["md"] and "Waktu mencari bukti" not in theirs["report"]


def test_filter_choices_and_lookup_counts_come_only_from_what_the_viewer_may_see(world, make_user):
    from review.lookups import lookup_looked
    from review.models import Claim, EvidenceLookup, Question
    from review.reviewing import claim_review

    Question.objects.filter(pk=world["answer"].question_id).update(category="rahasia-hukum")
    claim = Claim.objects.get(pk=world["claims"][0])
    lookup_looked(claim=claim, editor=world["insider"], looked_ms=3000, seen_ms=3000)  # as the page reports it
    claim_review(claim=claim, reviewer=world["insider"], status="supported")
    assert EvidenceLookup.objects.filter(decided_at__isnull=False).exists()
    reviewer_outside = make_user("editor-luar", "peninjau")  # may review, may not see the memo
    insider, _ = reader(world["insider"])
    outside, _ = reader(reviewer_outside)
    assert "rahasia-hukum" in insider.get("/riwayat/").content.decode()
    assert "rahasia-hukum" not in outside.get("/riwayat/").content.decode()
    assert "rahasia-hukum" in insider.get("/waktu/").content.decode()
    dashboard = outside.get("/waktu/")
    assert dashboard.status_code == 200 and "rahasia-hukum" not in dashboard.content.decode()
    assert ">legal<" not in dashboard.content.decode()
