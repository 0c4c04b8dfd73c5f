"""Sources fetched from their URL, and re-fetched when they are due.

A page is fetched with httpx and its main content extracted with
trafilatura (boilerplate — menus, footers, cookie banners — left out) into
Markdown; PDF and DOCX replies go through ``retrieval.converters``. The
fetcher is polite: robots.txt is read once per host and obeyed (RFC 9309:
a 4xx robots.txt allows everything, a 5xx one forbids everything; a
redirected one is taken as absent, where the RFC would follow it),
requests to one host are spaced by ``host_delay`` (or the host's
Crawl-delay, if longer), redirects are followed one hop at a time so each
hop is checked again, and the reply is read up to the file size limit.
ETag and Last-Modified make a re-fetch of an unchanged page a 304.

Only public addresses on ports 80 and 443 are fetched, besides the hosts,
networks and ports the operator lists (``retrieval.addresses``): every
connection, robots.txt and redirect hops included, goes to an address that
was checked.

A new revision is made only when the extracted content changed
(``revision_submit`` compares content hashes). Every outcome is recorded on
the document (``fetch_status``, ``fetch_error``, ``last_fetched_at``); a
failure never touches the revision that serves.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import date, timedelta
from urllib.parse import urljoin, urlsplit
from urllib.robotparser import RobotFileParser

import httpx
from django.conf import settings
from django.utils import timezone

from .addresses import AddressRefused, Allowance, VettedTransport, addresses_vetted, url_target
from .converters import MAX_FILE_BYTES, ConversionError, convert
from .encodings import UndecodableError, text_decoded
from .http import transport_problem
from .ingestion import RevisionInput, SubmitResult, revision_index, revision_submit
from .models import Document

USER_AGENT = "Nalarku/1.0 (pemeriksa arsip redaksi)"
ROBOTS_AGENT = "Nalarku"
DEFAULTS = {"timeout": 20.0, "host_delay": 1.0, "max_redirects": 5, "every_hours": 24, "allow": (), "ports": ()}
_HTML = {"text/html", "application/xhtml+xml"}
_BINARY = {"application/pdf": "pdf", "application/vnd.openxmlformats-officedocument.wordprocessingml.document": "docx"}
_TEXT = {"text/plain": "text", "text/markdown": "markdown", "text/x-markdown": "markdown"}


def config() -> dict:
    return {**DEFAULTS, **getattr(settings, "NALARKU_FETCH", {})}


def allowance() -> Allowance:
    """The intranet hosts, networks and ports fetching may reach, as configured."""
    options = config()
    return Allowance.parse(options["allow"], options["ports"])


class FetchError(Exception):
    """The source could not be fetched or read; the message is for the admin."""


@dataclass
class Fetched:
    url: str  # after redirects
    not_modified: bool = False
    content: str = ""
    format: str = "markdown"
    page_starts: list[int] = field(default_factory=list)
    ocr_pages: list[int] = field(default_factory=list)
    title: str = ""
    document_date: str | None = None
    etag: str = ""
    last_modified: str = ""


class Fetcher:
    """One fetching run: robots.txt cached per host, requests to a host spaced."""

    def __init__(
        self,
        *,
        timeout: float | None = None,
        host_delay: float | None = None,
        max_redirects: int | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        options = config()
        self.timeout = options["timeout"] if timeout is None else timeout
        self.host_delay = options["host_delay"] if host_delay is None else host_delay
        self.max_redirects = options["max_redirects"] if max_redirects is None else max_redirects
        self._sleep = sleep
        self._robots: dict[str, RobotFileParser | bool] = {}
        self._last_request: dict[str, float] = {}
        self.allowance = allowance()
        self._client = httpx.Client(
            timeout=self.timeout,
            headers={"User-Agent": USER_AGENT},
            follow_redirects=False,
            transport=VettedTransport(self.allowance),
        )

    def close(self) -> None:
        self._client.close()

    def __enter__(self) -> Fetcher:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def get(self, url: str, *, etag: str = "", last_modified: str = "") -> Fetched:
        headers = {}
        if etag:
            headers["If-None-Match"] = etag
        if last_modified:
            headers["If-Modified-Since"] = last_modified
        for _ in range(self.max_redirects + 1):
            self._check(url)
            with self._request(url, headers) as response:
                if response.has_redirect_location:
                    url = urljoin(url, response.headers.get("location", ""))
                    continue
                if response.status_code == 304:
                    return Fetched(url=url, not_modified=True, etag=etag, last_modified=last_modified)
                if response.status_code >= 400:
                    raise FetchError(_http_problem(response.status_code))
                body = self._body(response)
                fetched = _read(body, response, url)
                fetched.etag = response.headers.get("etag", "")
                fetched.last_modified = response.headers.get("last-modified", "")
                return fetched
        raise FetchError(f"lebih dari {self.max_redirects} pengalihan (redirect)")

    # --- politeness -------------------------------------------------------------

    def _check(self, url: str) -> None:
        try:
            url_target(url, self.allowance)  # the address itself is checked where it is connected to
        except AddressRefused as exc:
            raise FetchError(str(exc)) from None
        parts = urlsplit(url)
        robots = self._robots_for(parts)
        if robots is False or (robots is not True and not robots.can_fetch(ROBOTS_AGENT, url)):
            raise FetchError(f"dilarang oleh robots.txt {parts.scheme}://{parts.netloc}")

    def _robots_for(self, parts) -> RobotFileParser | bool:  # noqa: ANN001
        host = f"{parts.scheme}://{parts.netloc}"
        if host not in self._robots:
            try:
                with self._request(f"{host}/robots.txt", {}) as response:
                    if response.status_code >= 500:
                        self._robots[host] = False
                    elif response.status_code >= 300:
                        self._robots[host] = True
                    else:
                        parser = RobotFileParser()
                        parser.parse(self._body(response).decode("utf-8", "replace").splitlines())
                        self._robots[host] = parser
            except FetchError:
                raise  # the host itself cannot be reached: say so (nothing is cached, a later try may work)
        return self._robots[host]

    def _wait_for(self, host: str) -> None:
        robots = self._robots.get(host)
        delay = self.host_delay
        if isinstance(robots, RobotFileParser):
            delay = max(delay, float(robots.crawl_delay(ROBOTS_AGENT) or 0))
        last = self._last_request.get(host)
        if last is not None and (wait := last + delay - time.monotonic()) > 0:
            self._sleep(wait)
        self._last_request[host] = time.monotonic()

    def _request(self, url: str, headers: dict[str, str]):  # noqa: ANN202
        parts = urlsplit(url)
        self._wait_for(f"{parts.scheme}://{parts.netloc}")
        return _Reply(self._client.stream("GET", url, headers=headers), self.timeout)

    def _body(self, response: httpx.Response) -> bytes:
        size = int(response.headers.get("content-length") or 0)
        if size > MAX_FILE_BYTES:
            raise FetchError(f"isi {size / 1048576:.1f} MB; batasnya {MAX_FILE_BYTES // 1048576} MB")
        chunks, total = [], 0
        try:
            for chunk in response.iter_bytes():
                total += len(chunk)
                if total > MAX_FILE_BYTES:
                    raise FetchError(f"isi lebih dari {MAX_FILE_BYTES // 1048576} MB")
                chunks.append(chunk)
        except httpx.HTTPError as exc:
            raise _translated(exc, self.timeout) from None
        return b"".join(chunks)


class _Reply:
    """``client.stream(...)`` as a context manager whose transport errors
    become FetchError (httpx raises them on entering)."""

    def __init__(self, stream, timeout: float) -> None:  # noqa: ANN001
        self._stream, self._timeout = stream, timeout

    def __enter__(self) -> httpx.Response:
        try:
            return self._stream.__enter__()
        except httpx.HTTPError as exc:
            raise _translated(exc, self._timeout) from None
        except AddressRefused as exc:  # raised where the connection would have been opened
            raise FetchError(str(exc)) from None

    def __exit__(self, *exc: object) -> None:
        self._stream.__exit__(*exc)


# What an admin reads for a failed reply (the server's reason phrase is English).
_HTTP_MEANINGS = {
    400: "permintaan ditolak",
    401: "perlu masuk",
    403: "akses ditolak",
    404: "halaman tidak ditemukan",
    410: "halaman sudah dihapus",
    429: "terlalu banyak permintaan",
    500: "galat server",
    502: "gateway galat",
    503: "layanan tidak tersedia",
    504: "gateway tidak menjawab",
}


def _http_problem(status: int) -> str:
    meaning = _HTTP_MEANINGS.get(status, "galat server" if status >= 500 else "permintaan ditolak")
    return f"server menjawab HTTP {status} ({meaning})"


def _translated(exc: httpx.HTTPError, timeout: float | None) -> FetchError:
    if isinstance(exc, httpx.TimeoutException):
        return FetchError("server tidak menjawab dalam batas waktu" + (f" {timeout:g} detik" if timeout else ""))
    if isinstance(exc, httpx.TransportError):
        return FetchError(transport_problem(exc))
    if isinstance(exc, httpx.TooManyRedirects):
        return FetchError("terlalu banyak pengalihan (redirect)")
    if isinstance(exc, httpx.DecodingError):
        return FetchError("isi jawaban server tidak dapat didekode")
    return FetchError("permintaan gagal")


def decoded(body: bytes, response: httpx.Response) -> str:
    """The reply as text, decoded as a browser decodes it (``encodings.py``)."""
    try:
        return text_decoded(body, response.headers.get("content-type"))
    except UndecodableError as exc:
        raise FetchError(f"isi halaman tidak terbaca: {exc}") from None


def _read(body: bytes, response: httpx.Response, url: str) -> Fetched:
    """The reply's content as the chunker reads it, by its media type."""
    import trafilatura

    mime = response.headers.get("content-type", "").split(";")[0].strip().lower()
    if mime in _HTML:
        html = decoded(body, response)
        text = trafilatura.extract(
            html,
            url=url,
            output_format="markdown",
            include_tables=True,
            include_comments=False,
            include_images=False,
            include_links=False,
        )
        if not text or not text.strip():
            raise FetchError("halaman tidak berisi teks utama yang bisa diambil")
        metadata = trafilatura.extract_metadata(html, default_url=url)
        title = (metadata.title or "") if metadata else ""
        date = (metadata.date or None) if metadata else None
        return Fetched(url=url, content=text.strip() + "\n", format="markdown", title=title[:500], document_date=date)
    if mime in _BINARY:
        try:
            converted = convert(body, _BINARY[mime])
        except ConversionError as exc:
            raise FetchError(str(exc)) from None
        return Fetched(
            url=url,
            content=converted.text,
            format=_BINARY[mime],
            page_starts=converted.page_starts,
            ocr_pages=converted.ocr_pages,
        )
    if mime in _TEXT:
        text = decoded(body, response)
        if not text.strip():
            raise FetchError("isi kosong")
        return Fetched(url=url, content=text, format=_TEXT[mime])
    raise FetchError(f"jenis konten tidak didukung: {mime or '(tanpa Content-Type)'}")


