"""Read replicas (PostgreSQL streaming replication): which reads may go to a
standby, and which standby is fit to serve them.

A read goes to a replica only when all of these hold, otherwise to the
primary (``default``):

- the request is a GET or HEAD (``ReplicaReadsMiddleware`` allows it for the
  request, or code asks with ``replica_reads()``); a request that writes,
  and every task (answering writes the answer it reads for), reads from the
  primary;
- no transaction is open on the primary in this thread (a read inside a
  write's transaction must see that write);
- the reader has not written within ``NALARKU_REPLICA_STICKY_SECONDS``: a
  write response sets the ``nalarku_primary`` cookie for that long, so an
  editor never sees the desk forget a decision just made (read-your-writes);
- replica reads are on (``NALARKU_REPLICA_READS``, 1: an operator's switch);
- the replica answered its last health check, within ``NALARKU_REPLICA_CHECK_SECONDS``,
  with a replay lag at most ``NALARKU_REPLICA_MAX_LAG_SECONDS``. A replica
  that fails a check, or a query, is skipped for ``NALARKU_REPLICA_RETRY_SECONDS``;
  a GET whose replica fails mid-request is answered again from the primary.

Raw SQL that should follow these rules takes its database from
``read_alias()`` (search does, once for the whole search).
"""

from __future__ import annotations

import logging
import random
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

from django.conf import settings
from django.db import DatabaseError, connections
from django.http import HttpRequest, HttpResponse

logger = logging.getLogger(__name__)

PRIMARY = "default"
_allowed: ContextVar[bool] = ContextVar("replica_reads_allowed", default=False)

# Replay lag: 0 when everything received is replayed (an idle primary sends
# nothing, and the last replayed transaction's age would read as lag); else
# the age of the last replayed transaction. NULL (not streaming, nothing
# replayed yet) counts as unknown, so not fit to serve.
LAG_SQL = """
SELECT pg_is_in_recovery(),
       CASE WHEN pg_last_wal_receive_lsn() = pg_last_wal_replay_lsn() THEN 0
            ELSE EXTRACT(EPOCH FROM now() - pg_last_xact_replay_timestamp()) END
"""


def replica_aliases() -> list[str]:
    """The replicas reads may go to (none while ``NALARKU_REPLICA_READS=0``)."""
    if not settings.NALARKU_REPLICA["reads"]:
        return []
    return [alias for alias in settings.DATABASES if alias.startswith("replica")]


@dataclass
class Health:
    checked: float = 0.0
    ok: bool = False
    lag: float | None = None
    down_until: float = 0.0


_health: dict[str, Health] = {}
_lock = threading.Lock()


def _check(alias: str) -> Health:
    health = _health.setdefault(alias, Health())
    now = time.monotonic()
    if now < health.down_until or now - health.checked < settings.NALARKU_REPLICA["check_seconds"]:
        return health
    try:
        with connections[alias].cursor() as cursor:
            cursor.execute(LAG_SQL)
            in_recovery, lag = cursor.fetchone()
        health.lag = None if lag is None else float(lag)
        health.ok = (
            bool(in_recovery) and health.lag is not None and health.lag <= settings.NALARKU_REPLICA["max_lag_seconds"]
        )
        if not in_recovery:
            logger.warning("replica %s is not in recovery (promoted?); reads stay on the primary", alias)
    except Exception as exc:  # noqa: BLE001 — any failure means: do not read there for a while
        replica_failed(alias, exc)
    health.checked = now
    return health


def replica_failed(alias: str, exc: BaseException) -> None:
    """A replica that failed a check or a query: skipped for the retry period."""
    health = _health.setdefault(alias, Health())
    health.ok, health.lag = False, None
    health.down_until = time.monotonic() + settings.NALARKU_REPLICA["retry_seconds"]
    logger.warning("replica %s unavailable, reads go to the primary: %s", alias, exc)
    try:
        connections[alias].close()
    except Exception:  # noqa: BLE001 — a broken connection may fail to close; it is dropped either way
        pass


def replica_lags() -> dict[str, float | None]:
    """Each replica's replay lag in seconds (None: not reachable), checked now
    if the last check is old; for /metrics and the admin."""
    with _lock:
        return {alias: _check(alias).lag for alias in replica_aliases()}


def healthy_replica() -> str | None:
    aliases = replica_aliases()
    if not aliases:
        return None
    with _lock:
        fit = [alias for alias in aliases if _check(alias).ok]
    return random.choice(fit) if fit else None


def read_alias() -> str:
    """Where a read would go now (the router's answer)."""
    if not _allowed.get() or connections[PRIMARY].in_atomic_block:
        return PRIMARY
    return healthy_replica() or PRIMARY


@contextmanager
def replica_reads(allowed: bool = True) -> Iterator[None]:
    """Reads inside the block may (or, with ``allowed=False``, may not) go to a replica."""
    token = _allowed.set(allowed and bool(replica_aliases()))
    try:
        yield
    finally:
        _allowed.reset(token)


def replica_reads_active() -> bool:
    return _allowed.get()


class ReplicaRouter:
    """``DATABASE_ROUTERS``: writes and migrations on the primary; reads where
    ``read_alias`` says. Replicas hold the same tables (they are copies), so
    relations between objects from either are fine."""

    def db_for_read(self, model: type, **hints: object) -> str:
        return read_alias()

    def db_for_write(self, model: type, **hints: object) -> str:
        return PRIMARY

    def allow_relation(self, obj1: object, obj2: object, **hints: object) -> bool:
        return True

    def allow_migrate(self, db: str, app_label: str, **hints: object) -> bool:
        return db == PRIMARY


STICKY_COOKIE = "nalarku_primary"
READS = ("GET", "HEAD")


class ReplicaReadsMiddleware:
    """Lets a request's reads go to a replica when it is a read by someone who
    has not just written; marks the writer (a cookie, so it holds across web
    processes and hosts) to read from the primary for a while; answers a read
    again from the primary when its replica failed during the request. Put it
    first: the session and the user are read inside it."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        allowed = request.method in READS and STICKY_COOKIE not in request.COOKIES and bool(replica_aliases())
        if allowed:
            for alias in replica_aliases():
                connections[alias].errors_occurred = False
        with replica_reads(allowed):
            response = self.get_response(request)
        if allowed and _replicas_failed():
            # Anything that read from the failed replica (the session, the
            # user, the page) is read again, from the primary.
            for attribute in ("_cached_user", "_acached_user"):
                request.__dict__.pop(attribute, None)
            with replica_reads(False):
                response = self.get_response(request)
        if request.method not in READS and response.status_code < 400:
            response.set_cookie(
                STICKY_COOKIE,
                "1",
                max_age=settings.NALARKU_REPLICA["sticky_seconds"],
                httponly=True,
                samesite="Lax",
                secure=settings.SESSION_COOKIE_SECURE,
            )
        return response

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        """A view that failed on a replica runs once more with the primary
        only, before Django turns the failure into a 500."""
        if not isinstance(exception, DatabaseError) or not replica_reads_active() or not _replicas_failed():
            return None
        match = request.resolver_match
        with replica_reads(False):
            return match.func(request, *match.args, **match.kwargs)


def _replicas_failed() -> bool:
    """Whether a replica's connection had an error in this request (Django
    flags the connection, even when the error was caught somewhere); those
    replicas are marked down."""
    failed = [alias for alias in replica_aliases() if connections[alias].errors_occurred]
    for alias in failed:
        connections[alias].errors_occurred = False
        replica_failed(alias, DatabaseError("Kesalahan basis data pada replika selama permintaan"))
    return bool(failed)
