"""Fetching never reaches inside (issue 55): only public addresses on ports
80 and 443, the connection made to the address that was checked, and the
intranet hosts an operator lists. Against a real HTTP server on loopback,
which every test here expects to see no request unless it is allowed."""

from __future__ import annotations

import datetime
import re
import socket
import ssl
import time
from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
from django.core.exceptions import ImproperlyConfigured
from django.test import override_settings
from pytest_httpserver import HTTPServer
from werkzeug import Response

from retrieval import addresses
from retrieval.addresses import Allowance, is_internal
from retrieval.fetching import Fetcher, FetchError
from retrieval.models import Document, SourceType
from retrieval.tasks import fetch_due_sources
from tests.commands import run_command as run

pytestmark = pytest.mark.django_db

PUBLIC = "93.184.216.34"  # a public address nothing here may really connect to


@pytest.fixture
def server(settings, httpserver: HTTPServer) -> HTTPServer:
    """The loopback server, with no host allowed: only its port is, so each
    refusal below is for the address, not the port."""
    settings.NALARKU_FETCH = {**settings.NALARKU_FETCH, "allow": [], "ports": [httpserver.port]}
    httpserver.expect_request("/robots.txt").respond_with_data("", status=404)
    httpserver.expect_request("/status").respond_with_data("Layanan Sinar berjalan normal.", content_type="text/plain")
    return httpserver


def allow(settings, *entries: str, ports: tuple[int, ...] = ()) -> None:  # noqa: ANN001
    settings.NALARKU_FETCH = {**settings.NALARKU_FETCH, "allow": list(entries), "ports": list(ports)}


def answering(monkeypatch: pytest.MonkeyPatch, answers: dict[str, list[str]]) -> list[str]:
    """DNS that answers ``answers[name]`` in turn (the last one again once
    used up), the rest as the system does; the names looked up, in order."""
    system, asked = socket.getaddrinfo, []

    def getaddrinfo(host, port, *args, **kwargs):  # noqa: ANN001, ANN002, ANN003, ANN202
        if host not in answers:
            return system(host, port, *args, **kwargs)
        asked.append(host)
        address = answers[host][min(asked.count(host), len(answers[host])) - 1]
        family = socket.AF_INET6 if ":" in address else socket.AF_INET
        return [(family, socket.SOCK_STREAM, 6, "", (address, port))]

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    return asked


def connections(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, int]]:
    """Every TCP connection opened, by address; one to a public address is
    refused as if nothing answered there (nothing here may leave the machine)."""
    system, opened = socket.create_connection, []

    def create_connection(address, *args, **kwargs):  # noqa: ANN001, ANN002, ANN003, ANN202
        opened.append(address)
        if address[0] == PUBLIC:
            raise ConnectionRefusedError(111, "Connection refused")
        return system(address, *args, **kwargs)

    monkeypatch.setattr(socket, "create_connection", create_connection)
    return opened


def fetch(url: str) -> str:
    with Fetcher(timeout=2, host_delay=0) as fetcher:
        return fetcher.get(url).content


