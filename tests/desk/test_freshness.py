"""Stored answers that know their sources changed (issue 44 item 1): a
revision made active after the answer flags the evidence resting on the old
one ("Revisi lama — kini r3"), the answer gets a banner with "Tanyakan lagi",
a decision on such a claim asks for confirmation, the queue shows these
answers apart — and none of it tells a reader about a document they may not see."""

from __future__ import annotations

import json
from datetime import date

import pytest
from django.contrib.auth.models import Group
from django.urls import reverse

from review.asking import question_ask
from review.freshness import with_sources_changed
from review.models import Answer, Claim, ClaimEvidence, ClaimReview, Question
from review.reviewing import OldSourcesUnconfirmed, claim_old_sources, claim_review

pytestmark = pytest.mark.django_db
HX = {"HTTP_HX_REQUEST": "true"}
QUESTION = "Berapa peserta paling banyak webinar Kemilau?"
OLD = "# Webinar Kemilau\n\nWebinar Kemilau dapat diikuti paling banyak 300 peserta per sesi."
NEW = "# Webinar Kemilau\n\nWebinar Kemilau dapat diikuti paling banyak 500 peserta per sesi."
BANNER = "Sumber berubah sejak jawaban ini dibuat"


@pytest.fixture
def webinar(make_revision):
    """D40 r1 and r2 (r2 in force), public; a memo only the group hukum reads."""
    make_revision(
        "# Webinar Kemilau\n\nWebinar Kemilau sedang disiapkan.", key="D40", title="Panduan webinar", public=True
    )
    make_revision(OLD, key="D40", title="Panduan webinar", public=True, document_date=date(2026, 2, 1))
    make_revision(
        "# Memo\n\nWebinar Kemilau untuk tim hukum dapat diikuti paling banyak 40 peserta.",
        key="H40",
        title="Memo hukum",
        groups=("hukum",),
    )


def _answer_citing(user, key: str = "D40:r2"):  # noqa: ANN001, ANN202
    answer = question_ask(text=QUESTION, user=user).answer
    cited = ClaimEvidence.objects.filter(claim__answer=answer, evidence_id__startswith=key + ":")
    assert cited.exists(), f"the answer should cite {key}: {answer.contract}"
    return answer, cited.first().claim


def test_an_answer_shows_when_its_source_was_replaced(client, webinar, make_user, make_revision):
    editor = make_user("editor", reviewer=True)
    client.force_login(editor)
    answer, claim = _answer_citing(editor)
    page = client.get(reverse("answer", args=[answer.pk])).content.decode()
    assert BANNER not in page and "Revisi lama" not in page and "revisi yang berlaku" in page

    make_revision(NEW, key="D40", title="Panduan webinar", public=True, document_date=date(2026, 4, 1))
    page = client.get(reverse("answer", args=[answer.pk])).content.decode()
    assert BANNER in page and "kini r3" in page
    claim_html = page[page.index(f'id="claim-{claim.pk}"') :]
    assert "Revisi lama — kini r3" in claim_html[: claim_html.index("evidence-list")]
    assert "bukan lagi revisi yang berlaku" in page
    # One click asks again: a form carrying the question and where it came from.
    assert f'name="dari" value="{answer.pk}"' in page and "Tanyakan lagi" in page


def test_asking_again_links_both_answers(client, webinar, make_user, make_revision):
    editor = make_user("editor", reviewer=True)
    client.force_login(editor)
    old, _ = _answer_citing(editor)
    make_revision(NEW, key="D40", title="Panduan webinar", public=True)
    response = client.post(reverse("ask"), {"question": QUESTION, "dari": old.pk})
    asked = Question.objects.latest("pk")
    assert response.status_code == 302 and asked.asked_again_from_id == old.pk
    new = question_ask(text=QUESTION, user=editor, question=asked).answer
    new_page = client.get(reverse("answer", args=[new.pk])).content.decode()
    old_page = client.get(reverse("answer", args=[old.pk])).content.decode()
    assert reverse("answer", args=[old.pk]) in new_page and "Ditanyakan lagi dari" in new_page
    assert reverse("answer", args=[new.pk]) in old_page and "Sudah ditanyakan lagi" in old_page
    # Asked again already: the old answer points to the new one instead of offering to ask again.
    assert BANNER in old_page and "Tanyakan lagi</button>" not in old_page
    assert BANNER not in new_page  # the new answer rests on r3