# --- services ---------------------------------------------------------------------


def url_refusal(url: str) -> str | None:
    """Why a fetch of ``url`` would be refused for where it leads (a scheme,
    port or internal address not allowed), or None. For forms, so an admin
    learns it on save; the fetch checks again when it connects, since a name
    may resolve elsewhere by then. A name that does not resolve now is not
    refused here: its fetch will say so."""
    allowed = allowance()
    try:
        host, port = url_target(url, allowed)
        addresses_vetted(host, port, allowed)
    except AddressRefused as exc:
        return str(exc)
    except (OSError, UnicodeError):
        return None
    return None


def _date(value: str | None) -> date | None:
    """A page's own date as trafilatura found it (``2026-06-01``), if any."""
    try:
        return date.fromisoformat(value[:10]) if value else None
    except ValueError:
        return None


def fetch_new(data: RevisionInput, *, every_hours: int | None = None, fetcher: Fetcher | None = None) -> SubmitResult:
    """A document (new or known) whose revision comes from ``data.url``;
    ``data.content`` is ignored. FetchError when the source cannot be read —
    then nothing is stored. The caller indexes the new revision, if any, or
    hands it to the workers."""
    own = fetcher is None
    fetcher = fetcher or Fetcher()
    try:
        fetched = fetcher.get(data.url)
    finally:
        if own:
            fetcher.close()
    data.content, data.format, data.page_starts = fetched.content, fetched.format, fetched.page_starts
    data.ocr_pages = fetched.ocr_pages
    data.title = data.title or fetched.title or data.key
    data.document_date = data.document_date or _date(fetched.document_date)
    result = revision_submit(data=data)
    _record(
        result.document,
        fetch_every_hours=every_hours or config()["every_hours"],
        fetch_status="changed" if result.revision else "unchanged",
        fetch_error="",
        etag=fetched.etag,
        last_modified=fetched.last_modified,
    )
    return result


