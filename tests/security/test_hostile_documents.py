"""Hostile documents and questions render inert on every page that shows
them: no planted script, event handler, script URL, frame or plugin survives
escaping, and every response carries the Content-Security-Policy."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from review.asking import question_ask
from review.models import Answer

from .inert import active_content

pytestmark = pytest.mark.django_db

HUGE = "A" * 100_000
HOSTILE_HTML = f"""<h1>Panduan <img src=x onerror="alert(1)">Sinar</h1>
<p>Fitur Sinar tersedia dalam private preview. <script>alert(2)</script>
<a href="javascript:alert(3)">klik</a> <a href=" JaVaScRiPt:alert(4)">spasi</a></p>
<svg onload="alert(5)"><script>alert(6)</script><a xlink:href="javascript:alert(7)"><text>x</text></a></svg>
<iframe src="javascript:alert(8)"></iframe><object data="data:text/html,&lt;script&gt;alert(9)&lt;/script&gt;"></object>
<div title="{HUGE}" onmouseover="alert(10)">Atribut raksasa tentang fitur Sinar.</div>
<form action="https://evil.example/"><button formaction="javascript:alert(11)">kirim</button></form>
<math><mtext><table><mglyph><style><img src=x onerror=alert(12)></style></mglyph></table></mtext></math>
<meta http-equiv="refresh" content="0;url=javascript:alert(13)"><base href="https://evil.example/">
<p style="background:url(javascript:alert(14))">Sinar untuk pelanggan terpilih.</p>"""
HOSTILE_MARKDOWN = """# <img src=x onerror=alert(21)> Catatan Sinar

Fitur Sinar <script>alert(22)</script> masih private preview.

[tautan](javascript:alert(23)) dan ![gambar](javascript:alert(24)) serta <a href="javascript:alert(25)">a</a>

<svg/onload=alert(26)>

| kolom | isi |
|---|---|
| <img src=x onerror=alert(27)> | Sinar `<script>alert(28)</script>` |
"""
HOSTILE_QUESTION = "<script>alert(31)</script><img src=x onerror=alert(32)> Apakah fitur Sinar tersedia?"


@pytest.fixture
def hostile(make_revision, make_user, client):
    make_revision(
        HOSTILE_HTML,
        key="X1",
        fmt="html",
        public=True,
        title='<img src=x onerror="alert(41)">Judul',
        url="javascript:alert(42)",
        source_type="documentation",
    )
    make_revision(
        HOSTILE_HTML + "<p>Revisi kedua tentang fitur Sinar, tetap private preview.</p>",
        key="X1",
        fmt="html",
        public=True,
        title='<img src=x onerror="alert(41)">Judul',
        url="javascript:alert(42)",
        source_type="documentation",
    )
    make_revision(
        HOSTILE_MARKDOWN,
        key="X2",
        public=True,
        title="<svg onload=alert(43)>",
        url="data:text/html,<script>alert(44)</script>",
        source_type="announcement",
    )
    editor = make_user("editor", "redaksi", reviewer=True)
    answer = question_ask(text=HOSTILE_QUESTION, user=editor, category='<b onmouseover="alert(45)">kat</b>').answer
    Answer.objects.filter(pk=answer.pk).update(status="needs_review")
    client.force_login(editor)
    return answer


def pages(answer: Answer) -> list[str]:
    return [
        "/",
        reverse("answer", args=[answer.pk]),
        reverse("queue"),
        reverse("history"),
        reverse("dashboard"),
        reverse("report"),
        reverse("archive"),
        "/cari/?q=fitur+Sinar+private+preview",
        "/cari/?q=Sinar&mode=lexical",
        "/dokumen/X1/",
        "/dokumen/X1/r1/",
        "/dokumen/X1/r2/",
        "/dokumen/X1/beda/?dari=1&ke=2",
        "/dokumen/X2/",
        "/dokumen/X2/r1/",
        reverse("question", args=[answer.question_id]),
    ]


def test_every_page_renders_hostile_content_inert(hostile, client):
    answer = hostile
    assert answer.contract["evidence"], "the hostile documents must be evidence, or the answer page proves little"
    for url in pages(answer):
        response = client.get(url, follow=True)
        assert response.status_code == 200, url
        assert "script-src 'self'" in response["Content-Security-Policy"], url
        html = response.content.decode()
        assert active_content(html) == [], (url, active_content(html))
    # The payloads are shown as text, not dropped: editors must see what a source says.
    revision = client.get("/dokumen/X1/r1/").content.decode()
    assert "&lt;img src=x onerror=&quot;alert(41)&quot;&gt;Judul" in revision
    assert "Atribut raksasa" in revision


def test_htmx_partials_and_exports_are_inert(hostile, client):
    answer = hostile
    hx = {"HTTP_HX_REQUEST": "true"}
    for url in ("/cari/?q=fitur+Sinar", "/riwayat/?q=Sinar"):
        html = client.get(url, **hx).content.decode()
        assert active_content(html) == [], url
    claim = answer.claims.first()
    if claim is not None:
        html = client.post(
            reverse("claim-decide", args=[claim.pk]),
            {"status": "needs_review", "note": "<script>alert(51)</script>"},
            **hx,
        ).content.decode()
        assert active_content(html) == [] and "&lt;script&gt;alert(51)" in html
    markdown = client.get(reverse("answer-export", args=[answer.pk]), {"format": "md"})
    assert markdown["Content-Disposition"].startswith("attachment")
    text = markdown.content.decode()
    assert not re.search(r"(?<!\\)<(script|img|svg)|(?<!\\)\]\(javascript:", text), text  # only escaped
    assert "\\<script\\>alert(31)" in text  # the hostile question, quoted as text
    exported = client.get(reverse("answer-export", args=[answer.pk]), {"format": "json"})
    assert exported["Content-Type"].startswith("application/json")


def test_admin_pages_render_hostile_content_inert(hostile, admin_client):
    from retrieval.models import Document, Revision

    document = Document.objects.get(key="X1")
    revision = Revision.objects.filter(document=document).first()
    for url in (
        "/admin/retrieval/document/",
        f"/admin/retrieval/document/{document.pk}/change/",
        f"/admin/retrieval/revision/{revision.pk}/change/",
        "/admin/retrieval/chunk/?q=Sinar",
        "/admin/review/question/",
        f"/admin/review/answer/{hostile.pk}/change/",
    ):
        response = admin_client.get(url)
        assert response.status_code == 200, url
        assert active_content(response.content.decode()) == [], url
