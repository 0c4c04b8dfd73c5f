"""pytest plugin loaded with ``-p`` before Django settings are imported.

Keeps a test run away from the demo's data: its own embedded PostgreSQL data
directory and its own Redis database, unless the caller chose otherwise.

With ``DATABASE_URL`` set the suite runs against that server instead (CI's
second pass, Debian's PostgreSQL: ``scripts/ensure-postgres.sh``), and the
tests that only make sense on the embedded server are skipped, with the
reason, rather than failing or testing something else.
"""

import os
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

_ROOT = Path(__file__).resolve().parent.parent
EXTERNAL = bool(os.environ.get("DATABASE_URL"))

# An external server needs no data directory of the embedded one; a separate
# one keeps this run's files apart from an embedded run's under var/test.
os.environ.setdefault("NALARKU_DATA_DIR", str(_ROOT / "var" / ("test-external" if EXTERNAL else "test")))
os.environ.setdefault("REDIS_URL", "redis://127.0.0.1:6379/15")
os.environ.setdefault("NALARKU_LOG_LEVEL", "WARNING")

if EXTERNAL:
    # Tests that start workers in subprocesses rebuild the URL from host,
    # user and database name only (enough for the embedded server's socket);
    # libpq takes the port and password it then lacks from these.
    _url = urlsplit(os.environ["DATABASE_URL"])
    if _url.port:
        os.environ.setdefault("PGPORT", str(_url.port))
    if _url.password:
        os.environ.setdefault("PGPASSWORD", unquote(_url.password))

# Test files that exercise the embedded server itself, so have nothing to say
# about the server in DATABASE_URL. A test can also say so itself with
# ``@pytest.mark.embedded_only``.
EMBEDDED_ONLY = {
    "tests/faults/test_postgres_restart.py": (
        "restarts an embedded PostgreSQL of its own (pg_ctl on the wheel's server under a temporary "
        "NALARKU_DATA_DIR); it never touches the server in DATABASE_URL, and the embedded pass runs it"
    ),
}


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "embedded_only(reason): needs the embedded PostgreSQL; skipped when DATABASE_URL names another server",
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        path = Path(str(item.path)).resolve()
        reason = EMBEDDED_ONLY.get(path.relative_to(_ROOT).as_posix()) if path.is_relative_to(_ROOT) else None
        if reason:
            item.add_marker(pytest.mark.embedded_only(reason=reason))
        marker = item.get_closest_marker("embedded_only")
        if EXTERNAL and marker:
            item.add_marker(
                pytest.mark.skip(
                    reason=f"embedded PostgreSQL only: {marker.kwargs.get('reason', 'marked embedded_only')}"
                )
            )