def _record(document: Document, **fields: object) -> None:
    """The outcome of a fetch, on the instance and in its row (an update of
    these columns alone: the document's other fields may be changing in admin)."""
    fields["last_fetched_at"] = timezone.now()
    for name, value in fields.items():
        setattr(document, name, value)
    Document.objects.filter(pk=document.pk).update(**fields)


def document_fetch(document: Document, *, fetcher: Fetcher, sync: bool = False) -> tuple[str, int | None]:
    """Fetch one document again: its ``fetch_status`` afterwards, and the id
    of the new revision it made for the caller to hand to the workers (None
    when nothing changed, or when ``sync`` indexed it here)."""
    try:
        fetched = fetcher.get(document.url, etag=document.etag, last_modified=document.last_modified)
    except FetchError as exc:
        _record(document, fetch_status="failed", fetch_error=str(exc)[:2000])
        return "failed", None
    if fetched.not_modified:
        _record(document, fetch_status="not_modified", fetch_error="")
        return "not_modified", None
    latest = document.revisions.order_by("-number").first()
    result = revision_submit(
        data=RevisionInput(
            key=document.key,
            title=document.title,
            content=fetched.content,
            format=fetched.format,
            page_starts=fetched.page_starts,
            ocr_pages=fetched.ocr_pages,
            source_type=document.source_type_id,
            url=document.url,
            document_date=_date(fetched.document_date) or (latest.document_date if latest else None),
            groups=list(document.groups.values_list("name", flat=True)),
            public=document.public,
            collection=document.collection,
        ),
    )
    status = "changed" if result.revision else "unchanged"
    _record(document, fetch_status=status, fetch_error="", etag=fetched.etag, last_modified=fetched.last_modified)
    if result.revision is None:
        return status, None
    if sync:
        revision_index(revision_id=result.revision.pk)
        return status, None
    return status, result.revision.pk


