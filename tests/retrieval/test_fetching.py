"""Sources fetched from their URL, against a real HTTP server on loopback
whose pages change between fetches."""

from __future__ import annotations

import json
import time
from itertools import pairwise
from pathlib import Path

import pytest
from django.test import override_settings
from pytest_httpserver import HTTPServer
from werkzeug import Request, Response

from retrieval.fetching import Fetcher, FetchError
from retrieval.models import Chunk, Document, Revision
from retrieval.tasks import fetch_due_sources
from tests.commands import run_command

pytestmark = pytest.mark.django_db

PAGE = """<!doctype html><html lang="id"><head><title>Status Layanan Sinar</title>
<meta name="date" content="2026-06-01"></head><body>
<nav><a href="/">Beranda</a> | <a href="/harga">Harga</a> | <a href="/karier">Karier</a></nav>
<article><h1>Status Layanan Sinar</h1>
<p>{body}</p>
<p>Tim dukungan menjawab pertanyaan pelanggan setiap hari kerja pukul 08.00 sampai 17.00 WIB.</p>
</article>
<footer>Hak cipta 2026 Lintas Data. Kebijakan cookie. Berlangganan buletin kami.</footer>
</body></html>"""


class Site:
    """A page whose body an editor changes; ETag follows the body, and a
    matching If-None-Match gets a 304."""

    def __init__(self, server: HTTPServer) -> None:
        self.body = "Fitur Sinar tersedia dalam private preview untuk pelanggan terpilih paket Bisnis."
        self.hits: list[Request] = []
        server.expect_request("/robots.txt").respond_with_data(
            "User-agent: *\nDisallow: /rahasia\n", content_type="text/plain"
        )
        server.expect_request("/status").respond_with_handler(self.page)
        self.url = server.url_for("/status")

    def page(self, request: Request) -> Response:
        self.hits.append(request)
        etag = f'"{abs(hash(self.body))}"'
        if request.headers.get("If-None-Match") == etag:
            return Response(status=304, headers={"ETag": etag})
        return Response(
            PAGE.format(body=self.body),
            content_type="text/html; charset=utf-8",
            headers={"ETag": etag, "Last-Modified": "Mon, 01 Jun 2026 08:00:00 GMT"},
        )


@pytest.fixture
def site(httpserver: HTTPServer) -> Site:
    return Site(httpserver)


run = run_command


@pytest.fixture(autouse=True)
def _loopback_server_allowed(settings, httpserver: HTTPServer) -> None:  # noqa: ANN001
    """The test server is on loopback, which fetching refuses unless the
    operator lists it (issue 55): its name and port are listed, nothing more."""
    settings.NALARKU_FETCH = {**settings.NALARKU_FETCH, "allow": [httpserver.host], "ports": [httpserver.port]}


def test_a_page_is_fetched_changed_and_refetched_into_a_second_revision(site: Site):
    out, err, error = run(
        "ingest", "--fetch", site.url, "--doc-id", "D40", "--public", "--source-type", "announcement", "--sync"
    )
    assert error is None, err
    document = Document.objects.get(key="D40")
    first = document.current_revision
    assert first.title == "Status Layanan Sinar" and first.status == "active"
    assert "private preview" in first.content and "08.00 sampai 17.00" in first.content
    assert "Karier" not in first.content and "cookie" not in first.content  # boilerplate left out
    assert first.document_date.isoformat() == "2026-06-01"
    assert document.fetch_every_hours == 24 and document.fetch_status == "changed" and document.etag
    assert document.last_modified == "Mon, 01 Jun 2026 08:00:00 GMT" and document.last_fetched_at

    out, err, error = run("fetch_sources", "--sync")  # fetched a moment ago: not due
    assert error is None and "Diambil: 0" in out and len(site.hits) == 1

    out, err, error = run("fetch_sources", "--all", "--sync")  # unchanged: a 304, no revision
    assert error is None and "tidak berubah (304): 1" in out, err
    assert site.hits[-1].headers["If-None-Match"] == document.etag
    assert Revision.objects.filter(document=document).count() == 1

    site.body = "Sejak 2 Juni 2026 fitur Sinar tersedia untuk semua pelanggan di semua paket."
    out, err, error = run("fetch_sources", "--all", "--sync")
    assert error is None and "berubah (revisi baru): 1" in out
    document.refresh_from_db()
    second = document.current_revision
    assert second.number == 2 and second.status == "active" and "semua pelanggan" in second.content
    assert Revision.objects.get(document=document, number=1).status == "superseded"
    assert Chunk.objects.filter(revision=second, text__contains="semua pelanggan").exists()
    assert document.fetch_status == "changed" and document.fetch_error == ""


