"""How faithfully documents are read, on two public corpora (not committed).

    uv run --frozen python bench/document_corpora.py --pdfplumber DIR --trafilatura DIR

A. pdfplumber's test PDFs (``tests/pdfs/`` of github.com/jsvine/pdfplumber,
   MIT). Every ``*.pdf`` in DIR is ingested as ``manage.py ingest FILE
   --doc-id ID --sync`` does it (the command's own ``_file_input``, then
   ``has_text``, ``revision_submit``, ``revision_index``). Per file: indexed
   or refused (the Indonesian message), pages, chunks, and the share of the
   words pdfplumber itself extracts page by page (``extract_text()``) that
   reach the chunks: lowercase ``\\w+`` tokens, recall = |multiset
   intersection| / |pdfplumber tokens|, once for the chunks' text alone and
   once with the headings of their breadcrumbs counted once per section.
   Also the chunks that are near-duplicates of another chunk of the same
   revision (Jaccard of word sets >= --jaccard), and the first 300
   characters of the rotated NICS file's first chunk.
B. trafilatura's cached pages (``tests/cache/`` and ``tests/realworld_tests.py``
   of github.com/adbar/trafilatura, Apache-2.0). The pages are served on
   127.0.0.1 (a random port) and taken as ``ingest --fetch URL --doc-id ID
   --sync`` takes them (``fetch_new`` with one ``Fetcher``, then
   ``revision_index``). Per page: the Markdown headings of the stored
   revision found in a chunk's text or breadcrumb; the "without" strings of
   realworld_tests.py (boilerplate) kept out of every chunk; the "with"
   strings found in a chunk (and, apart, in the revision's text).

A crash in one file is recorded and the run goes on; each file has a time
limit. Own data directory: var/bench-corpora (the archive there is emptied
at the start; the embedding cache is kept).
"""

from __future__ import annotations

import argparse
import ast
import functools
import http.server
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path
from types import SimpleNamespace
from urllib.parse import quote

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("NALARKU_DATA_DIR", str(ROOT / "var" / "bench-corpora"))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "nalarku_site.settings")
os.environ.setdefault("NALARKU_LOG_LEVEL", "WARNING")

import django  # noqa: E402

django.setup()

from django.conf import settings  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.db import connection  # noqa: E402

from retrieval.chunking import BREADCRUMB_SEPARATOR, has_text  # noqa: E402
from retrieval.fetching import Fetcher, FetchError, fetch_new  # noqa: E402
from retrieval.ingestion import RevisionGone, RevisionInput, revision_index, revision_submit  # noqa: E402
from retrieval.management.commands.ingest import Command as IngestCommand  # noqa: E402
from retrieval.models import DEFAULT_SOURCE_TYPE, Chunk, Document, Revision  # noqa: E402

DESCRIPTION = """\
Seberapa setia dokumen dibaca, diukur pada dua korpus publik yang diambil dari
folder yang diberikan (korpusnya tidak ikut di-commit; lihat bench/README.md).

A. --pdfplumber DIR: setiap *.pdf di DIR (tests/pdfs/ dari jsvine/pdfplumber)
   dimasukkan seperti `manage.py ingest FILE --doc-id ID --sync`. Per file:
   diindeks atau ditolak (dengan pesannya), halaman, potongan, recall kata
   teks pdfplumber sendiri (extract_text per halaman) di dalam potongan,
   potongan yang hampir kembar (Jaccard himpunan kata >= --jaccard), dan 300
   karakter pertama potongan pertama nics-background-checks-2015-11-rotated.pdf.
B. --trafilatura DIR: halaman cache/*.html (tests/cache/ dari adbar/trafilatura)
   disajikan di 127.0.0.1 dan diambil seperti `ingest --fetch URL --doc-id ID
   --sync`. Per halaman: judul (baris # di Markdown revisi) yang ada di teks
   atau jejak judul potongan; string "without" dari realworld_tests.py yang
   tidak masuk potongan (boilerplate); string "with" yang ada di potongan.

Keduanya boleh dipakai sendiri-sendiri. Kegagalan satu file dicatat ("crash: …")
dan proses berlanjut; tiap file punya batas waktu (--time-limit). Direktori
data sendiri: var/bench-corpora (arsipnya dikosongkan di awal, cache embedding
disimpan)."""

