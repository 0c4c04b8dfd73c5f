"""A stored answer after its source changed, in real Chromium (issue 44
item 1): the answer cites D40 r1 ("paling banyak 300 peserta"); an admin's
r2 (500 peserta) becomes active; reopening the answer shows the claim's
"Revisi lama — kini r2" and the answer's banner; deciding from the keyboard
asks first; "Tanyakan lagi" asks the same question in one click, and the
old and new answers link each other."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from review.asking import question_ask
from review.models import Answer, ClaimEvidence, ClaimReview

from .test_editor_flow import login

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

QUESTION = "Berapa peserta paling banyak webinar Kemilau?"
OLD = "# Webinar Kemilau\n\nWebinar Kemilau dapat diikuti paling banyak 300 peserta per sesi."
NEW = "# Webinar Kemilau\n\nWebinar Kemilau dapat diikuti paling banyak 500 peserta per sesi."
BANNER = "Sumber berubah sejak jawaban ini dibuat"


def test_a_revision_uploaded_after_the_answer_is_shown_and_asking_again_links_both(
    page: Page, live_server, make_user, make_revision, worker, shoot
):
    make_revision(OLD, key="D40", title="Panduan webinar", public=True)
    editor = make_user("editor", reviewer=True)
    old = question_ask(text=QUESTION, user=editor).answer
    cited = ClaimEvidence.objects.filter(claim__answer=old, evidence_id__startswith="D40:r1:").first()
    assert cited is not None, old.contract
    base = live_server.url
    login(page, base, "editor")
    page.goto(f"{base}/jawaban/{old.pk}/")
    expect(page.locator(".claim-row").first).to_be_visible()
    expect(page.get_by_text(BANNER)).to_have_count(0)
    expect(page.locator("[data-old-revision]")).to_have_count(0)

    make_revision(NEW, key="D40", title="Panduan webinar", public=True)  # r2, active
    page.reload()
    banner = page.locator("#sources-changed")
    expect(banner).to_contain_text(BANNER)
    expect(banner).to_contain_text("kini r2")
    row = page.locator(f"#claim-{cited.claim_id}")
    expect(row.locator("[data-old-revision]")).to_have_text("Revisi lama — kini r2")
    expect(row.locator(".evidence.is-superseded").first).to_contain_text("bukan lagi revisi yang berlaku")
    shoot(page, "answer-sources-changed")

    # From the keyboard: d asks first, nothing saved; Enter on the question confirms.
    row.focus()
    page.keyboard.press("d")
    prompt = row.locator("[data-confirm-prompt]")
    expect(prompt).to_contain_text("Klaim ini bersandar pada revisi lama")
    confirm = page.locator(f"#claim-{cited.claim_id} [data-confirm-decide]")
    expect(confirm).to_be_focused()
    cited.claim.refresh_from_db()
    assert cited.claim.review_status == ClaimReview.PENDING
    shoot(page, "answer-confirm-old-revision")
    page.keyboard.press("Enter")
    expect(page.locator(f"#claim-{cited.claim_id} .decided")).to_contain_text("Didukung")
    cited.claim.refresh_from_db()
    assert cited.claim.review_status == ClaimReview.SUPPORTED

    # One click asks again; the new answer links the old one and back.
    page.get_by_role("button", name="Tanyakan lagi").click()
    page.wait_for_url(re.compile(rf"/jawaban/(?!{old.pk}/)\d+/"), timeout=90_000)
    new = Answer.objects.latest("pk")
    assert new.pk != old.pk and new.question.asked_again_from_id == old.pk
    expect(page.locator("#asked-again-from")).to_be_visible()
    expect(page.locator("#sources-changed")).to_have_count(0)  # the new answer rests on r2
    page.locator("#asked-again-from a").click()
    page.wait_for_url(f"{base}/jawaban/{old.pk}/")
    expect(page.locator("#asked-again a")).to_have_attribute("href", f"/jawaban/{new.pk}/")
    page.locator("#asked-again a").click()
    page.wait_for_url(f"{base}/jawaban/{new.pk}/")