def test_failures_are_recorded_and_the_serving_revision_stays(site: Site, httpserver: HTTPServer):
    assert run("ingest", "--fetch", site.url, "--doc-id", "D41", "--public", "--sync")[2] is None
    document = Document.objects.get(key="D41")
    serving = document.current_revision_id
    outcomes = [
        (Response("rusak", status=500), "server menjawab HTTP 500 (galat server)"),
        (Response("hilang", status=404), "server menjawab HTTP 404 (halaman tidak ditemukan)"),
        (Response(b"\x89PNG....", content_type="image/png"), "jenis konten tidak didukung: image/png"),
        (
            Response("<html><body><script>var x = 1;</script></body></html>", content_type="text/html"),
            "halaman tidak berisi teks utama",
        ),
    ]
    for reply, reason in outcomes:
        httpserver.clear_all_handlers()
        httpserver.expect_request("/robots.txt").respond_with_data("", content_type="text/plain")
        httpserver.expect_request("/status").respond_with_response(reply)
        out, err, error = run("fetch_sources", "--all", "--sync")
        assert error is not None and "1 dokumen gagal diambil" in str(error), (reason, out)
        assert f"D41: {reason}" in err, err
        document.refresh_from_db()
        assert document.fetch_status == "failed" and reason in document.fetch_error
        assert document.current_revision_id == serving and document.revisions.count() == 1
        assert Revision.objects.get(pk=serving).status == "active"


def test_robots_txt_redirects_and_timeouts(httpserver: HTTPServer, settings):  # noqa: ANN001
    httpserver.expect_request("/robots.txt").respond_with_data("User-agent: Nalarku\nDisallow: /rahasia\n")
    httpserver.expect_request("/lama").respond_with_response(Response(status=301, headers={"Location": "/baru"}))
    httpserver.expect_request("/baru").respond_with_data("Halaman pindah ke sini.", content_type="text/plain")
    httpserver.expect_request("/putar").respond_with_response(Response(status=302, headers={"Location": "/rahasia/x"}))
    httpserver.expect_request("/lambat").respond_with_handler(lambda r: (time.sleep(1.5), Response("telat"))[1])
    with Fetcher(timeout=0.5, host_delay=0) as fetcher:
        moved = fetcher.get(httpserver.url_for("/lama"))
        assert moved.url.endswith("/baru") and moved.content == "Halaman pindah ke sini." and moved.format == "text"
        with pytest.raises(FetchError, match="dilarang oleh robots.txt"):
            fetcher.get(httpserver.url_for("/rahasia/laporan"))
        with pytest.raises(FetchError, match="dilarang oleh robots.txt"):  # each hop is checked
            fetcher.get(httpserver.url_for("/putar"))
        with pytest.raises(FetchError, match="server tidak menjawab dalam batas waktu 0.5 detik"):
            fetcher.get(httpserver.url_for("/lambat"))
        with pytest.raises(FetchError, match="URL harus http atau https"):
            fetcher.get("file:///etc/passwd")
    settings.NALARKU_FETCH = {**settings.NALARKU_FETCH, "allow": ["127.0.0.1"], "ports": [9]}
    with Fetcher(timeout=0.5, host_delay=0) as fetcher:
        # Nothing listens on the discard port; said in words, not httpx's class name.
        with pytest.raises(
            FetchError, match=r"^tidak dapat dihubungi \(koneksi ditolak atau alamat tidak ditemukan\)$"
        ):
            fetcher.get("http://127.0.0.1:9/tertutup")


LEGACY = "Kebijakan “privasi” Rp 5.000,- untuk café & résumé; naïve — 90 hari."


@pytest.mark.parametrize(
    ("content_type", "body"),
    [
        ("text/html; charset=windows-1252", f"<html><body><article><p>{LEGACY}</p></article></body></html>"),
        ("text/html; charset=ISO-8859-1", f"<html><body><article><p>{LEGACY}</p></article></body></html>"),
        (  # the charset only in the page, as many old sites do
            "text/html",
            '<html><head><meta http-equiv="Content-Type" content="text/html; charset=windows-1252">'
            f"</head><body><article><p>{LEGACY}</p></article></body></html>",
        ),
        ("text/plain; charset=windows-1252", LEGACY),
    ],
)
def test_pages_in_legacy_encodings_are_decoded(httpserver: HTTPServer, content_type: str, body: str):
    httpserver.expect_request("/robots.txt").respond_with_data("", status=404)
    httpserver.expect_request("/lama").respond_with_data(body.encode("cp1252"), content_type=content_type)
    with Fetcher(timeout=2, host_delay=0) as fetcher:
        fetched = fetcher.get(httpserver.url_for("/lama"))
    assert LEGACY in fetched.content and "\ufffd" not in fetched.content, fetched.content