# --- refused -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("host", "reason"),
    [
        ("127.0.0.1", r"127\.0\.0\.1"),
        ("localhost", r"localhost → (127\.0\.0\.1|::1)"),
        ("[::1]", r"::1"),
        ("[::ffff:127.0.0.1]", r"::ffff:127\.0\.0\.1"),
    ],
)
def test_ingest_fetch_of_loopback_is_refused_and_nothing_is_stored(server: HTTPServer, host: str, reason: str):
    url = f"http://{host}:{server.port}/status"
    out, err, error = run("ingest", "--fetch", url, "--doc-id", "X1", "--public", "--sync")
    assert error is not None and "1 masukan ditolak" in str(error)
    assert re.search(rf"gagal mengambil {re.escape(url)}: alamat internal tidak diizinkan: {reason}$", err, re.M), err
    assert not Document.objects.filter(key="X1").exists()
    assert server.log == []  # not even robots.txt was asked for


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("http://10.1.2.3/wiki", "10.1.2.3"),
        ("http://192.168.1.10/", "192.168.1.10"),
        ("http://169.254.169.254/latest/meta-data/", "169.254.169.254"),  # the cloud metadata service
        ("https://[fd00::7]/", "fd00::7"),
        ("http://100.64.0.1/", "100.64.0.1"),  # shared address space (carrier NAT)
        ("http://0.0.0.0/", "0.0.0.0"),  # reaches this machine on Linux
        ("http://224.0.0.251/", "224.0.0.251"),
        ("http://[2002:7f00:1::]/", "2002:7f00:1::"),  # 6to4 of 127.0.0.1, which Python calls global
    ],
)
def test_private_link_local_and_other_internal_addresses_are_refused_before_any_connection(
    settings, monkeypatch: pytest.MonkeyPatch, url: str, shown: str
):
    allow(settings)
    opened = connections(monkeypatch)
    started = time.monotonic()
    with pytest.raises(FetchError, match=rf"^alamat internal tidak diizinkan: {re.escape(shown)}$"):
        fetch(url)
    assert opened == [] and time.monotonic() - started < 1


def test_a_name_that_resolves_to_loopback_is_refused(server: HTTPServer, monkeypatch: pytest.MonkeyPatch):
    asked = answering(monkeypatch, {"berita.contoh.id": ["127.0.0.1"]})
    with pytest.raises(FetchError, match=r"^alamat internal tidak diizinkan: berita\.contoh\.id → 127\.0\.0\.1$"):
        fetch(f"http://berita.contoh.id:{server.port}/status")
    assert asked == ["berita.contoh.id"] and server.log == []


def test_a_name_with_a_public_and_an_internal_address_is_refused_whole(settings, monkeypatch: pytest.MonkeyPatch):
    allow(settings)
    monkeypatch.setattr(
        addresses, "resolve", lambda host, port: [addresses._literal(PUBLIC), addresses._literal("10.0.0.5")]
    )
    opened = connections(monkeypatch)
    with pytest.raises(FetchError, match=r"^alamat internal tidak diizinkan: campur\.contoh\.id → 10\.0\.0\.5$"):
        fetch("https://campur.contoh.id/")
    assert opened == []


def test_a_redirect_from_an_allowed_host_into_loopback_is_refused(settings, server: HTTPServer):
    allow(settings, "localhost", ports=(server.port,))
    server.expect_request("/pindah").respond_with_response(
        Response(status=302, headers={"Location": f"http://127.0.0.1:{server.port}/status"})
    )
    server.expect_request("/metadata").respond_with_response(
        Response(status=301, headers={"Location": "http://169.254.169.254/latest/meta-data/"})
    )
    with pytest.raises(FetchError, match=r"^alamat internal tidak diizinkan: 127\.0\.0\.1$"):
        fetch(server.url_for("/pindah"))
    with pytest.raises(FetchError, match=r"^alamat internal tidak diizinkan: 169\.254\.169\.254$"):
        fetch(server.url_for("/metadata"))
    assert [request.path for request, _ in server.log] == ["/robots.txt", "/pindah", "/robots.txt", "/metadata"]


def test_ports_other_than_80_and_443_are_refused_before_resolving(settings, monkeypatch: pytest.MonkeyPatch):
    allow(settings)
    asked = answering(monkeypatch, {"contoh.id": [PUBLIC]})
    with pytest.raises(FetchError, match=r"^port 6379 tidak diizinkan \(hanya 80, 443\)$"):
        fetch("http://contoh.id:6379/")
    with pytest.raises(FetchError, match="URL harus http atau https"):
        fetch("ftp://contoh.id/berkas")
    assert asked == []


# --- rebinding: the connection goes to the address that was checked -----------------


