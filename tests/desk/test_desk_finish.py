"""Words and finish the desk and the admin owed editors (issue 51 item 6):
the engine's confidence named apart from the read-only role, the admin's
document page offering its next revision and its help in plain words, the
conflict box's badge, a search mode typed in the URL, and the ask form's own
checks (the browser's are off: tests/browser/test_desk_words.py)."""

from __future__ import annotations

from datetime import date

import pytest
from bs4 import BeautifulSoup
from django.urls import reverse

from retrieval.models import Document
from review.asking import question_ask
from review.models import Question

pytestmark = pytest.mark.django_db


@pytest.fixture
def archive(make_revision):
    make_revision(
        "# FAQ API\n\nBerapa rate limit API v2? Rate limit API v2 adalah 600 permintaan per menit per API key.",
        key="F60",
        title="FAQ API",
        public=True,
        source_type="faq",
        document_date=date(2026, 1, 10),
    )
    make_revision(
        "# Referensi API v2\n\n## Rate limit\n\nRate limit API v2: setiap API key dibatasi 1.200 permintaan per menit.",
        key="R60",
        title="Referensi API v2",
        public=True,
        source_type="documentation",
        document_date=date(2026, 6, 1),
    )


def test_the_engines_confidence_is_not_named_after_the_read_only_role(archive, make_user):
    editor = make_user("editor")
    # Evidence near the question that does not quite answer it: the engine says how sure it is.
    # (reader-v3 reads this one as "needs review"; the words are every reader's.)
    from answering.generators import generator_from_config

    contract = question_ask(
        text="Apa yang terjadi jika melewati rate limit?",
        user=editor,
        generator=generator_from_config("reader@reader-v3"),
    ).contract
    said = " ".join(contract.missing)
    assert "keyakinan mesin jawaban" in said and "pembaca" not in said, contract.missing


def test_the_conflict_badge_says_what_the_sources_disagree_about(client, archive, make_user):
    editor = make_user("editor")
    client.force_login(editor)
    answer = question_ask(text="Berapa rate limit API v2?", user=editor).answer
    badges = [
        b.get_text(strip=True)
        for b in BeautifulSoup(client.get(reverse("answer", args=[answer.pk])).content, "html.parser").select(
            ".conflict-head .badge"
        )
    ]
    assert badges == ["Angka berbeda"], badges


def test_the_ask_form_checks_its_own_fields_in_indonesian(client, archive, make_user):
    client.force_login(make_user("editor"))
    home = BeautifulSoup(client.get(reverse("home")).content, "html.parser")
    assert home.select_one("form.ask").has_attr("novalidate")
    assert home.select_one("#as_of")["min"] == "2026-01-10"
    response = client.post(reverse("ask"), {"question": "   "})
    assert response.status_code == 400 and "Tulis pertanyaan Anda dulu" in response.content.decode()
    response = client.post(reverse("ask"), {"question": "Berapa rate limit API v2?", "as_of": "2025-12-31"})
    assert response.status_code == 400
    assert "Arsip baru berisi dokumen sejak 2026-01-10" in response.content.decode()
    assert not Question.objects.exists()
    assert (
        client.post(reverse("ask"), {"question": "Berapa rate limit API v2?", "as_of": "2026-01-10"}).status_code == 302
    )


def test_a_search_mode_in_the_url_by_another_name_or_unknown(client, archive, make_user):
    client.force_login(make_user("editor"))
    page = client.get(reverse("search"), {"q": "rate limit", "mode": "semantic"}).content.decode()
    assert "cara mencari: makna" in page and "tidak dikenal" not in page
    page = client.get(reverse("search"), {"q": "rate limit", "mode": "cepat"}).content.decode()
    assert "Cara mencari “cepat” tidak dikenal; dicari dengan cara Hibrida." in page
    assert "cara mencari: gabungan kata persis dan makna" in page


def test_the_admins_document_page_offers_the_next_revision_in_plain_words(admin_client, archive, make_user):
    document = Document.objects.get(key="F60")
    page = admin_client.get(f"/admin/retrieval/document/{document.pk}/change/").content.decode()
    link = BeautifulSoup(page, "html.parser").find("a", string="Tambahkan revisi")
    assert link is not None and link["href"] == f"/admin/retrieval/revision/add/?document={document.pk}"
    form = admin_client.get(link["href"]).content.decode()
    chosen = BeautifulSoup(form, "html.parser").select_one("#id_document option[selected]")
    assert chosen is not None and chosen["value"] == str(document.pk)
    assert "fetch_sources" not in page and "ruang embedding" not in page.lower()
    index = admin_client.get("/admin/").content.decode().lower()
    assert "ruang embedding" not in index and "model pencarian makna" in index


def test_a_refusal_lists_the_closest_passages_to_look_at_not_as_claims(client, archive, make_user):
    editor = make_user("editor")
    client.force_login(editor)
    answer = question_ask(text="Berapa biaya langganan API v2 per bulan?", user=editor).answer
    assert answer.status == "insufficient_evidence" and not answer.claims.exists()
    page = BeautifulSoup(client.get(reverse("answer", args=[answer.pk])).content, "html.parser")
    closest = page.select_one("details[data-closest]")
    assert closest is not None and closest.has_attr("open"), page.get_text(" ", strip=True)[:2000]
    assert "bukan jawaban" in closest.summary.get_text() and "F60" in closest.get_text()


def test_admin_names_are_plain_indonesian():
    """The admin's permission names and columns say what a thing is, not the
    technique: no "embedding potongan", no "skor RRF"."""
    from django.contrib.auth.models import Permission

    from review.models import ClaimEvidence

    names = list(Permission.objects.filter(content_type__model="chunkembedding").values_list("name", flat=True))
    assert names and all("vektor makna potongan" in n and "embedding" not in n for n in names), names
    assert ClaimEvidence._meta.get_field("rrf_score").verbose_name == "skor gabungan peringkat"


def test_the_ask_form_suggests_the_categories_the_asker_may_see(client, archive, make_user):
    editor, other = make_user("editor"), make_user("lain")
    question_ask(text="Berapa rate limit API v2?", user=editor, category="batas API")
    question_ask(text="Apa itu FAQ API?", user=other, category="rahasia tim lain")
    client.force_login(editor)
    page = BeautifulSoup(client.get(reverse("home")).content, "html.parser")
    assert page.select_one("#category")["list"] == "categories"
    assert [o["value"] for o in page.select("datalist#categories option")] == ["batas API"]
