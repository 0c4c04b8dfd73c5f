"""Words an editor does not use (issue 44 item 4). Every desk page is
rendered as an editor (a reviewer, not staff) and its visible text — and the
text of its titles, labels and image descriptions — must hold none of the
engine's own terms. Staff see the same detail folded under "rincian teknis"."""

from __future__ import annotations

import re
from datetime import date

import pytest
from bs4 import BeautifulSoup
from django.urls import reverse

from review.asking import question_ask
from review.desk.views import SEARCH_WAYS
from review.models import Answer, EvalRun, Question, QuestionState
from review.reviewing import claim_review

pytestmark = pytest.mark.django_db
HX = {"HTTP_HX_REQUEST": "true"}
TECHNICAL = re.compile(
    r"extractive|ekstraktif|\bRRF\b|cosine|kosinus|\bETag\b|Last-Modified|ir-measures|\bgenerator\b|reranker"
    r"|\bkueri\b|\bvektor\b|keyakinan pembaca",
    re.IGNORECASE,
)


def visible_text(html: str) -> str:
    """What a person reads or hears: the text, and titles, labels, alt texts, placeholders."""
    soup = BeautifulSoup(html, "html.parser")
    for hidden in soup(["script", "style"]):
        hidden.decompose()
    said = [soup.get_text(" ")]
    for tag in soup.find_all(True):
        said += [str(tag.get(a, "")) for a in ("title", "aria-label", "alt", "placeholder")]
    return "\n".join(said)


@pytest.fixture
def desk(make_revision, make_user):
    make_revision(
        "# Webinar Kemilau\n\nWebinar Kemilau dapat diikuti paling banyak 300 peserta per sesi.",
        key="D40",
        title="Panduan > Webinar > Kapasitas",
        public=True,
        document_date=date(2026, 2, 1),
    )
    make_revision(
        "# Webinar Kemilau\n\n| Paket | Peserta | Rekaman |\n|---|---|---|\n| Dasar | 100 | tidak |\n"
        "| Pro | 500 | ya, 30 hari |\n",
        key="D41",
        title="Paket webinar",
        public=True,
    )
    editor = make_user("editor", "redaksi", reviewer=True)
    answer = question_ask(text="Berapa peserta paling banyak webinar Kemilau?", user=editor).answer
    # Every degraded state the desk can show, to read their labels.
    Answer.objects.filter(pk=answer.pk).update(
        contract={
            **answer.contract,
            "degraded": ["reranker_unavailable", "generator_unavailable", "semantic_unavailable"],
        }
    )
    claim = answer.claims.first()
    claim_review(claim=claim, reviewer=editor, status="supported")
    Question.objects.create(text="Masih diproses?", asked_by=editor, state=QuestionState.RUNNING, stage="generate")
    # Stored evaluation runs as the commands write them: engine and mode names inside.
    EvalRun.objects.create(
        kind="answers",
        label="uji",
        metrics={
            "answerer": {"cases": 4, "decision_accuracy": 0.75, "answer_in_claims": 0.5},
            "cosine": {"cases": 4, "decision_accuracy": 0.25, "answer_in_claims": 0.5},
            "reader": {"cases": 4, "decision_accuracy": 0.8, "answer_in_claims": 0.7},
        },
        dataset="editor-dev",
    )
    return {"editor": editor, "answer": answer, "claim": claim}