ROTATED = "nics-background-checks-2015-11-rotated.pdf"
WORD = re.compile(r"\w+")


class FileTimeout(BaseException):
    """Raised by SIGALRM; a BaseException so no ``except Exception`` in the
    code under test swallows it."""


def _alarm(signum: int, frame: object) -> None:  # noqa: ARG001
    raise FileTimeout


def limited(seconds: int, fn, *args, **kwargs):  # noqa: ANN001, ANN002, ANN003, ANN201
    """``fn(*args, **kwargs)`` stopped after ``seconds`` (FileTimeout)."""
    previous = signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(seconds)
    try:
        return fn(*args, **kwargs)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def after_interrupt() -> None:
    """A timeout may leave the connection mid-statement: start a fresh one."""
    try:
        connection.close()
    except Exception:  # noqa: BLE001
        pass


def tokens(text: str) -> list[str]:
    return WORD.findall(text.lower())


def doc_key(prefix: str, name: str) -> str:
    slug = re.sub(r"[^A-Za-z0-9_.-]+", "-", Path(name).stem).strip("-.") or "x"
    return f"{prefix}-{slug}"[:64]


def chunks_of(revision_id: int) -> list[Chunk]:
    return list(Chunk.objects.filter(revision_id=revision_id).order_by("position"))


def breadcrumb_tokens(chunks: list[Chunk]) -> list[str]:
    """Heading words as the chunks carry them, each heading once per section:
    the elements of a chunk's breadcrumb past what it shares with the
    previous chunk's breadcrumb."""
    out: list[str] = []
    previous: list[str] = []
    for chunk in chunks:
        path = chunk.heading_path.split(BREADCRUMB_SEPARATOR) if chunk.heading_path else []
        if path == previous:
            continue
        common = 0
        while common < min(len(path), len(previous)) and path[common] == previous[common]:
            common += 1
        for title in path[common:]:
            out += tokens(title)
        previous = path
    return out


def recall(reference: list[str], got: list[str]) -> tuple[int, int]:
    ref = Counter(reference)
    return sum((ref & Counter(got)).values()), sum(ref.values())


def near_duplicates(chunks: list[Chunk], threshold: float) -> int:
    """Chunks whose word set has Jaccard >= threshold with another chunk's."""
    sets = [set(tokens(c.text)) for c in chunks]
    marked = set()
    for i in range(len(sets)):
        for j in range(i + 1, len(sets)):
            a, b = sets[i], sets[j]
            if not a or not b:
                continue
            if len(a & b) / len(a | b) >= threshold:
                marked.update((i, j))
    return len(marked)


def header_only(chunks: list[Chunk]) -> int:
    """Table chunks holding nothing but a header (at most its row and rule)
    that the next chunk starts with: a header cut off from its first row."""
    return sum(
        1
        for a, b in zip(chunks, chunks[1:], strict=False)
        if a.kind == "table" and a.text.count("\n") <= 1 and b.text.startswith(a.text.rstrip() + "\n")
    )


def print_outcomes(label: str, rows: list) -> None:
    """How many were indexed, refused, crashed or timed out, and why each not indexed was not."""
    counts = Counter(r.status for r in rows)
    print(
        f"{label}: {len(rows)}; diindeks {counts['indexed']}, ditolak {counts['refused']}, "
        f"crash {counts['crash']}, batas waktu {counts['timeout']}"
    )
    for r in rows:
        if r.status != "indexed":
            print(f"  {r.status}: {r.name}: {r.reason}")


def short(message: str, width: int = 110) -> str:
    message = " ".join(str(message).split())
    return message if len(message) <= width else message[: width - 1] + "…"


# --- A. pdfplumber ---------------------------------------------------------------


@dataclass
class PdfRow:
    name: str
    status: str = ""  # indexed | refused | crash | timeout
    reason: str = ""
    pages: int | None = None
    chunks: int = 0
    reference: int = 0  # pdfplumber tokens
    hit_text: int = 0
    hit_crumbs: int = 0
    chunk_tokens: int = 0  # tokens of the chunks' text (repeated table headers and lead-ins included)
    near_dups: int = 0
    header_only: int = 0  # table chunks that are only the header the next chunk repeats
    seconds: float = 0.0
    revision_id: int | None = None