def test_asking_again_from_an_answer_one_may_not_open_is_ignored(client, webinar, make_user):
    legal = make_user("legal", "hukum", reviewer=True)
    hidden = question_ask(text="Berapa peserta webinar Kemilau untuk tim hukum?", user=legal).answer
    assert ClaimEvidence.objects.filter(claim__answer=hidden, evidence_id__startswith="H40").exists()
    client.force_login(make_user("pembaca"))
    client.post(reverse("ask"), {"question": QUESTION, "dari": hidden.pk})
    assert Question.objects.latest("pk").asked_again_from_id is None


def test_a_newer_answer_the_reader_may_not_open_is_not_mentioned(client, webinar, make_user, make_revision):
    editor = make_user("editor", "redaksi", reviewer=True)
    old, _ = _answer_citing(editor)
    make_revision(NEW, key="D40", title="Panduan webinar", public=True)
    # A colleague of the editor's desk who also reads the legal memo.
    legal = make_user("legal", "redaksi", "hukum", reviewer=True)
    asked = Question.objects.create(text="Berapa peserta webinar Kemilau untuk tim hukum?", asked_by=legal)
    Question.objects.filter(pk=asked.pk).update(asked_again_from=old)
    asked.refresh_from_db()
    newer = question_ask(text=asked.text, user=legal, question=asked).answer
    assert ClaimEvidence.objects.filter(claim__answer=newer, evidence_id__startswith="H40").exists()
    client.force_login(editor)
    page = client.get(reverse("answer", args=[old.pk])).content.decode()
    assert reverse("answer", args=[newer.pk]) not in page and "Sudah ditanyakan lagi" not in page
    client.force_login(legal)
    assert reverse("answer", args=[newer.pk]) in client.get(reverse("answer", args=[old.pk])).content.decode()


def test_a_decision_on_an_old_revision_asks_for_confirmation(client, webinar, make_user, make_revision):
    editor = make_user("editor", reviewer=True)
    client.force_login(editor)
    answer, claim = _answer_citing(editor)
    make_revision(NEW, key="D40", title="Panduan webinar", public=True)
    url = reverse("claim-decide", args=[claim.pk])

    # htmx: the claim's row comes back asking, nothing saved.
    response = client.post(url, {"status": "supported", "note": "dicek"}, **HX)
    html = response.content.decode()
    assert response.status_code == 409 and "<html" not in html
    assert "Klaim ini bersandar pada revisi lama" in html and "kini r3" in html
    assert 'name="confirm" value="1"' in html and 'name="note" value="dicek"' in html
    claim.refresh_from_db()
    assert claim.review_status == ClaimReview.PENDING and claim.reviewer is None
    # Without script: the whole answer page, asking in that claim's row.
    page = client.post(url, {"status": "needs_review"})
    assert (
        page.status_code == 409 and "<html" in page.content.decode() and "data-confirm-prompt" in page.content.decode()
    )
    claim.refresh_from_db()
    assert claim.review_status == ClaimReview.PENDING
    # Confirmed: saved, with the note.
    response = client.post(url, {"status": "supported", "note": "dicek", "confirm": "1"}, **HX)
    assert response.status_code == 200
    claim.refresh_from_db()
    assert claim.review_status == ClaimReview.SUPPORTED and claim.review_note == "dicek"
    # A note alone decides nothing, and so asks nothing.
    assert client.post(url, {"note": "catatan lagi"}, **HX).status_code == 200


def test_the_service_and_the_api_ask_too(client, webinar, make_user, make_revision):
    editor = make_user("editor", reviewer=True)
    _, claim = _answer_citing(editor)
    claim_review(claim=claim, reviewer=editor, status="supported")  # in force: no question asked
    make_revision(NEW, key="D40", title="Panduan webinar", public=True)
    assert [now for _, now in claim_old_sources(claim=claim, reader=editor)] == [3]
    with pytest.raises(OldSourcesUnconfirmed):
        claim_review(claim=claim, reviewer=editor, status="needs_review")
    client.force_login(editor)
    url = reverse("api-claim-review", args=[claim.pk])
    response = client.post(url, {"status": "needs_review"}, content_type="application/json")
    assert response.status_code == 409 and "confirm" in response.json()["error"]
    assert "D40" not in response.json()["error"]
    claim.refresh_from_db()
    assert claim.review_status == ClaimReview.SUPPORTED
    response = client.post(url, {"status": "needs_review", "confirm": True}, content_type="application/json")
    assert response.status_code == 200 and response.json()["status"] == "needs_review"


