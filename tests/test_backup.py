"""Backup and restore: `manage.py backup` then `manage.py restore` into a
brand-new embedded PostgreSQL gives back every table row for row (documents,
revisions, chunks, embeddings, answers, claims and their reviews, audit
entries, everything else), the same indexes (HNSW included), constraints,
sequences and extensions. A bad file, an existing file or a database that
already holds data is refused with a clear message and changes nothing."""

from __future__ import annotations

import os
import secrets
import subprocess
import sys
import time
from datetime import date
from io import StringIO
from pathlib import Path
from urllib.parse import urlsplit

import psycopg
import pytest
from auditlog.models import LogEntry
from django.core.management import CommandError, call_command
from django.db import connection

import nalarku_site.backup
from nalarku_site.embedded_db import embedded_database_url, stop_embedded_database
from retrieval.models import Chunk, ChunkEmbedding, Document, Revision
from review.asking import question_ask
from review.models import Answer, Claim, ClaimEvidence
from review.reviewing import claim_review

ROOT = Path(__file__).resolve().parent.parent


def manage(*args: str, data_dir: Path | None = None, database_url: str | None = None) -> subprocess.CompletedProcess:
    """manage.py in a process of its own, on another database than this session's."""
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "NALARKU_DATA_DIR")}
    if database_url:
        env["DATABASE_URL"] = database_url
    if data_dir:
        env["NALARKU_DATA_DIR"] = str(data_dir)
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def fingerprint(cursor) -> dict[str, object]:
    """Everything restore must bring back, comparable across servers: each
    table's row count and the md5 of its rows (as text, in a fixed order),
    the indexes with their definitions and validity, the constraints, the
    sequences' positions and the extensions."""
    cursor.execute("SET TIME ZONE 'UTC'")  # timestamptz as text depends on it
    cursor.execute(
        "SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
        "WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') ORDER BY 1"
    )
    tables = {}
    for (name,) in cursor.fetchall():
        quoted = '"' + name.replace('"', '""') + '"'
        cursor.execute(
            f"SELECT count(*), md5(coalesce(string_agg(t::text, ',' ORDER BY t::text), '')) FROM public.{quoted} t"
        )
        tables[name] = cursor.fetchone()
    queries = {
        "indexes": "SELECT i.relname, pg_get_indexdef(i.oid), x.indisvalid FROM pg_index x "
        "JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_namespace n ON n.oid = i.relnamespace "
        "WHERE n.nspname = 'public' ORDER BY 1",
        "constraints": "SELECT conrelid::regclass::text, conname, pg_get_constraintdef(oid) FROM pg_constraint "
        "WHERE connamespace = 'public'::regnamespace ORDER BY 1, 2",
        "sequences": "SELECT sequencename, last_value FROM pg_sequences WHERE schemaname = 'public' ORDER BY 1",
        "extensions": "SELECT extname, extversion FROM pg_extension ORDER BY 1",
    }
    found: dict[str, object] = {"tables": tables}
    for key, query in queries.items():
        cursor.execute(query)
        found[key] = [tuple(row) for row in cursor.fetchall()]
    return found


def contents(output: str) -> list[str]:
    """The counts block a command prints after its summary line."""
    lines = output.splitlines()
    start = next(i for i, line in enumerate(lines) if line.rstrip().endswith(":") and "Isinya" in line)
    return [line for line in lines[start + 1 :] if line.startswith("  ")]