def pdfplumber_tokens(path: Path) -> tuple[int | None, list[str], str]:
    """Pages, tokens of pdfplumber's own page-by-page text, and an error if it cannot read the file."""
    import pdfplumber

    try:
        with pdfplumber.open(path) as pdf:
            out: list[str] = []
            for page in pdf.pages:
                out += tokens(page.extract_text() or "")
            return len(pdf.pages), out, ""
    except Exception as exc:  # noqa: BLE001
        return None, [], f"{type(exc).__name__}: {exc}"


def pdfplumber_text(path: Path) -> str:
    import pdfplumber

    with pdfplumber.open(path) as pdf:
        return " ".join((pdf.pages[0].extract_text() or "").split())


def ingest_file(path: Path, key: str) -> tuple[str, str, int | None]:
    """What ``ingest FILE --doc-id KEY --sync`` does: (status, reason, revision id)."""
    command = IngestCommand()
    options = {
        "doc_id": key,
        "title": None,
        "source_type": DEFAULT_SOURCE_TYPE,
        "url": "",
        "document_date": None,
        "public": False,
        "groups": "",
        "collection": "editorial",
    }
    try:
        data = command._file_input(path, options)
    except ValueError as exc:
        return "refused", str(exc), None
    # A scan (``data.scan``, where the code has it) is read with OCR by revision_index.
    if getattr(data, "scan", None) is None and not has_text(data.content, data.format):
        return "refused", f"tidak ada teks yang bisa dibaca sebagai {data.format}", None
    result = revision_submit(data=data)
    if result.revision is None:
        return "refused", "tidak berubah (revisi sama sudah ada)", None
    return index_revision(result.revision.pk)


def index_revision(revision_id: int) -> tuple[str, str, int | None]:
    """The command's ``_index`` for one revision."""
    try:
        result = revision_index(revision_id=revision_id)
    except RevisionGone:
        return "refused", "revisi terhapus", None
    except Exception as exc:  # noqa: BLE001 — as the command: the revision records its own error
        return "refused", f"pengindeksan gagal: {exc}", revision_id
    if result.status == "failed":
        return "refused", Revision.objects.get(pk=revision_id).error, revision_id
    return "indexed", "", revision_id


