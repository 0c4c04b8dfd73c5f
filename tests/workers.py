"""A real Celery worker process on the test's own database, as
scripts/worker.sh starts one (prefork, one child)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from urllib.parse import quote

from django.db import connection


def database_url() -> str:
    """This test's database for a worker subprocess (the port and password
    reach it as PGPORT / PGPASSWORD, nalarku_site/testenv.py)."""
    db = connection.settings_dict
    host = db["HOST"] or db.get("OPTIONS", {}).get("host", "")
    return f"postgresql://{db['USER']}@{quote(host, safe='')}/{db['NAME']}"


def worker_process(log: Path, *options: str, **env: str) -> subprocess.Popen:
    """``celery worker`` with ``options`` (``-Q ingest``, ``--hostname a@%h`` …)
    and ``env`` added to this process's environment, logging to ``log``."""
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "celery",
            "-A",
            "nalarku_site",
            "worker",
            *options,
            "-P",
            "prefork",
            "-c",
            "1",
            "--without-gossip",
            "--without-mingle",
            "--logfile",
            str(log),
        ],
        env={**os.environ, "DATABASE_URL": database_url(), **env},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