@pytest.fixture
def restore_target(tmp_path: Path):
    """Where the round trip restores, as (manage() arguments, libpq URL):
    a brand-new, empty embedded data directory (its server is started by the
    restore itself and stopped here). When the suite runs on a configured
    server (DATABASE_URL), a new database on that server instead, so both
    sides are the same PostgreSQL and pgvector and compare exactly."""
    configured = os.environ.get("DATABASE_URL")
    if not configured:
        data_dir = tmp_path / "pulih"
        yield {"data_dir": data_dir}, lambda: embedded_database_url(data_dir)
        stop_embedded_database(data_dir)
        return
    name = f"pulih_{secrets.token_hex(4)}"
    with psycopg.connect(configured, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    url = urlsplit(configured)._replace(path=f"/{name}").geturl()
    yield {"database_url": url}, lambda: url
    with psycopg.connect(configured, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE "{name}" WITH (FORCE)')


@pytest.fixture(scope="module")
def spare_server(tmp_path_factory: pytest.TempPathFactory):
    """A second embedded PostgreSQL to create empty databases in."""
    data_dir = tmp_path_factory.mktemp("cadangan") / "data"
    url = embedded_database_url(data_dir)
    yield url
    stop_embedded_database(data_dir)


@pytest.fixture
def empty_database(spare_server: str) -> str:
    """DATABASE_URL of a new, empty database on the spare server."""
    name = f"kosong_{secrets.token_hex(4)}"
    with psycopg.connect(spare_server, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    return spare_server.replace("/postgres?", f"/{name}?")


def backup(path: Path, *args: str) -> str:
    out = StringIO()
    call_command("backup", str(path), *args, stdout=out)
    return out.getvalue()


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)  # pg_dump sees only committed rows
def test_round_trip_into_an_empty_data_directory_loses_nothing(make_revision, make_user, tmp_path, restore_target):
    editor = make_user("editor", "redaksi", reviewer=True)
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
        "# Memo\n\nProyek Garuda Biru: fitur Sinar tersedia untuk pelanggan hukum.",
        key="H1",
        title="Memo hukum",
        groups=("redaksi",),
        source_type="policy",
    )
    answer = question_ask(text="Apakah fitur Sinar sudah tersedia untuk semua pelanggan?", user=editor).answer
    claim = answer.claims.first()
    assert claim is not None, "the answer must have a claim to review"
    claim_review(claim=claim, reviewer=editor, status="supported", note="Cocok dengan S1:r2.")
    for model in (Document, Revision, Chunk, ChunkEmbedding, Answer, Claim, ClaimEvidence, LogEntry):
        assert model.objects.exists(), f"nothing to compare in {model._meta.db_table}"
    assert LogEntry.objects.filter(content_type__model="claim").exists()  # the review itself is audited
    with connection.cursor() as cursor:
        before = fingerprint(cursor)
    assert any("USING hnsw" in index[1] for index in before["indexes"])

    started = time.monotonic()
    archive = tmp_path / "nalarku.dump"
    backed_up = backup(archive)
    assert archive.stat().st_size > 0 and "Cadangan tersimpan" in backed_up
    assert f"  dokumen          {Document.objects.count()}" in backed_up
    assert f"  potongan         {Chunk.objects.count()}" in backed_up

    where, target_url = restore_target
    restored = manage("restore", str(archive), **where)
    assert restored.returncode == 0, restored.stderr
    print(f"backup + restore into an empty data directory: {time.monotonic() - started:.1f} s")
    assert contents(restored.stdout) == contents(backed_up)

    with psycopg.connect(target_url()) as target, target.cursor() as cursor:
        after = fingerprint(cursor)
    assert after["tables"] == before["tables"]
    assert after == before


@pytest.mark.django_db
def test_backup_never_overwrites_and_never_leaves_a_partial_file(tmp_path, monkeypatch):
    archive = tmp_path / "ada.dump"
    archive.write_bytes(b"cadangan lama")
    with pytest.raises(CommandError, match="sudah ada; pakai --force"):
        backup(archive)
    assert archive.read_bytes() == b"cadangan lama"
    backup(archive, "--force")
    assert archive.read_bytes().startswith(b"PGDMP")  # the custom format's magic

    with pytest.raises(CommandError, match="Folder .*tidak ada"):
        backup(tmp_path / "tidak-ada" / "x.dump")
    with pytest.raises(CommandError, match="adalah folder"):
        backup(tmp_path)

    # pg_dump dies half-way: its last stderr line is shown, nothing is left behind.
    fake = tmp_path / "pg_dump"
    fake.write_text(
        '#!/bin/sh\nfor a; do case $a in --file=*) printf PGDMP-separuh > "${a#--file=}";; esac; done\n'
        "echo 'pg_dump: detail awal' >&2\necho 'pg_dump: error: disk penuh' >&2\nexit 1\n"
    )
    fake.chmod(0o755)
    monkeypatch.setattr(nalarku_site.backup, "_tool", lambda name: fake)
    target = tmp_path / "gagal" / "baru.dump"
    target.parent.mkdir()
    with pytest.raises(CommandError, match="pg_dump gagal: pg_dump: error: disk penuh"):
        backup(target)
    assert list(target.parent.iterdir()) == []


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_a_bad_file_or_a_failing_restore_leaves_the_target_untouched(make_revision, tmp_path, empty_database):
    # Enough data that the archive's table of contents is well before its end.
    make_revision("# Besar\n\n" + secrets.token_hex(60_000), key="B1", index=False)
    archive = tmp_path / "utuh.dump"
    backup(archive)

    garbage = tmp_path / "sampah.dump"
    garbage.write_bytes(b"bukan cadangan\n" * 100)
    # Cut in its data: pg_restore --list still reads its table of contents.
    truncated = tmp_path / "terpotong.dump"
    truncated.write_bytes(archive.read_bytes()[:-2000])
    for bad in (garbage, truncated):
        out = StringIO()
        with pytest.raises(CommandError, match="bukan arsip pg_dump yang utuh"):
            call_command("restore", str(bad), "--force", stdout=out)
        assert "Memulihkan" not in out.getvalue()  # refused before the target was touched
    assert list(Document.objects.values_list("key", flat=True)) == ["B1"]

    # A restore that fails part-way (a type in the target has a table's
    # name) is rolled back whole: no table, not even the extension, stays.
    with psycopg.connect(empty_database, autocommit=True) as conn:
        conn.execute("CREATE TYPE review_claim AS (x integer)")
    done = manage("restore", str(archive), database_url=empty_database)
    assert done.returncode == 1, done.stderr
    assert (
        "pg_restore gagal; basis data tujuan tidak diubah (satu transaksi): pg_restore: error: "
        'could not execute query: ERROR:  relation "review_claim" already exists'
    ) in done.stderr, done.stderr
    with psycopg.connect(empty_database) as conn:
        assert conn.execute(nalarku_site.backup._USER_TABLES).fetchone()[0] == 0
        assert conn.execute("SELECT count(*) FROM pg_extension WHERE extname = 'vector'").fetchone()[0] == 0


@pytest.mark.django_db(transaction=True)
def test_restore_refuses_a_database_that_holds_documents_unless_forced(make_revision, tmp_path):
    make_revision("# Dicadangkan\n\nAda di cadangan.", key="K1", index=False)
    archive = tmp_path / "k1.dump"
    backup(archive)
    make_revision("# Sesudahnya\n\nTidak ada di cadangan.", key="K2", index=False)

    with pytest.raises(CommandError, match="sudah berisi 2 dokumen.*--force"):
        call_command("restore", str(archive), stdout=StringIO())
    assert set(Document.objects.values_list("key", flat=True)) == {"K1", "K2"}

    out = StringIO()
    call_command("restore", str(archive), "--force", stdout=out)
    assert "diganti dengan" in out.getvalue() and "  dokumen          1" in out.getvalue()
    assert list(Document.objects.values_list("key", flat=True)) == ["K1"]