def test_the_queue_and_history_show_these_answers_apart(client, webinar, make_user, make_revision):
    editor = make_user("editor", reviewer=True)
    client.force_login(editor)
    stale, _ = _answer_citing(editor)
    make_revision(NEW, key="D40", title="Panduan webinar", public=True)
    fresh = question_ask(text=QUESTION, user=editor).answer
    queue = client.get(reverse("queue")).content.decode()
    assert "Sumber berubah (1)" in queue and "Semua (2)" in queue
    row = queue[queue.index(reverse("answer", args=[stale.pk])) :]
    assert "sumber berubah" in row[: row.index("</tr>")]
    row = queue[queue.index(reverse("answer", args=[fresh.pk])) :]
    assert "sumber berubah" not in row[: row.index("</tr>")]
    only = client.get(reverse("queue"), {"sumber": "berubah"}).content.decode()
    assert reverse("answer", args=[stale.pk]) in only and reverse("answer", args=[fresh.pk]) not in only
    history = client.get(reverse("history")).content.decode()
    row = history[history.index(reverse("answer", args=[stale.pk])) :]
    assert "sumber berubah" in row[: row.index("</tr>")]


def test_a_replaced_document_the_reader_no_longer_sees_is_not_flagged(client, webinar, make_user, make_revision):
    """An editor asked while in hukum and then left the group: their own answer
    stays theirs to open, but the memo's new revision is not theirs to learn
    about — no badge, no banner, no "sumber berubah" in the queue or counts."""
    editor = make_user("editor", "hukum", reviewer=True)
    answer, claim = _answer_citing(editor, "H40:r1")
    make_revision(
        "# Memo\n\nWebinar Kemilau untuk tim hukum dapat diikuti paling banyak 60 peserta.",
        key="H40",
        title="Memo hukum",
        groups=("hukum",),
    )
    editor.groups.remove(Group.objects.get(name="hukum"))
    client.force_login(editor)
    page = client.get(reverse("answer", args=[answer.pk]))
    assert page.status_code == 200
    html = page.content.decode()
    assert BANNER not in html and "kini r2" not in html and "H40" not in html
    queue = client.get(reverse("queue")).content.decode()
    assert "Sumber berubah (0)" in queue and "data-sources-changed" not in queue
    export = json.loads(client.get(reverse("answer-export", args=[answer.pk])).content)
    assert export["sources_changed"] == [] and not any(k.startswith("H40") for k in export["evidence"])
    assert "H40" not in client.get(reverse("answer-export", args=[answer.pk]), {"format": "md"}).content.decode()
    # Back in the group, it is theirs to see again.
    editor.groups.add(Group.objects.get(name="hukum"))
    assert BANNER in client.get(reverse("answer", args=[answer.pk])).content.decode()
    assert Claim.objects.filter(pk=claim.pk).exists()


def test_exports_say_which_sources_are_in_force(client, webinar, make_user, make_revision):
    editor = make_user("editor", reviewer=True)
    client.force_login(editor)
    answer, _ = _answer_citing(editor)
    data = json.loads(client.get(reverse("answer-export", args=[answer.pk])).content)
    assert data["sources_changed"] == [] and all(
        e["in_force"] for e in data["evidence"].values() if e["document"] == "D40"
    )
    make_revision(NEW, key="D40", title="Panduan webinar", public=True)
    data = json.loads(client.get(reverse("answer-export", args=[answer.pk])).content)
    old = [eid for eid, e in data["evidence"].items() if e["document"] == "D40"]
    assert old and data["sources_changed"] and set(data["sources_changed"]) <= set(old)
    assert all(not data["evidence"][eid]["in_force"] and data["evidence"][eid]["current_revision"] == 3 for eid in old)
    assert any(claim["old_revisions"] for claim in data["claims"])
    md = client.get(reverse("answer-export", args=[answer.pk]), {"format": "md"}).content.decode()
    assert BANNER in md and "Revisi lama — kini r3" in md and "berlaku r3" in md


