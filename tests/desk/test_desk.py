"""The editor's desk, through Django's test client: ask, follow progress,
read claims beside evidence, review with htmx partials, lookup timing,
search, documents — and 404 for everything a reader may not see."""

from __future__ import annotations

import re
from datetime import UTC, date, datetime

import pytest
from django.conf import settings
from django.urls import reverse

from nalarku_site.celery import app as celery_app
from review.asking import question_ask
from review.models import Answer, EvidenceLookup, Question, QuestionState

pytestmark = pytest.mark.django_db
HX = {"HTTP_HX_REQUEST": "true"}
QUESTION = "Apakah fitur Sinar sekarang sudah tersedia untuk semua pelanggan?"


@pytest.fixture
def archive(make_revision):
    make_revision(
        "# Memperkenalkan Sinar\n\nMulai hari ini fitur Sinar tersedia dalam private preview untuk pelanggan terpilih.",
        key="A1",
        title="Pengumuman Sinar",
        public=True,
        source_type="announcement",
        document_date=date(2026, 3, 1),
    )
    make_revision(
        "# Sinar\n\nFitur Sinar masih private preview.",
        key="S1",
        title="Dokumentasi Sinar",
        public=True,
        source_type="documentation",
        document_date=date(2026, 3, 1),
    )
    make_revision(
        "# Sinar\n\nSejak 2 Mei 2026 fitur Sinar tersedia untuk semua pelanggan.",
        key="S1",
        title="Dokumentasi Sinar",
        public=True,
        source_type="documentation",
        document_date=date(2026, 5, 2),
    )
    make_revision(
        "# Memo\n\nProyek Garuda Biru: fitur Sinar tersedia untuk semua pelanggan hukum.",
        key="H1",
        title="Memo hukum Garuda",
        groups=("hukum",),
        source_type="policy",
    )


@pytest.fixture
def eager():
    celery_app.conf.task_always_eager = True
    yield
    celery_app.conf.task_always_eager = False


def test_ask_follow_progress_and_read_the_answer(client, archive, make_user, eager, django_capture_on_commit_callbacks):
    client.force_login(make_user("editor", reviewer=True))
    assert "Tanya arsip" in client.get(reverse("home")).content.decode()
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(reverse("ask"), {"question": QUESTION, "category": "ketersediaan"})
    question = Question.objects.get()
    assert response.status_code == 302 and response["Location"] == reverse("question", args=[question.pk])
    assert question.state == QuestionState.DONE and question.category == "ketersediaan"
    answer = Answer.objects.get()
    page = client.get(reverse("question", args=[question.pk]), follow=True)
    assert page.redirect_chain[-1][0] == reverse("answer", args=[answer.pk])
    html = page.content.decode()
    assert QUESTION in html and "Klaim dan buktinya" in html
    assert "Sumber bertentangan" in html and "S1:r2:p1" in html
    assert "Garuda" not in html
    # The answer being shown starts a lookup for each claim.
    assert EvidenceLookup.objects.filter(claim__answer=answer, decided_at=None).count() == answer.claims.count()


def test_invalid_questions_are_explained(client, make_user):
    client.force_login(make_user("editor"))
    response = client.post(reverse("ask"), {"question": "   "})
    assert response.status_code == 400 and "kosong" in response.content.decode()
    response = client.post(reverse("ask"), {"question": "x", "as_of": "kemarin"})
    assert response.status_code == 400 and "Tanggal tidak valid" in response.content.decode()


def test_progress_partial_shows_stages_and_offers_to_run_without_a_worker(client, archive, make_user):
    editor = make_user("editor")
    client.force_login(editor)
    question = Question.objects.create(text=QUESTION, asked_by=editor, state=QuestionState.RUNNING, stage="generate")
    partial = client.get(reverse("question", args=[question.pk]), **HX).content.decode()
    assert (
        f'hx-trigger="every {settings.NALARKU_PROGRESS_POLL_MS}ms"' in partial
        and "✓" in partial
        and "sedang berjalan" in partial
    )
    Question.objects.filter(pk=question.pk).update(
        state=QuestionState.QUEUED, asked_at=datetime(2026, 1, 1, tzinfo=UTC)
    )
    assert "Proses langsung" in client.get(reverse("question", args=[question.pk])).content.decode()
    response = client.post(reverse("question-run", args=[question.pk]), follow=True)
    assert response.redirect_chain[-1][0].startswith("/jawaban/")
    # Someone else's question is not theirs to follow.
    client.force_login(make_user("lain"))
    assert client.get(reverse("question", args=[question.pk])).status_code == 404