def test_no_desk_page_shows_an_editor_technical_words(client, desk):
    client.force_login(desk["editor"])
    answer, claim = desk["answer"], desk["claim"]
    pages = [
        reverse("home"),
        reverse("question", args=[Question.objects.get(text="Masih diproses?").pk]),
        reverse("answer", args=[answer.pk]),
        reverse("queue"),
        reverse("history"),
        reverse("dashboard"),
        reverse("report"),
        reverse("archive"),
        reverse("document", args=["D40"]),
        reverse("revision", args=["D40", 1]),
        reverse("diff", args=["D40"]),
        # The search desk in each way of searching, and a search nothing matches
        # well (the floor's message and its figures).
        f"{reverse('search')}?q=peserta+webinar+Kemilau&mode=hybrid",
        f"{reverse('search')}?q=peserta+webinar+Kemilau&mode=lexical",
        f"{reverse('search')}?q=peserta+webinar+Kemilau&mode=vector",
        f"{reverse('search')}?q=resep+rendang+padang+paling+enak&mode=hybrid",
    ]
    seen = {}
    for url in pages:
        response = client.get(url, follow=True)
        assert response.status_code == 200, url
        seen[url] = visible_text(response.content.decode())
    partial = client.post(reverse("claim-decide", args=[claim.pk]), {"note": "dicek"}, **HX)
    seen["claim partial"] = visible_text(partial.content.decode())
    found = {url: sorted({m.group(0) for m in TECHNICAL.finditer(text)}) for url, text in seen.items()}
    assert not any(found.values()), {url: words for url, words in found.items() if words}

    page = seen[reverse("answer", args=[answer.pk])]
    assert "cara menjawab: kutipan dari sumber" in page and "rincian teknis" not in page
    assert "Pengurut ulang tidak tersedia" in page
    # The breadcrumb once: the title is itself "Panduan > Webinar > Kapasitas".
    assert page.count("Kapasitas") <= page.count("Panduan > Webinar > Kapasitas") + 1
    search = {mode: seen[f"{reverse('search')}?q=peserta+webinar+Kemilau&mode={mode}"] for mode in SEARCH_WAYS}
    for mode, way in SEARCH_WAYS.items():
        assert f"cara mencari: {way}" in search[mode] and "D40:r1:p" in search[mode], mode
        assert "rincian teknis" not in search[mode]
    assert "kemiripan makna 0," in search["hybrid"] and "kemiripan makna" not in search["lexical"]
    weak = seen[f"{reverse('search')}?q=resep+rendang+padang+paling+enak&mode=hybrid"]
    assert "Tidak ada hasil yang cukup relevan" in weak and "di bawah ambang" in weak
    report = seen[reverse("report")]
    assert "kutipan, dinilai penilai fitur" in report and "kalimat paling mirip maknanya" in report


def test_staff_find_the_technical_detail_folded(client, desk, make_user, settings):
    client.force_login(make_user("staf", "redaksi", reviewer=True, is_staff=True))  # the editor's colleague
    html = client.get(reverse("answer", args=[desk["answer"].pk])).content.decode()
    soup = BeautifulSoup(html, "html.parser")
    folded = soup.select_one("details.technical")
    assert folded is not None and folded.summary.get_text(strip=True) == "rincian teknis"
    assert desk["answer"].generator in folded.get_text()
    folded.decompose()
    outside = visible_text(str(soup))
    assert not TECHNICAL.search(outside), TECHNICAL.findall(outside)
    report = client.get(reverse("report")).content.decode()
    assert "rincian teknis" in report

    # The search desk: the fusion, its k and weights and each hit's scores, folded.
    html = client.get(reverse("search"), {"q": "peserta webinar Kemilau", "mode": "hybrid"}).content.decode()
    soup = BeautifulSoup(html, "html.parser")
    folded = soup.select("#results details.technical")
    assert folded and all(d.summary.get_text(strip=True) == "rincian teknis" for d in folded)
    page = soup.select_one("#search-technical").get_text(" ")
    method = settings.NALARKU_FUSION["method"]
    assert method in page and "bobot leksikal" in page
    assert method != "rrf" or f"k={settings.NALARKU_FUSION['rrf']['rrf_k']}" in page
    assert all("RRF" in d.get_text() and "kosinus" in d.get_text() for d in folded[1:])
    for d in folded:
        d.decompose()
    outside = visible_text(str(soup))
    assert not TECHNICAL.search(outside), TECHNICAL.findall(outside)