def test_the_api_shows_a_stored_answer_as_of_now(client, webinar, make_user, make_revision):
    editor = make_user("editor", reviewer=True)
    answer, _ = _answer_citing(editor)
    client.force_login(editor)
    url = reverse("api-answer", args=[answer.pk])
    data = client.get(url).json()
    assert data["sources_changed"] == [] and data["asked_again_from"] is None
    make_revision(NEW, key="D40", title="Panduan webinar", public=True)
    data = client.get(url).json()
    old = [eid for eid, e in data["contract"]["evidence"].items() if e["document"] == "D40"]
    assert data["sources_changed"] and set(data["sources_changed"]) <= set(old)
    assert all(data["contract"]["evidence"][eid]["superseded"] for eid in old)
    assert {data["contract"]["evidence"][eid]["current_revision"] for eid in old} == {3}
    # An answer resting on what the caller may not see is not theirs to open.
    legal = make_user("legal", "hukum", reviewer=True)
    hidden = question_ask(text="Berapa peserta webinar Kemilau untuk tim hukum?", user=legal).answer
    response = client.get(reverse("api-answer", args=[hidden.pk]))
    assert response.status_code == 404 and response.json() == {"error": "jawaban tidak ditemukan"}


def test_an_answer_as_of_a_date_is_judged_against_the_revision_in_force_that_day(
    client, webinar, make_user, make_revision
):
    """Issue 51 item 2: asked "per 2026-03-01", the answer quotes D40 r2, in
    force that day. No "Revisi lama", no confirmation, no "sumber berubah" —
    and, apart, that D40 has had r3 since. A revision dated before that day
    that appears later is a change like any other."""
    make_revision(NEW, key="D40", title="Panduan webinar", public=True, document_date=date(2026, 4, 1))
    editor = make_user("editor", reviewer=True)
    client.force_login(editor)
    answer = question_ask(text=QUESTION, user=editor, as_of=date(2026, 3, 1)).answer
    cited = ClaimEvidence.objects.filter(claim__answer=answer, evidence_id__startswith="D40:r2:")
    assert cited.exists(), answer.contract
    claim = cited.first().claim
    page = client.get(reverse("answer", args=[answer.pk])).content.decode()
    assert "Revisi lama" not in page and BANNER not in page and "Bukti dari revisi lama" not in page
    assert "Sejak tanggal itu, D40 kini r3." in page
    assert claim_old_sources(claim=claim, reader=editor) == []
    stored = client.get(reverse("api-answer", args=[answer.pk])).json()
    assert stored["sources_changed"] == [] and stored["newer_since"] == {"D40": 3}
    assert not any(e["superseded"] for e in stored["contract"]["evidence"].values() if e["document"] == "D40")
    md = client.get(reverse("answer-export", args=[answer.pk]), {"format": "md"}).content.decode()
    assert "Menurut arsip per 2026-03-01" in md and "Sejak tanggal itu, D40 kini r3." in md and "Revisi lama" not in md
    assert not _sources_changed(answer, editor)
    response = client.post(reverse("claim-decide", args=[claim.pk]), {"status": "supported"}, **HX)
    assert response.status_code == 200 and Claim.objects.get(pk=claim.pk).review_status == ClaimReview.SUPPORTED

    # A correction dated before that day, added afterwards: what was in force then has changed.
    make_revision(
        OLD.replace("300", "350"), key="D40", title="Panduan webinar", public=True, document_date=date(2026, 2, 15)
    )
    page = client.get(reverse("answer", args=[answer.pk])).content.decode()
    assert BANNER in page and "kini r4" in page
    assert claim_old_sources(claim=claim, reader=editor) == [(cited.first().evidence_id, 4)]
    assert _sources_changed(answer, editor)


def _sources_changed(answer, reader) -> bool:  # noqa: ANN001
    """What the queue and the history mark "sumber berubah"."""
    return with_sources_changed(Answer.objects.filter(pk=answer.pk), reader).get().sources_changed