def test_a_dns_answer_that_changes_after_the_check_is_never_connected_to(
    server: HTTPServer, monkeypatch: pytest.MonkeyPatch
):
    """The name answers a public address once, loopback ever after. A
    fetcher that checked the name and then let the socket resolve it again
    would reach the loopback server; this one connects to the address it
    checked, and asks DNS once per connection."""
    asked = answering(monkeypatch, {"rebind.contoh.id": [PUBLIC, "127.0.0.1"]})
    opened = connections(monkeypatch)
    with pytest.raises(FetchError, match=r"^tidak dapat dihubungi \(koneksi ditolak"):
        fetch(f"http://rebind.contoh.id:{server.port}/status")
    assert opened == [(PUBLIC, server.port)]
    assert asked == ["rebind.contoh.id"]
    assert server.log == []


def test_a_listed_name_is_fetched_from_its_address_with_its_own_host_header(
    settings, server: HTTPServer, monkeypatch: pytest.MonkeyPatch
):
    allow(settings, "intranet.contoh.id", ports=(server.port,))
    answering(monkeypatch, {"intranet.contoh.id": ["127.0.0.1"]})
    opened = connections(monkeypatch)
    assert fetch(f"http://intranet.contoh.id:{server.port}/status") == "Layanan Sinar berjalan normal."
    assert set(opened) == {("127.0.0.1", server.port)}
    assert {request.headers["Host"] for request, _ in server.log} == {f"intranet.contoh.id:{server.port}"}


# --- the allowlist lets exactly what it lists through ------------------------------


def test_an_allowed_address_and_port_let_exactly_that_through(settings, server: HTTPServer):
    allow(settings, "127.0.0.1", ports=(server.port,))
    assert fetch(f"http://127.0.0.1:{server.port}/status") == "Layanan Sinar berjalan normal."
    with pytest.raises(FetchError, match=r"^alamat internal tidak diizinkan: 127\.0\.0\.2$"):
        fetch(f"http://127.0.0.2:{server.port}/status")
    with pytest.raises(FetchError, match=r"^alamat internal tidak diizinkan: ::1$"):
        fetch(f"http://[::1]:{server.port}/status")
    with pytest.raises(FetchError, match=rf"^port {server.port + 1} tidak diizinkan \(hanya 80, 443, {server.port}\)$"):
        fetch(f"http://127.0.0.1:{server.port + 1}/status")
    assert len(server.log) == 2  # robots.txt and the page, once


def test_an_allowed_name_does_not_allow_its_address_under_another_name(settings, server: HTTPServer):
    allow(settings, "localhost", ports=(server.port,))
    assert fetch(server.url_for("/status")) == "Layanan Sinar berjalan normal."
    with pytest.raises(FetchError, match=r"^alamat internal tidak diizinkan: 127\.0\.0\.1$"):
        fetch(f"http://127.0.0.1:{server.port}/status")


def test_an_allowed_network_covers_the_names_that_resolve_into_it(settings, monkeypatch: pytest.MonkeyPatch):
    allow(settings, "10.20.0.0/16")
    monkeypatch.setattr(addresses, "resolve", lambda host, port: [addresses._literal("10.20.3.4")])
    assert addresses.addresses_vetted("wiki.intra", 443, Allowance.parse(["10.20.0.0/16"])) == [
        addresses._literal("10.20.3.4")
    ]
    with pytest.raises(addresses.AddressRefused, match="10.21.0.1"):
        addresses.addresses_vetted("10.21.0.1", 80, Allowance.parse(["10.20.0.0/16"]))


def test_the_setting_is_read_strictly():
    allowance = Allowance.parse([" Wiki.Intra ", "10.0.0.0/8", "[::1]", ""], ["8080"])
    assert allowance.hosts == {"wiki.intra"} and allowance.ports == {80, 443, 8080}
    assert [str(n) for n in allowance.networks] == ["10.0.0.0/8", "::1/128"]
    for mistyped in ("10.0.0.0/33", "10.0.0.300", "wiki intra"):
        with pytest.raises(ImproperlyConfigured, match="NALARKU_FETCH_ALLOW"):
            Allowance.parse([mistyped])
    with pytest.raises(ImproperlyConfigured, match="NALARKU_FETCH_PORTS"):
        Allowance.parse([], [70000])