def run_pdfplumber(folder: Path, args: argparse.Namespace) -> dict:
    files = sorted(p for p in folder.iterdir() if p.suffix.lower() == ".pdf" and args.match in p.name)
    others = sorted(p.name for p in folder.iterdir() if p.is_file() and p.suffix.lower() != ".pdf")
    print(
        f"\n== A. pdfplumber: {len(files)} PDF di {folder}"
        + (f" (bukan PDF, dilewati: {', '.join(others)})" if others else "")
    )
    rows: list[PdfRow] = []
    rotated_text = rotated_plumber = None
    for n, path in enumerate(files, start=1):
        row = PdfRow(path.name)
        started = time.perf_counter()
        row.pages, reference, plumber_error = pdfplumber_tokens(path)
        row.reference = len(reference)
        try:
            row.status, row.reason, row.revision_id = limited(
                args.time_limit, ingest_file, path, doc_key("pdf", path.name)
            )
        except FileTimeout:
            row.status, row.reason = "timeout", f"lebih dari {args.time_limit} s"
            after_interrupt()
        except Exception as exc:  # noqa: BLE001
            row.status, row.reason = "crash", f"crash: {type(exc).__name__}: {exc}"
            after_interrupt()
        row.seconds = time.perf_counter() - started
        if row.status == "indexed":
            chunks = chunks_of(row.revision_id)
            row.chunks = len(chunks)
            text_tokens = [t for c in chunks for t in tokens(c.text)]
            row.chunk_tokens = len(text_tokens)
            row.hit_text, _ = recall(reference, text_tokens)
            row.hit_crumbs, _ = recall(reference, text_tokens + breadcrumb_tokens(chunks))
            row.near_dups = near_duplicates(chunks, args.jaccard)
            row.header_only = header_only(chunks)
            if path.name == ROTATED and chunks:
                rotated_text = chunks[0].text[:300]
                rotated_plumber = pdfplumber_text(path)[:300]
        elif plumber_error and not row.reason:
            row.reason = plumber_error
        rows.append(row)
        rec = f"{row.hit_text / row.reference:.3f}" if row.status == "indexed" and row.reference else "-"
        print(
            f"  [{n}/{len(files)}] {path.name}: {row.status} {row.chunks} potongan, recall {rec}, {row.seconds:.1f} s",
            flush=True,
        )

    print()
    head = (
        f"{'file':46} {'status':8} {'hlm':>4} {'ptg':>4} {'tok':>6} {'recall':>7} {'+jejak':>7} "
        f"{'rasio':>5} {'kembar':>6} {'s':>6}  alasan"
    )
    print(head)
    print("-" * len(head))
    for r in rows:
        rt = f"{r.hit_text / r.reference:.3f}" if r.status == "indexed" and r.reference else "-"
        rc = f"{r.hit_crumbs / r.reference:.3f}" if r.status == "indexed" and r.reference else "-"
        pages = "-" if r.pages is None else str(r.pages)
        ratio = f"{r.chunk_tokens / r.reference:.2f}" if r.status == "indexed" and r.reference else "-"
        print(
            f"{r.name[:46]:46} {r.status:8} {pages:>4} {r.chunks:>4} {r.reference:>6} {rt:>7} {rc:>7} "
            f"{ratio:>5} {r.near_dups:>6} {r.seconds:>6.1f}  {short(r.reason, 80)}"
        )
    print(
        "tok: token teks pdfplumber; recall: bagiannya yang ada di teks potongan; +jejak: dengan judul di jejak "
        "judul (sekali per bagian); rasio: token teks potongan / tok (>1: teks berulang, mis. kepala tabel "
        "yang diulang di tiap potongan); kembar: potongan yang hampir sama dengan potongan lain revisi itu"
    )
    indexed = [r for r in rows if r.status == "indexed"]
    ref = sum(r.reference for r in indexed)
    hit_t = sum(r.hit_text for r in indexed)
    hit_c = sum(r.hit_crumbs for r in indexed)
    print()
    print_outcomes("PDF", rows)
    if ref:
        print(
            f"recall kata pdfplumber (file diindeks, {ref:,} token): teks potongan {hit_t / ref:.3f}, "
            f"teks + jejak judul {hit_c / ref:.3f}; rasio token {sum(r.chunk_tokens for r in indexed) / ref:.2f}; "
            "rata-rata recall per file "
            f"{sum(r.hit_text / r.reference for r in indexed if r.reference) / max(1, sum(1 for r in indexed if r.reference)):.3f}"
        )
    worst = sorted((r for r in indexed if r.reference), key=lambda r: r.hit_text / r.reference)[:5]
    print(
        "5 file terburuk (recall teks): "
        + "; ".join(f"{r.name} {r.hit_text / r.reference:.3f} ({r.hit_text}/{r.reference})" for r in worst)
    )
    print(
        f"potongan hampir kembar (Jaccard >= {args.jaccard}): {sum(r.near_dups for r in indexed)} dari "
        f"{sum(r.chunks for r in indexed)} potongan, di {sum(1 for r in indexed if r.near_dups)} file: "
        + ", ".join(f"{r.name} {r.near_dups}/{r.chunks}" for r in indexed if r.near_dups)
    )
    print(
        f"potongan tabel yang hanya berisi kepala tabel (diulang di potongan berikutnya): "
        f"{sum(r.header_only for r in indexed)}, di {sum(1 for r in indexed if r.header_only)} file: "
        + ", ".join(f"{r.name} {r.header_only}" for r in indexed if r.header_only)
    )
    if rotated_text is not None:
        print(f"\n{ROTATED}, potongan pertama (300 karakter):\n{rotated_text!r}")
        print(f"pdfplumber extract_text() halaman 1 (300 karakter, baris digabung):\n{rotated_plumber!r}")
    elif any(r.name == ROTATED for r in rows):
        print(f"\n{ROTATED}: tidak diindeks")
    return {
        "rows": [asdict(r) for r in rows],
        "rotated_first_chunk": rotated_text,
        "rotated_pdfplumber": rotated_plumber,
        "recall_text": hit_t / ref if ref else None,
        "recall_with_breadcrumbs": hit_c / ref if ref else None,
    }