def test_review_with_htmx_records_the_lookup_and_moves_the_status(client, archive, make_user):
    editor = make_user("editor", reviewer=True)
    client.force_login(editor)
    answer = question_ask(text=QUESTION, user=editor).answer
    client.get(reverse("answer", args=[answer.pk]))
    claims = list(answer.claims.order_by("position"))
    assert client.post(reverse("claim-opened", args=[claims[0].pk]), **HX).status_code == 204
    looked = {"looked_ms": "5200", "seen_ms": "6000"}  # the page's lookup clock goes with the decision
    response = client.post(
        reverse("claim-decide", args=[claims[0].pk]),
        {"status": "supported", "note": "cocok dengan dokumentasi", **looked},
        **HX,
    )
    html = response.content.decode()
    assert response.status_code == 200 and "<html" not in html  # a partial, not a page
    assert f'id="claim-{claims[0].pk}"' in html and "Didukung" in html and 'hx-swap-oob="true"' in html
    lookup = EvidenceLookup.objects.get(claim=claims[0], editor=editor)
    assert lookup.outcome == "supported" and lookup.opened_at and lookup.duration_ms == 5200
    for claim in claims[1:]:
        client.post(reverse("claim-decide", args=[claim.pk]), {"status": "supported"}, **HX)
    answer.refresh_from_db()
    assert answer.status == "answered"  # every claim supported
    client.post(reverse("claim-decide", args=[claims[0].pk]), {"status": "needs_review"}, **HX)
    answer.refresh_from_db()
    assert answer.status == "needs_review"
    dashboard = client.get(reverse("dashboard")).content.decode()
    assert "editor" in dashboard and "<svg" in dashboard
    assert client.post(reverse("claim-decide", args=[claims[0].pk]), {"status": "mungkin"}).status_code == 400


def test_queue_and_history(client, archive, make_user):
    editor = make_user("editor", reviewer=True)
    client.force_login(editor)
    answer = question_ask(text=QUESTION, user=editor, category="ketersediaan").answer
    as_of = question_ask(text=QUESTION, user=editor, as_of=date(2026, 3, 15)).answer
    queue = client.get(reverse("queue")).content.decode()
    assert reverse("answer", args=[answer.pk]) in queue
    # The two rows of the same question differ by the date they were asked for.
    row = queue[queue.index(reverse("answer", args=[as_of.pk])) :]
    assert row[: row.index("</td>")].count("(per tanggal 2026-03-15)") == 1
    history = client.get(reverse("history"), {"status": "needs_review", "category": "ketersediaan"})
    assert reverse("answer", args=[answer.pk]) in history.content.decode()
    empty = client.get(reverse("history"), {"q": "tidak ada pertanyaan seperti ini"}, **HX).content.decode()
    assert "Tidak ada pertanyaan yang cocok" in empty and "<html" not in empty


def test_search_page_shows_each_arm(client, archive, make_user):
    client.force_login(make_user("editor"))
    html = client.get(reverse("search"), {"q": "fitur Sinar private preview", "mode": "hybrid"}).content.decode()
    assert "peringkat kata persis " in html and " · makna " in html and "kemiripan makna 0," in html
    assert "Garuda" not in html
    partial = client.get(reverse("search"), {"q": "Sinar", "mode": "lexical"}, **HX).content.decode()
    assert "cara mencari: kata persis" in partial and "<html" not in partial


def test_search_pages_ten_at_a_time_and_shows_tables_as_tables(client, make_user, make_revision):
    for n in range(13):
        make_revision(
            f"# Gerai {n}\n\n| Kota | Jam buka |\n|---|---|\n| Kota{n} | 08.00–17.00 gerai Zamrud |\n",
            key=f"G{n:02d}",
            title=f"Gerai Zamrud {n}",
            public=True,
        )
    client.force_login(make_user("editor"))
    first = client.get(reverse("search"), {"q": "gerai Zamrud", "mode": "lexical"}).content.decode()
    assert first.count('<li class="hit') == 10 and "Berikutnya" in first and "Sebelumnya" not in first
    assert "<table>" in first and "|---|" not in first
    second = client.get(reverse("search"), {"q": "gerai Zamrud", "mode": "lexical", "halaman": 2}).content.decode()
    assert second.count('<li class="hit') == 3 and 'start="11"' in second and "Sebelumnya" in second
    shown = set(re.findall(r"G\d\d:r1:p\d+", first)) | set(re.findall(r"G\d\d:r1:p\d+", second))
    assert len({e.split(":")[0] for e in shown}) == 13  # every document once, none lost between pages


def test_document_revision_and_diff_pages(client, archive, make_user):
    client.force_login(make_user("editor"))
    doc = client.get(reverse("document", args=["S1"])).content.decode()
    assert ">r2<" in doc and ">r1<" in doc and "semua pengguna (publik)" in doc and "Bandingkan revisi" in doc
    revision = client.get(reverse("revision", args=["S1", 1])).content.decode()
    assert 'id="p1"' in revision and "sudah diganti" in revision
    diff = client.get(reverse("diff", args=["S1"]), {"dari": 1, "ke": 2}).content.decode()
    assert 'class="del"' in diff and 'class="add"' in diff and "private preview" in diff
    evidence = client.get(reverse("evidence", args=["S1:r2:p1"]))
    assert evidence.status_code == 302 and evidence["Location"].endswith("/dokumen/S1/r2/?potongan=1#p1")


