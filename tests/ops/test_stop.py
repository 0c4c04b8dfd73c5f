"""``make stop`` stops what ``make demo`` starts — gunicorn, the detached
Celery worker, the embedded PostgreSQL and the Redis that
scripts/ensure-redis.sh started — each started here the way
scripts/demo.sh starts it, under a data directory of its own; and it
leaves alone what it did not start: the Redis this test session runs on,
and a process whose pid a stale pid file happens to name."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest
import redis

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
VENV_BIN = Path(sys.executable).parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(predicate: Callable[[], object], timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.2)
    return True


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie (exited, not yet reaped by its parent) has stopped.
    state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    return state != "Z"


def answers(url: str) -> bool:
    try:
        return bool(redis.Redis.from_url(url, socket_connect_timeout=1).ping())
    except redis.RedisError:
        return False


def pid_in(path: Path) -> int:
    return int(path.read_text().split()[0])


@pytest.fixture
def demo_env(tmp_path: Path) -> Iterator[dict[str, str]]:
    """The demo's environment under a data directory of its own; whatever a
    failing test leaves running is stopped at teardown."""
    data = tmp_path / "var"
    data.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "NALARKU_REPLICA_URLS")}
    env.update(
        NALARKU_DATA_DIR=str(data),
        REDIS_URL=f"redis://127.0.0.1:{free_port()}/0",
        NALARKU_WARM_START="0",  # nothing here answers questions: no model to load
        PATH=f"{VENV_BIN}{os.pathsep}{env.get('PATH', '')}",
    )
    yield env
    for name in ("gunicorn.pid", "worker.pid", "redis-*.pid"):
        for pidfile in data.glob(name):
            try:
                os.kill(pid_in(pidfile), signal.SIGKILL)
            except (ProcessLookupError, ValueError, OSError):
                pass
    from nalarku_site.embedded_db import stop_embedded_database

    try:
        stop_embedded_database(data)
    except Exception:  # noqa: BLE001, S110 — stopped already: the test's point
        pass


def start_like_the_demo(env: dict[str, str]) -> subprocess.Popen:
    """Redis through ensure-redis.sh, the embedded PostgreSQL on first use,
    the worker detached and gunicorn in the foreground with a pid file, as
    scripts/demo.sh runs them."""
    data = Path(env["NALARKU_DATA_DIR"])
    run = {"cwd": ROOT, "env": env, "check": True, "timeout": 120}
    subprocess.run(["scripts/ensure-redis.sh"], **run, capture_output=True)
    subprocess.run([sys.executable, "-c", "import nalarku_site.settings"], **run)  # starts the embedded server
    subprocess.run(
        ["celery", "-A", "nalarku_site", "worker", "--concurrency", "1", "--detach", "--pidfile",
         str(data / "worker.pid"), "--logfile", str(data / "worker.log")],
        **run,
    )  # fmt: skip
    port = free_port()
    web = subprocess.Popen(
        ["gunicorn", "nalarku_site.wsgi", "--bind", f"127.0.0.1:{port}", "--workers", "1",
         "--pid", str(data / "gunicorn.pid")],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
    )  # fmt: skip

    def serving() -> bool:
        try:
            return httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=2).status_code == 200
        except httpx.HTTPError:
            return False

    assert wait_for(serving, 60), "gunicorn did not serve"
    assert wait_for(lambda: (data / "worker.pid").exists(), 60), (data / "worker.log").read_text()
    return web


def make_stop(env: dict[str, str]) -> str:
    done = subprocess.run(["make", "--no-print-directory", "stop"], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=180)  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def test_make_stop_stops_what_the_demo_started_and_nothing_else(demo_env: dict[str, str]):
    data = Path(demo_env["NALARKU_DATA_DIR"])
    web = start_like_the_demo(demo_env)
    worker, postmaster = pid_in(data / "worker.pid"), pid_in(data / "pg" / "postmaster.pid")
    redis_pid = pid_in(next(data.glob("redis-*.pid")))
    assert all(alive(pid) for pid in (worker, postmaster, redis_pid)) and answers(demo_env["REDIS_URL"])

    said = make_stop(demo_env)

    assert web.wait(timeout=30) is not None
    assert wait_for(lambda: not any(alive(pid) for pid in (worker, postmaster, redis_pid)), 30), said
    assert not answers(demo_env["REDIS_URL"])
    assert said.count("dihentikan") == 4, said  # gunicorn, worker, PostgreSQL, Redis
    # The Redis this session runs on was not started by the demo: untouched.
    assert answers(os.environ["REDIS_URL"])

    again = make_stop(demo_env)
    assert "dihentikan" not in again and "tidak berjalan" in again


def test_a_stale_pid_file_naming_another_process_is_left_alone(demo_env: dict[str, str]):
    """After a reboot a pid file may name a pid some other program now has:
    make stop checks the program before it signals."""
    data = Path(demo_env["NALARKU_DATA_DIR"])
    bystander = subprocess.Popen(["sleep", "60"], start_new_session=True)
    try:
        for name in ("gunicorn.pid", "worker.pid", "redis-6399.pid"):
            (data / name).write_text(f"{bystander.pid}\n")
        said = make_stop(demo_env)
        assert alive(bystander.pid) and "dihentikan" not in said
        assert not any(data.glob("*.pid"))  # the stale files are gone
    finally:
        bystander.kill()
        bystander.wait()