# --- B. trafilatura --------------------------------------------------------------


@dataclass
class Expectations:
    url: str
    file: str
    with_: list[str] = field(default_factory=list)
    without: list[str] = field(default_factory=list)


def read_expectations(path: Path) -> tuple[dict[str, Expectations], dict[str, int]]:
    """The "with" / "without" strings of realworld_tests.py per cached file,
    read with ast (the file imports trafilatura and pytest; it is not run).

    Counted: ``assert "x" in result`` and ``assert "x" not in result`` after
    ``result = do_load_page(URL)`` / ``load_mock_page(URL)``, in the plain
    text configuration: inside ``if`` blocks the branch that holds for
    ``xmloutput=False, formatting=False``. Calls with ``formatting=True`` or
    ``links=True`` (Markdown-formatted output the project does not ask for)
    and asserts of any other form are skipped and counted."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    mock_pages: dict[str, str] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "MOCK_PAGES" for t in node.targets):
            mock_pages = ast.literal_eval(node.value)
    env = {"xmloutput": False, "formatting": False, "xml_flag": False, "tei_output": False, "links": False}
    skipped = Counter()
    out: dict[str, Expectations] = {}

    def walk(statements: list[ast.stmt], state: dict) -> None:
        for stmt in statements:
            if isinstance(stmt, ast.If):
                try:
                    holds = eval(compile(ast.Expression(stmt.test), "<if>", "eval"), {}, dict(env))  # noqa: S307
                except Exception:  # noqa: BLE001
                    skipped["if not decidable"] += 1
                    continue
                walk(stmt.body if holds else stmt.orelse, state)
            elif isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Call):
                call = stmt.value
                name = ast.unparse(call.func)
                targets = [t.id for t in stmt.targets if isinstance(t, ast.Name)]
                if "result" in targets:
                    state["url"] = None
                    if (
                        name in ("do_load_page", "load_mock_page")
                        and call.args
                        and isinstance(call.args[0], ast.Constant)
                    ):
                        flags = {k.arg: ast.literal_eval(k.value) for k in call.keywords if k.arg}
                        if flags.get("formatting") or flags.get("links"):
                            state["skip_reason"] = "formatting/links output"
                        else:
                            state["url"] = call.args[0].value
            elif isinstance(stmt, ast.Assert):
                t = stmt.test
                plain = (
                    isinstance(t, ast.Compare)
                    and len(t.ops) == 1
                    and isinstance(t.ops[0], (ast.In, ast.NotIn))
                    and isinstance(t.left, ast.Constant)
                    and isinstance(t.left.value, str)
                    and isinstance(t.comparators[0], ast.Name)
                    and t.comparators[0].id == "result"
                )
                if not plain:
                    if isinstance(t, ast.Constant) or any(
                        isinstance(x, ast.Name) and x.id == "result" for x in ast.walk(t)
                    ):
                        skipped[f"assert of another form: {short(ast.unparse(t), 60)}"] += 1
                    continue
                url = state.get("url")
                if url is None:
                    skipped["assert on formatting=True or links=True output"] += 1
                    continue
                if url not in mock_pages:
                    skipped["URL not in MOCK_PAGES"] += 1
                    continue
                entry = out.setdefault(url, Expectations(url, mock_pages[url]))
                (entry.without if isinstance(t.ops[0], ast.NotIn) else entry.with_).append(t.left.value)
            elif isinstance(stmt, (ast.For, ast.With, ast.While, ast.Try)):
                walk(stmt.body, state)

    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name.startswith("test_"):
            walk(node.body, {"url": None})
    by_file = {e.file: e for e in out.values()}
    return by_file, dict(skipped)


def serve(folder: Path) -> tuple[http.server.ThreadingHTTPServer, int]:
    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(folder)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, server.server_address[1]


def fetch_page(url: str, key: str) -> tuple[str, str, int | None]:
    """What ``ingest --fetch URL --doc-id KEY --sync`` does."""
    data = RevisionInput(
        key=key,
        title="",
        content="",
        url=url,
        source_type=DEFAULT_SOURCE_TYPE,
        document_date=None,
        public=False,
        collection="editorial",
        groups=[],
    )
    fetcher = Fetcher()
    try:
        result = fetch_new(data, every_hours=None, fetcher=fetcher)
    except FetchError as exc:
        return "refused", f"gagal mengambil {url}: {exc}", None
    finally:
        fetcher.close()
    if result.revision is None:
        return "refused", "tidak berubah (revisi sama sudah ada)", None
    return index_revision(result.revision.pk)


_HEADING = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$")
_FENCE = re.compile(r"^ {0,3}(```|~~~)")


def markdown_headings(content: str) -> list[str]:
    """Text of the ATX headings (``#`` lines) outside fenced code."""
    out, fenced = [], False
    for line in content.splitlines():
        if _FENCE.match(line):
            fenced = not fenced
            continue
        if not fenced and (m := _HEADING.match(line)) and m.group(2).strip():
            out.append(m.group(2).strip())
    return out


def folded(text: str) -> str:
    """For headings: case-insensitive, inline markup (* ` \\) and spacing ignored."""
    return " ".join(re.sub(r"[*`\\]", "", text).split()).casefold()


def flat(text: str) -> str:
    """For with/without strings (case kept, as trafilatura's tests): emphasis
    markers and Markdown escapes dropped, spacing collapsed; applied to both sides."""
    return " ".join(re.sub(r"\\(?=[^\w\s])|\*", "", text).split())


def with_comments(path: Path) -> str:
    """The page as the fetcher extracts it, but with the comments kept
    (trafilatura's own tests extract with its default, include_comments=True)."""
    import trafilatura

    from retrieval.fetching import decoded

    reply = SimpleNamespace(headers={"content-type": "text/html"})
    html = decoded(path.read_bytes(), reply)  # type: ignore[arg-type]
    return (
        trafilatura.extract(
            html,
            output_format="markdown",
            include_tables=True,
            include_comments=True,
            include_images=False,
            include_links=False,
        )
        or ""
    )


@dataclass
class PageRow:
    name: str
    status: str = ""
    reason: str = ""
    chunks: int = 0
    headings: int = 0
    headings_present: int = 0
    missing_headings: list[str] = field(default_factory=list)
    with_total: int = 0
    with_in_chunks: int = 0
    with_in_revision: int = 0
    with_missing: list[str] = field(default_factory=list)
    with_in_comments: int = 0  # missing ones that trafilatura keeps with include_comments=True
    without_total: int = 0
    without_kept_out: int = 0
    without_leaked: list[str] = field(default_factory=list)
    seconds: float = 0.0


def run_trafilatura(folder: Path, args: argparse.Namespace) -> dict:
    cache = folder / "cache" if (folder / "cache").is_dir() else folder
    tests = folder / "realworld_tests.py"
    expectations, skipped = read_expectations(tests) if tests.is_file() else ({}, {"realworld_tests.py tidak ada": 1})
    files = sorted(p for p in cache.iterdir() if p.suffix.lower() in (".html", ".htm") and args.match in p.name)
    server, port = serve(cache)
    # Fetching refuses loopback unless the operator lists it (retrieval.addresses):
    # this server is on loopback by intent.
    settings.NALARKU_FETCH = {**settings.NALARKU_FETCH, "allow": ["127.0.0.1"], "ports": [port]}
    print(
        f"\n== B. trafilatura: {len(files)} halaman di {cache}, disajikan di http://127.0.0.1:{port}/; "
        f"{len(expectations)} halaman punya string with/without"
    )
    missing_files = sorted(e.file for e in expectations.values() if not (cache / e.file).is_file())
    if missing_files:
        print(f"  file yang disebut realworld_tests.py tapi tidak ada di cache: {', '.join(missing_files)}")
    rows: list[PageRow] = []
    try:
        for n, path in enumerate(files, start=1):
            row = PageRow(path.name)
            started = time.perf_counter()
            url = f"http://127.0.0.1:{port}/{quote(path.name)}"
            try:
                row.status, row.reason, revision_id = limited(
                    args.time_limit, fetch_page, url, doc_key("web", path.name)
                )
            except FileTimeout:
                row.status, row.reason, revision_id = "timeout", f"lebih dari {args.time_limit} s", None
                after_interrupt()
            except Exception as exc:  # noqa: BLE001
                row.status, row.reason, revision_id = "crash", f"crash: {type(exc).__name__}: {exc}", None
                after_interrupt()
            row.seconds = time.perf_counter() - started
            expect = expectations.get(path.name)
            if expect:
                row.with_total, row.without_total = len(expect.with_), len(expect.without)
            if row.status == "indexed":
                revision = Revision.objects.get(pk=revision_id)
                chunks = chunks_of(revision_id)
                row.chunks = len(chunks)
                heads = markdown_headings(revision.content)
                row.headings = len(heads)
                places = [folded(c.text) for c in chunks] + [folded(c.heading_path) for c in chunks]
                for heading in heads:
                    if any(folded(heading) in place for place in places):
                        row.headings_present += 1
                    else:
                        row.missing_headings.append(heading)
                if expect:
                    texts = [flat(c.text) for c in chunks]
                    both = texts + [flat(c.heading_path) for c in chunks]
                    content = flat(revision.content)
                    in_comments = None
                    for s in expect.with_:
                        row.with_in_revision += flat(s) in content
                        if any(flat(s) in t for t in both):
                            row.with_in_chunks += 1
                            continue
                        if flat(s) not in content:
                            if in_comments is None:
                                try:
                                    in_comments = flat(with_comments(path))
                                except Exception:  # noqa: BLE001 — a diagnostic only
                                    in_comments = ""
                            if flat(s) in in_comments:
                                row.with_in_comments += 1
                                s += "  [nur in Kommentaren: include_comments=False]"
                        row.with_missing.append(s)
                    for s in expect.without:
                        if any(flat(s) in t for t in both):
                            row.without_leaked.append(s)
                        else:
                            row.without_kept_out += 1
            rows.append(row)
            print(
                f"  [{n}/{len(files)}] {path.name}: {row.status} {row.chunks} potongan, judul "
                f"{row.headings_present}/{row.headings}, {row.seconds:.1f} s",
                flush=True,
            )
    finally:
        server.shutdown()

    print()
    head = f"{'halaman':46} {'status':8} {'ptg':>4} {'judul':>7} {'with':>7} {'without':>7} {'s':>6}  alasan"
    print(head)
    print("-" * len(head))
    for r in rows:
        w = f"{r.with_in_chunks}/{r.with_total}" if r.with_total else "-"
        wo = f"{r.without_kept_out}/{r.without_total}" if r.without_total and r.status == "indexed" else "-"
        print(
            f"{r.name[:46]:46} {r.status:8} {r.chunks:>4} {r.headings_present:>3}/{r.headings:<3} {w:>7} {wo:>7} "
            f"{r.seconds:>6.1f}  {short(r.reason, 70)}"
        )
    indexed = [r for r in rows if r.status == "indexed"]
    print()
    print_outcomes("halaman", rows)
    h_total, h_present = sum(r.headings for r in indexed), sum(r.headings_present for r in indexed)
    print(f"judul (baris # di Markdown revisi) ada di teks/jejak potongan: {h_present}/{h_total}")
    for r in indexed:
        for heading in r.missing_headings:
            print(f"  hilang: {r.name}: {heading!r}")
    wo_total = sum(r.without_total for r in indexed)
    wo_kept = sum(r.without_kept_out for r in indexed)
    wo_refused = sum(r.without_total for r in rows if r.status != "indexed")
    print(
        f"boilerplate (without) tidak masuk potongan: {wo_kept}/{wo_total}"
        + (f" (+{wo_refused} string di halaman yang tidak diindeks, tidak dihitung)" if wo_refused else "")
    )
    for r in indexed:
        for s in r.without_leaked:
            print(f"  bocor: {r.name}: {s!r}")
    w_total = sum(r.with_total for r in rows)
    w_chunks = sum(r.with_in_chunks for r in rows)
    w_rev = sum(r.with_in_revision for r in rows)
    w_comments = sum(r.with_in_comments for r in rows)
    print(
        f"string with ada di teks/jejak potongan: {w_chunks}/{w_total} (di teks revisi: {w_rev}/{w_total}; "
        f"yang hilang tapi ada di komentar halaman: {w_comments}; halaman tidak diindeks dihitung tidak ada)"
    )
    for r in rows:
        for s in r.with_missing:
            print(f"  tidak ada: {r.name}: {s!r}")
        if r.status != "indexed" and r.with_total:
            print(f"  tidak ada ({r.status}): {r.name}: {r.with_total} string")
    if skipped:
        print("dilewati dari realworld_tests.py: " + "; ".join(f"{k} ×{v}" for k, v in skipped.items()))
    return {"rows": [asdict(r) for r in rows], "skipped": skipped}


def main() -> None:
    parser = argparse.ArgumentParser(description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pdfplumber", type=Path, metavar="DIR", help="folder berisi PDF uji pdfplumber (tests/pdfs/)")
    parser.add_argument(
        "--trafilatura",
        type=Path,
        metavar="DIR",
        help="folder berisi cache/ (halaman HTML) dan realworld_tests.py dari trafilatura",
    )
    parser.add_argument(
        "--time-limit", type=int, default=900, metavar="DETIK", help="batas waktu per file, detik (bawaan %(default)s)"
    )
    parser.add_argument(
        "--jaccard",
        type=float,
        default=0.9,
        metavar="AMBANG",
        help="ambang Jaccard himpunan kata untuk potongan hampir kembar (bawaan %(default)s)",
    )
    parser.add_argument(
        "--match", default="", metavar="TEKS", help="hanya file yang namanya memuat teks ini (untuk mencoba)"
    )
    parser.add_argument(
        "--report",
        type=Path,
        metavar="FILE",
        default=Path(settings.DATA_DIR) / "report.json",
        help="hasil lengkap dalam JSON (bawaan %(default)s)",
    )
    args = parser.parse_args()
    if not args.pdfplumber and not args.trafilatura:
        parser.error("beri --pdfplumber DIR dan/atau --trafilatura DIR")
    for folder in (args.pdfplumber, args.trafilatura):
        if folder and not folder.is_dir():
            parser.error(f"folder tidak ditemukan: {folder}")

    call_command("migrate", verbosity=0)
    Document.objects.all().delete()
    load = os.getloadavg()
    print(
        f"data: {settings.DATA_DIR}; potongan maks {settings.NALARKU_CHUNK_MAX_TOKENS} token; "
        f"OCR maks {settings.NALARKU_OCR_MAX_PAGES} hlm / {settings.NALARKU_OCR_TIMEOUT_SECONDS} s; "
        f"load average {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}"
    )
    try:
        head = subprocess.run(
            ["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True, text=True
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "-C", str(ROOT), "status", "--porcelain", "--", "retrieval"], capture_output=True, text=True
        ).stdout.split("\n")
        dirty = [line[3:] for line in dirty if line.strip()]
        print(f"kode: {head}" + (f", belum di-commit di retrieval/: {', '.join(dirty)}" if dirty else ""))
    except OSError:
        pass
    started = time.perf_counter()
    report: dict = {}
    if args.pdfplumber:
        report["pdfplumber"] = run_pdfplumber(args.pdfplumber, args)
    if args.trafilatura:
        report["trafilatura"] = run_trafilatura(args.trafilatura, args)
    load = os.getloadavg()
    print(
        f"\nwaktu total {time.perf_counter() - started:.0f} s; load average di akhir "
        f"{load[0]:.1f} {load[1]:.1f} {load[2]:.1f}"
    )
    args.report.parent.mkdir(parents=True, exist_ok=True)
    args.report.write_text(json.dumps(report, ensure_ascii=False, indent=1), encoding="utf-8")
    print(f"laporan: {args.report}")


if __name__ == "__main__":
    main()