def due_documents(*, include_not_due: bool = False, keys: Iterable[str] = ()) -> list[Document]:
    """Documents with a URL and a fetch interval whose interval has passed
    (all of them with ``include_not_due``), oldest fetch first."""
    documents = Document.objects.exclude(url="").filter(fetch_every_hours__isnull=False)
    if keys:
        documents = documents.filter(key__in=list(keys))
    now = timezone.now()
    due = [
        d
        for d in documents.order_by("last_fetched_at", "key")
        if include_not_due
        or d.last_fetched_at is None
        or d.last_fetched_at + timedelta(hours=d.fetch_every_hours) <= now
    ]
    return due


@dataclass
class FetchReport:
    counts: dict[str, int] = field(
        default_factory=lambda: dict.fromkeys(("changed", "unchanged", "not_modified", "failed"), 0)
    )
    failures: list[tuple[str, str]] = field(default_factory=list)  # (document key, reason)
    new_revisions: list[int] = field(default_factory=list)  # for the caller to hand to the workers


def sources_fetch(
    *,
    include_not_due: bool = False,
    sync: bool = False,
    keys: Iterable[str] = (),
    progress: Callable[[Iterable[Document]], Iterable[Document]] = iter,
) -> FetchReport:
    """Fetch every due document (see ``due_documents``) once, in one polite run."""
    report = FetchReport()
    with Fetcher() as fetcher:
        for document in progress(due_documents(include_not_due=include_not_due, keys=keys)):
            status, revision_id = document_fetch(document, fetcher=fetcher, sync=sync)
            report.counts[status] += 1
            if revision_id is not None:
                report.new_revisions.append(revision_id)
            if status == "failed":
                report.failures.append((document.key, document.fetch_error))
    return report
