"""Real parts for fault tests, each stopped in a finalizer even when a test
fails: model servers on loopback (Ollama / OpenAI-compatible embeddings and
chat) that can block, fail or hang on demand; private ``redis-server``
processes that can be stopped and started again on the same port; prefork
Celery worker processes against the test database."""

from __future__ import annotations

import hashlib
import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import quote

import pytest
import redis

from nalarku_site.celery import app as celery_app

ROOT = Path(__file__).resolve().parents[2]
LOOPBACK = "127.0.0.1"


def wait_for(predicate: Callable[[], object], timeout: float, interval: float = 0.1) -> bool:
    """Poll ``predicate`` until it is true or ``timeout`` seconds pass."""
    deadline = time.monotonic() + timeout
    while True:
        if predicate():
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(interval)


def free_port() -> int:
    with socket.socket() as s:
        s.bind((LOOPBACK, 0))
        return s.getsockname()[1]


def _exited(process: subprocess.Popen) -> bool:
    """Whether ``process`` exited, without reaping it: while it is an unreaped
    zombie its pid — the id of the process group we gave it — cannot be
    reused, so signalling that group never reaches anyone else's processes
    (pids wrap quickly here: pid_max is 32768 and the machine is shared)."""
    return os.waitid(os.P_PID, process.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None


def stop_process(process: subprocess.Popen, *, grace: float = 10.0, sig: int = signal.SIGTERM) -> None:
    """``sig`` to the process group we started it in (start_new_session), then
    SIGKILL to whatever of the group is left, then reap it."""
    if process.returncode is not None:  # already reaped: its pid may be someone else's now
        return
    os.killpg(process.pid, sig)
    if sig != signal.SIGKILL:
        wait_for(lambda: _exited(process), timeout=grace)
    try:  # the leader is unreaped, so the group id is still ours
        os.killpg(process.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    process.wait(timeout=10)


# --- model server ---------------------------------------------------------------------


def hashed_vector(text: str, dims: int) -> list[float]:
    """A deterministic embedding: signed hashing of the words, normalised, so
    texts sharing words are close."""
    vector = [0.0] * dims
    for word in re.findall(r"\w+", text.lower()):
        h = int.from_bytes(hashlib.blake2b(word.encode(), digest_size=8).digest(), "big")
        vector[h % dims] += 1.0 if (h >> 32) & 1 else -1.0
    if not any(vector):
        vector[0] = 1.0
    norm = sum(v * v for v in vector) ** 0.5
    return [v / norm for v in vector]


class ModelServer:
    """Ollama ``/api/embed`` and OpenAI ``/v1/embeddings`` on loopback, plus
    failure modes for any path (chat included): ``mode`` "ok", "error"
    (HTTP 500), "bad_request" (HTTP 400), "hang" (accept, never answer).
    ``hold`` makes matching embedding requests wait until ``release()``.
    ``stop()`` closes the port (connection refused); ``start()`` reopens it."""

    def __init__(self, dims: int = 32, port: int | None = None) -> None:
        self.dims = dims
        self.port = port or free_port()
        self.mode = "ok"
        self.hold: Callable[[list[str]], bool] | None = None
        self.requests: list[tuple[str, list[str]]] = []
        self._released = threading.Event()
        self._closing = threading.Event()
        self._seen = threading.Condition()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        return f"http://{LOOPBACK}:{self.port}"

    def start(self) -> ModelServer:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
                texts = body.get("input") or []
                texts = [texts] if isinstance(texts, str) else list(texts)
                with server._seen:
                    server.requests.append((self.path, texts))
                    server._seen.notify_all()
                if server.mode == "hang":
                    server._closing.wait(60)  # bounded: the client times out long before
                    return
                if server.mode in ("error", "bad_request"):
                    self._reply(500 if server.mode == "error" else 400, {"error": server.mode})
                    return
                if server.hold is not None and server.hold(texts):
                    server._released.wait(90)
                vectors = [hashed_vector(t, server.dims) for t in texts]
                if self.path == "/api/embed":
                    self._reply(200, {"model": body.get("model"), "embeddings": vectors})
                elif self.path == "/v1/embeddings":
                    self._reply(200, {"data": [{"index": i, "embedding": v} for i, v in enumerate(vectors)]})
                else:
                    self._reply(404, {"error": "not found"})

            def _reply(self, status: int, payload: dict) -> None:
                data = json.dumps(payload).encode()
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except OSError:  # the client is gone (a killed worker, a timeout)
                    pass

            def log_message(self, *args: object) -> None:
                pass

        self._closing.clear()
        self._httpd = ThreadingHTTPServer((LOOPBACK, self.port), Handler)
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._closing.set()
        self._released.set()
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None
        self._released.clear()

    def release(self) -> None:
        self.hold = None
        self._released.set()

    def wait_for_requests(self, predicate: Callable[[list[str]], bool], count: int = 1, timeout: float = 60.0) -> bool:
        """Wait until ``count`` requests whose texts match ``predicate`` arrived."""
        deadline = time.monotonic() + timeout
        with self._seen:
            while sum(1 for _, texts in self.requests if predicate(texts)) < count:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._seen.wait(left)
        return True


@pytest.fixture
def model_server() -> Iterator[ModelServer]:
    server = ModelServer().start()
    yield server
    server.stop()


def embedding_config(server: ModelServer) -> dict:
    """settings.NALARKU_EMBEDDING for ``server`` (Ollama API)."""
    return {
        "provider": "ollama",
        "model": "fault-embed",
        "url": server.url,
        "api_key": "",
        "dimensions": server.dims,
        "timeout": 30.0,
        "batch_size": 32,
    }


def embedding_env(server: ModelServer) -> dict[str, str]:
    """The same configuration for a subprocess."""
    return {
        "NALARKU_EMBEDDING_PROVIDER": "ollama",
        "NALARKU_EMBEDDING_MODEL": "fault-embed",
        "NALARKU_EMBEDDING_URL": server.url,
        "NALARKU_EMBEDDING_DIMENSIONS": str(server.dims),
    }


# --- redis ----------------------------------------------------------------------------


class RedisServer:
    """A private redis-server on loopback, nothing persisted."""

    def __init__(self, workdir: Path) -> None:
        self.port = free_port()
        self.workdir = workdir
        self.process: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"redis://{LOOPBACK}:{self.port}/0"

    def start(self) -> RedisServer:
        self.workdir.mkdir(parents=True, exist_ok=True)
        log = open(self.workdir / "redis.log", "ab")  # noqa: SIM115 - closed with the process
        self.process = subprocess.Popen(
            [
                "redis-server",
                "--port",
                str(self.port),
                "--bind",
                LOOPBACK,
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                str(self.workdir),
            ],
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        log.close()
        client = redis.Redis(host=LOOPBACK, port=self.port, socket_connect_timeout=0.5)
        if not wait_for(lambda: self._pings(client), timeout=10):
            raise RuntimeError(f"redis-server on port {self.port} did not start")
        return self

    @staticmethod
    def _pings(client: redis.Redis) -> bool:
        try:
            return bool(client.ping())
        except redis.RedisError:
            return False

    def stop(self) -> None:
        if self.process is not None:
            stop_process(self.process, grace=5)
            self.process = None


def use_broker(url: str) -> None:
    """Point this process's Celery app at ``url`` (drop pooled connections)."""
    celery_app.conf.broker_url = url
    celery_app._pool = None
    celery_app.amqp._producer_pool = None


@pytest.fixture
def private_redis(tmp_path: Path) -> Iterator[RedisServer]:
    """A private Redis that this process's Celery app publishes to."""
    previous = celery_app.conf.broker_url
    server = RedisServer(tmp_path / "redis").start()
    use_broker(server.url)
    yield server
    use_broker(previous)
    server.stop()


# --- celery worker --------------------------------------------------------------------


def subprocess_database_url() -> str:
    """The test database, for a subprocess (embedded server: a unix socket)."""
    from django.db import connection

    db = connection.settings_dict
    host = db["HOST"] or db.get("OPTIONS", {}).get("host", "")
    return f"postgresql://{db['USER']}@{quote(host, safe='')}/{db['NAME']}"


class Worker:
    """``celery -A nalarku_site worker -P prefork -c 1`` in its own session."""

    def __init__(self, process: subprocess.Popen, log: Path) -> None:
        self.process, self.log = process, log

    @property
    def pid(self) -> int:
        return self.process.pid

    def children(self) -> list[int]:
        try:
            return [int(p) for p in Path(f"/proc/{self.pid}/task/{self.pid}/children").read_text().split()]
        except FileNotFoundError:
            return []

    def log_text(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""

    def wait_log(self, pattern: str, *, count: int = 1, timeout: float = 60.0) -> list[re.Match]:
        found: list[re.Match] = []

        def seen() -> bool:
            found[:] = list(re.finditer(pattern, self.log_text()))
            return len(found) >= count

        assert wait_for(seen, timeout, interval=0.2), f"no {pattern!r} x{count} in worker log:\n{self.log_text()}"
        return found


def launch_worker(log: Path, env: dict[str, str] | None = None) -> Worker:
    """Start a worker against the test database and this process's broker
    (the caller stops it with ``stop_worker``, and waits for it to be ready)."""
    full_env = {
        **os.environ,
        "DATABASE_URL": subprocess_database_url(),
        "REDIS_URL": celery_app.conf.broker_url,
        "NALARKU_LOG_LEVEL": "INFO",
        **(env or {}),
    }
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "celery",
            "-A",
            "nalarku_site",
            "worker",
            "-P",
            "prefork",
            "-c",
            "1",
            "--without-gossip",
            "--without-mingle",
            "--without-heartbeat",
            "-l",
            "INFO",
            "--logfile",
            str(log),
        ],
        cwd=ROOT,
        env=full_env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    return Worker(process, log)


def stop_worker(worker: Worker) -> None:
    # SIGKILL for the whole group at once: its broker and data are thrown
    # away with the test, and even a cold shutdown took ~2 s per worker.
    stop_process(worker.process, grace=0, sig=signal.SIGKILL)


@pytest.fixture
def start_worker(tmp_path: Path) -> Iterator[Callable[..., Worker]]:
    """Start real prefork workers; every one is stopped at teardown."""
    started: list[Worker] = []

    def start(env: dict[str, str] | None = None, *, name: str = "worker") -> Worker:
        worker = launch_worker(tmp_path / f"{name}.log", env)
        started.append(worker)
        worker.wait_log(r"ready\.", timeout=60)
        if (env or {}).get("NALARKU_WARM_START", os.environ.get("NALARKU_WARM_START", "1")) != "0":
            # The pool's child loads the models before its first task
            # (nalarku_site/warm.py): a test's clock starts once it has.
            worker.wait_log(r"warm start in pid", timeout=180)
        return worker

    yield start
    for worker in started:
        stop_worker(worker)


# --- the archive's invariants ------------------------------------------------------------


def assert_indexed_once(revision_id: int) -> int:
    """One chunk per position, one vector per chunk in the active space,
    postings only once per (term, chunk), and corpus statistics that agree
    with the tables — nothing half-written or doubled by a re-run. Returns
    the revision's chunk count."""
    from django.db.models import Count

    from retrieval.models import Chunk, ChunkEmbedding, EmbeddingSpace, LexicalStats, Posting, TermStat

    chunks = Chunk.objects.filter(revision_id=revision_id)
    n = chunks.count()
    assert n > 0
    assert sorted(chunks.values_list("position", flat=True)) == list(range(1, n + 1))
    space = EmbeddingSpace.objects.get(is_active=True)
    assert ChunkEmbedding.objects.filter(chunk__revision_id=revision_id).count() == n
    assert ChunkEmbedding.objects.filter(chunk__revision_id=revision_id, space=space).count() == n
    postings = Posting.objects.filter(chunk__revision_id=revision_id)
    assert set(postings.values_list("chunk_id", flat=True)) == set(chunks.values_list("pk", flat=True))
    assert not postings.values("chunk_id", "term").annotate(n=Count("tf")).filter(n__gt=1).exists()
    stats = LexicalStats.objects.get(collection="editorial")
    assert stats.chunk_count == Chunk.objects.filter(document__collection="editorial").count()
    actual_df = dict(
        Posting.objects.filter(chunk__document__collection="editorial")
        .values("term")
        .annotate(n=Count("tf"))
        .values_list("term", "n")
    )
    stored_df = dict(TermStat.objects.filter(collection="editorial", df__gt=0).values_list("term", "df"))
    assert stored_df == actual_df
    return n