@pytest.mark.parametrize(
    ("address", "internal"),
    [
        ("8.8.8.8", False),
        ("2606:4700:4700::1111", False),
        ("::ffff:10.0.0.1", True),
        ("64:ff9b::a00:1", True),  # NAT64 of 10.0.0.1
        ("fec0::1", True),  # site-local, which Python calls global
        ("fe80::1", True),
        ("ff02::1", True),
        ("::", True),
        ("240.0.0.1", True),
        ("198.18.0.1", True),
    ],
)
def test_what_counts_as_internal(address: str, internal: bool):
    assert is_internal(addresses._literal(address)) is internal


# --- TLS stays on the name ---------------------------------------------------------


def _certificate(tmp_path: Path, name: str) -> tuple[Path, Path]:
    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)])
    now = datetime.datetime.now(datetime.UTC)
    certificate = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(hours=1))
        .add_extension(x509.SubjectAlternativeName([x509.DNSName(name)]), critical=False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    cert_path, key_path = tmp_path / "cert.pem", tmp_path / "key.pem"
    cert_path.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    )
    return cert_path, key_path


def test_https_keeps_the_server_name_and_the_certificate_check_on_the_name(
    settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    """Connected to the checked address, TLS still sends the URL's name and
    checks the certificate against it: the certificate names localhost only,
    so the same server reached as 127.0.0.1 fails the check."""
    cert, key = _certificate(tmp_path, "localhost")
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    server_names: list[str | None] = []
    context.sni_callback = lambda sock, name, ctx: server_names.append(name)
    monkeypatch.setenv("SSL_CERT_FILE", str(cert))  # trusted by httpx's default context
    tls = HTTPServer(host="localhost", port=0, ssl_context=context)
    tls.expect_request("/robots.txt").respond_with_data("", status=404)
    tls.expect_request("/status").respond_with_data("Lewat TLS.", content_type="text/plain")
    tls.start()
    try:
        allow(settings, "localhost", "127.0.0.1", ports=(tls.port,))
        assert fetch(tls.url_for("/status")) == "Lewat TLS."
        assert server_names and set(server_names) == {"localhost"}
        with pytest.raises(FetchError, match="tidak dapat dihubungi"):
            fetch(f"https://127.0.0.1:{tls.port}/status")
    finally:
        tls.clear()
        if tls.is_running():
            tls.stop()


# --- every way a fetch starts goes through the check -------------------------------


@pytest.fixture
def internal_source(server: HTTPServer, make_revision) -> Document:  # noqa: ANN001
    """A document to re-fetch whose URL leads to loopback (saved before the check existed)."""
    revision = make_revision("Isi lama.", key="S1", fmt="text", public=True, url=server.url_for("/status"))
    Document.objects.filter(pk=revision.document_id).update(fetch_every_hours=1)
    return Document.objects.get(pk=revision.document_id)


def test_the_scheduled_refetch_is_refused_recorded_and_shown_in_admin(
    internal_source: Document, server: HTTPServer, admin_client
):
    out, err, error = run("fetch_sources", "--all", "--sync")
    assert error is not None and "1 dokumen gagal diambil" in str(error)
    assert re.search(r"S1: alamat internal tidak diizinkan: localhost → (127\.0\.0\.1|::1)$", err, re.M), err
    internal_source.refresh_from_db()
    assert internal_source.fetch_status == "failed"
    assert internal_source.fetch_error.startswith("alamat internal tidak diizinkan: localhost → ")
    assert internal_source.revisions.count() == 1 and server.log == []

    Document.objects.filter(pk=internal_source.pk).update(last_fetched_at=None)  # due again
    with override_settings(CELERY_TASK_ALWAYS_EAGER=True):  # the worker's periodic task, the same way
        counts = fetch_due_sources.apply().get()
    assert counts["failed"] == 1 and counts["changed"] == 0 and server.log == []

    page = admin_client.get(f"/admin/retrieval/document/{internal_source.pk}/change/").content.decode()
    shown = BeautifulSoup(page, "html.parser").select_one(".field-fetch_error").get_text(" ", strip=True)
    assert "alamat internal tidak diizinkan: localhost →" in shown


def test_fetching_now_from_admin_is_refused_the_same_way(internal_source: Document, server: HTTPServer, admin_client):
    response = admin_client.post(
        "/admin/retrieval/document/",
        {"action": "fetch_now", "_selected_action": [internal_source.pk]},
        follow=True,
    )
    assert "Gagal (lihat galat pengambilan): S1" in response.content.decode()
    internal_source.refresh_from_db()
    assert internal_source.fetch_status == "failed" and "alamat internal tidak diizinkan" in internal_source.fetch_error
    assert server.log == []


def _add_form(**fields: object) -> dict:
    SourceType.ensure("documentation")
    return {
        "key": "N9",
        "title": "Wiki internal",
        "url": "",
        "source_type": "documentation",
        "collection": "editorial",
        "public": "on",
        "fetch_every_hours": "",
        "content": "",
        "format": "markdown",
        "document_date": "",
        "relations_out-TOTAL_FORMS": "0",
        "relations_out-INITIAL_FORMS": "0",
        **fields,
    }


def _url_errors(response) -> list[str]:  # noqa: ANN001
    page = BeautifulSoup(response.content.decode(), "html.parser")
    return [li.get_text(strip=True) for li in page.select(".field-url .errorlist li")]


def test_the_admin_form_refuses_a_url_to_fetch_that_leads_inside(
    admin_client, settings, monkeypatch: pytest.MonkeyPatch
):
    allow(settings)
    opened = connections(monkeypatch)
    response = admin_client.post("/admin/retrieval/document/add/", _add_form(url="http://169.254.169.254/latest/"))
    assert response.status_code == 200
    assert _url_errors(response) == ["URL ini tidak dapat diambil: alamat internal tidak diizinkan: 169.254.169.254"]
    answering(monkeypatch, {"wiki.contoh.id": ["10.0.0.7"]})
    response = admin_client.post(
        "/admin/retrieval/document/add/", _add_form(url="https://wiki.contoh.id/", fetch_every_hours="24")
    )
    assert _url_errors(response) == [
        "URL ini tidak dapat diambil: alamat internal tidak diizinkan: wiki.contoh.id → 10.0.0.7"
    ]
    assert not Document.objects.filter(key="N9").exists() and opened == []

    # A listed intranet host is accepted; so is an internal URL kept only as
    # the source's address, with a text of its own and nothing to re-fetch.
    allow(settings, "wiki.contoh.id")
    response = admin_client.post(
        "/admin/retrieval/document/add/", _add_form(url="https://wiki.contoh.id/", fetch_every_hours="24")
    )
    assert response.status_code == 302 and Document.objects.filter(key="N9").exists()
    response = admin_client.post(
        "/admin/retrieval/document/add/",
        _add_form(key="N10", url="http://10.0.0.7/catatan", content="# Catatan\n\nIsi dari berkas."),
    )
    assert response.status_code == 302 and Document.objects.filter(key="N10").exists()


def test_the_admin_change_form_refuses_a_url_to_refetch_that_leads_inside(admin_client, settings):
    allow(settings)
    SourceType.ensure("documentation")
    document = Document.objects.create(key="N11", title="Sumber", source_type_id="documentation")
    fields = {
        "key": "N11",
        "title": "Sumber",
        "url": "http://127.0.0.1/admin/",
        "source_type": "documentation",
        "collection": "editorial",
        "fetch_every_hours": "6",
        "revisions-TOTAL_FORMS": "0",
        "revisions-INITIAL_FORMS": "0",
        "relations_out-TOTAL_FORMS": "0",
        "relations_out-INITIAL_FORMS": "0",
    }
    response = admin_client.post(f"/admin/retrieval/document/{document.pk}/change/", fields)
    assert response.status_code == 200
    assert _url_errors(response) == ["URL ini tidak dapat diambil: alamat internal tidak diizinkan: 127.0.0.1"]
    document.refresh_from_db()
    assert document.url == "" and document.fetch_every_hours is None