def test_evidence_reads_like_its_source_with_the_cited_unit_marked(client, archive, make_user, make_revision):
    """A claim's chunk is rendered (a table as a table, never pipes), its unit
    is marked in the answer and on the revision page, which links back."""
    from review.asking import question_ask

    make_revision(
        "# Kode galat\n\n| Kode | Arti |\n|---|---|\n| ERR_QX9 | Sesi kedaluwarsa, masuk lagi |\n"
        "| ERR_QX8 | Kuota penuh |\n",
        key="T1",
        title="Tabel kode galat",
        public=True,
    )
    editor = make_user("editor", reviewer=True)
    answer = question_ask(text="Apa arti kode ERR_QX9?", user=editor).answer
    client.force_login(editor)
    page = client.get(reverse("answer", args=[answer.pk])).content.decode()
    assert "<table>" in page and "|---|" not in page and "| ERR_QX9 |" not in page
    assert '<mark class="cited">ERR_QX9</mark>' in page
    link = re.search(r'href="(/bukti/T1:r1:p\d+/\?jawaban=\d+&amp;sorot=\d+-\d+)"', page)
    assert link, "the evidence links to the revision with the unit's span"
    revision = client.get(link.group(1).replace("&amp;", "&"), follow=True).content.decode()
    assert '<mark class="cited">ERR_QX9</mark>' in revision and "is-cited" in revision
    assert f'href="{reverse("answer", args=[answer.pk])}"' in revision and "Kembali ke jawaban" in revision
    # An answer the reader may not open (here: none such) gets no link back.
    other = client.get(
        re.sub(r"jawaban=\d+", "jawaban=999999", link.group(1).replace("&amp;", "&")), follow=True
    ).content.decode()
    assert "Kembali ke jawaban" not in other and '<mark class="cited">ERR_QX9</mark>' in other


def test_outsiders_get_404_everywhere(client, archive, make_user):
    lawyer = make_user("pengacara", "hukum")
    answer = question_ask(text="Proyek Garuda Biru fitur Sinar", user=lawyer).answer
    claim = answer.claims.first()
    hidden = [
        reverse("answer", args=[answer.pk]),
        reverse("evidence", args=["H1:r1:p1"]),
        reverse("document", args=["H1"]),
        reverse("revision", args=["H1", 1]),
        reverse("diff", args=["H1"]),
    ]
    client.force_login(make_user("pembaca"))
    for url in hidden:
        response = client.get(url)
        assert response.status_code == 404, url
        assert "Garuda" not in response.content.decode()
    assert claim is not None  # the lawyer's answer rests on the memo
    assert client.post(reverse("claim-decide", args=[claim.pk]), {"status": "supported"}).status_code == 404
    assert client.post(reverse("claim-opened", args=[claim.pk])).status_code == 404
    assert client.post(reverse("claim-case", args=[claim.pk])).status_code == 404
    for url in (reverse("queue"), reverse("history"), reverse("archive"), reverse("dashboard")):
        assert "Garuda" not in client.get(url).content.decode(), url
    # The lawyer, once out of the group, no longer sees the memo in their own answer.
    lawyer.groups.clear()
    client.force_login(lawyer)
    page = client.get(reverse("answer", args=[answer.pk]))
    assert page.status_code == 200 and "Garuda Biru:" not in page.content.decode()
    assert client.get(reverse("document", args=["H1"])).status_code == 404


def test_pages_require_login(client):
    for name in ("home", "queue", "history", "search", "archive", "dashboard"):
        response = client.get(reverse(name))
        assert response.status_code == 302 and reverse("login") in response["Location"], name


def test_content_security_policy_and_inert_document_text(client, make_revision, make_user):
    make_revision(
        '<h1>Jahat</h1><p>Teks <script>alert(1)</script><img src=x onerror="alert(2)">'
        '<a href="javascript:alert(3)">klik</a> biasa.</p>',
        key="J1",
        title="<b>Judul</b>",
        public=True,
        fmt="html",
    )
    client.force_login(make_user("editor"))
    response = client.get(reverse("revision", args=["J1", 1]))
    policy = response["Content-Security-Policy"]
    assert "script-src 'self'" in policy and "object-src 'none'" in policy and "frame-ancestors 'none'" in policy
    html = response.content.decode()
    assert "<script>alert" not in html and "onerror=" not in html and "javascript:" not in html
    assert "&lt;b&gt;Judul&lt;/b&gt;" in html