def test_text_with_no_charset_anywhere_is_guessed_not_replaced(httpserver: HTTPServer):
    # A guess can take windows-1250 for windows-1252 (ï and ď share a byte),
    # so only what both read alike is asserted, and that no byte became �.
    httpserver.expect_request("/robots.txt").respond_with_data("", status=404)
    httpserver.expect_request("/lama").respond_with_data((LEGACY * 20).encode("cp1252"), content_type="text/plain")
    with Fetcher(timeout=2, host_delay=0) as fetcher:
        content = fetcher.get(httpserver.url_for("/lama")).content
    assert "“privasi” Rp 5.000,- untuk café & résumé" in content and "\ufffd" not in content, content


def test_requests_to_one_host_are_spaced(httpserver: HTTPServer):
    httpserver.expect_request("/robots.txt").respond_with_data("", status=404)
    times: list[float] = []
    httpserver.expect_request("/a").respond_with_handler(
        lambda r: (times.append(time.monotonic()), Response("isi a", content_type="text/plain"))[1]
    )
    with Fetcher(host_delay=0.4) as fetcher:
        for _ in range(3):
            fetcher.get(httpserver.url_for("/a"))
    gaps = [b - a for a, b in pairwise(times)]
    # The fetcher spaces its sends by 0.4 s; the server sees each a little
    # after it was sent, and on a loaded machine the first one's lateness
    # shortens the gap it starts (0.37 s seen). Unspaced requests are ms apart.
    assert len(gaps) == 2 and min(gaps) >= 0.3, gaps


def test_a_manifest_line_with_fetch_and_the_periodic_task(site: Site, tmp_path: Path):
    manifest = tmp_path / "arsip.jsonl"
    manifest.write_text(
        "\n".join(
            json.dumps(line)
            for line in [
                {
                    "doc_id": "F1",
                    "title": "Status Sinar",
                    "fetch": True,
                    "url": site.url,
                    "public": True,
                    "fetch_every_hours": 1,
                },
                {"doc_id": "F2", "title": "Tanpa URL", "fetch": True},
            ]
        ),
        encoding="utf-8",
    )
    out, err, error = run("ingest", "--manifest", str(manifest), "--sync")
    assert error is not None and "baris 2 (F2): fetch: true memerlukan url" in err
    document = Document.objects.get(key="F1")
    assert document.title == "Status Sinar" and document.fetch_every_hours == 1
    assert document.current_revision.status == "active"

    site.body = "Fitur Sinar kini tersedia untuk semua pelanggan."
    Document.objects.filter(pk=document.pk).update(last_fetched_at=document.last_fetched_at.replace(year=2025))
    with override_settings(CELERY_TASK_ALWAYS_EAGER=True):
        counts = fetch_due_sources.apply().get()
    assert counts["changed"] == 1
    latest = Revision.objects.filter(document=document).order_by("-number").first()
    assert latest.number == 2 and "semua pelanggan" in latest.content


def test_admin_actions_that_change_revisions_need_the_change_right(client, make_user, make_revision):
    """Fetching now and re-indexing create or rewrite revisions: a staff
    member who may only view documents and revisions is offered neither."""
    from django.contrib.auth.models import Permission

    make_revision("Isi.", key="V1", fmt="text", public=True)
    viewer = make_user("pengamat", is_staff=True)
    viewer.user_permissions.add(
        *Permission.objects.filter(content_type__app_label="retrieval", codename__in=["view_document", "view_revision"])
    )
    client.force_login(viewer)
    assert "fetch_now" not in client.get("/admin/retrieval/document/").content.decode()
    assert "reindex" not in client.get("/admin/retrieval/revision/").content.decode()
    editor = make_user("pengelola", is_staff=True)
    editor.user_permissions.add(
        *Permission.objects.filter(
            content_type__app_label="retrieval",
            codename__in=["view_document", "change_document", "view_revision", "change_revision"],
        )
    )
    client.force_login(editor)
    assert "fetch_now" in client.get("/admin/retrieval/document/").content.decode()
    assert "reindex" in client.get("/admin/retrieval/revision/").content.decode()
