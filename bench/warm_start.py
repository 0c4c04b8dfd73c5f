"""Warm start: the first search and the first ask after gunicorn starts, next to warm ones,
with the project's warm start (gunicorn.conf.py → nalarku_site/warm.py) and
without it (NALARKU_WARM_START=0), in one run.

    uv run python bench/warm_start.py [--rounds 3] [--warm 10]

Each round starts `gunicorn nalarku_site.wsgi` (one worker, the project's
gunicorn.conf.py) on a free port over the demo's data directory (var/; `make
demo` fills it), waits until it answers the login page (the worker is up, and
with warm start it has loaded the model and the scorer), then times the
first `GET /api/search` and `--warm` more with other questions of the demo
set, and stops the server; the same for `POST /api/ask` (the answer
scorer's scikit-learn import is the slow part there). Prints per endpoint
and mode the first request's latency, the warm median and their ratio
(goal: at most 2), median over the rounds.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "nalarku_site.settings")
os.environ.setdefault("NALARKU_LOG_LEVEL", "WARNING")

import django  # noqa: E402

django.setup()

from django.contrib.auth import get_user_model  # noqa: E402
from django.db import connection  # noqa: E402

from review.models import ApiToken  # noqa: E402
from review.tokens import token_issue  # noqa: E402

HOST = "127.0.0.1"
EVAL = ROOT / "demo" / "eval.jsonl"


def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


def get(url: str, token: str | None = None, timeout: float = 120) -> int:
    request = urllib.request.Request(url, headers={"Authorization": f"Bearer {token}"} if token else {})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:  # noqa: S310 — loopback only
            response.read()
            return response.status
    except urllib.error.HTTPError as exc:
        return exc.code


def post(url: str, token: str, body: dict, timeout: float = 120) -> int:
    request = urllib.request.Request(
        url,
        data=json.dumps(body).encode(),
        method="POST",
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=timeout) as response:  # noqa: S310 — loopback only
        response.read()
        return response.status


def timed(endpoint: str, base: str, token: str, question: str) -> float:
    started = time.perf_counter()
    if endpoint == "search":
        status = get(f"{base}/api/search?{urllib.parse.urlencode({'q': question, 'k': 10})}", token)
    else:
        status = post(f"{base}/api/ask", token, {"question": question})
    if status != 200:
        raise RuntimeError(f"/api/{endpoint} answered {status}")
    return (time.perf_counter() - started) * 1000


def one_round(endpoint: str, warm: bool, token: str, questions: list[str], warm_n: int) -> tuple[float, float, float]:
    port = free_port()
    env = dict(
        os.environ,
        NALARKU_WARM_START="1" if warm else "0",
        NALARKU_DEBUG="0",
        NALARKU_SECRET_KEY="bench-warm-start-" + "x" * 40,
        NALARKU_SSL_REDIRECT="0",
        NALARKU_SECURE_COOKIES="0",
        NALARKU_HSTS_SECONDS="0",
        PYTHONUNBUFFERED="1",
    )
    log = open(ROOT / "var" / "bench-warm-start.log", "ab")  # noqa: SIM115 — closed below
    started = time.perf_counter()
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "gunicorn",
            "nalarku_site.wsgi",
            "--bind",
            f"{HOST}:{port}",
            "--workers",
            "1",
            "--timeout",
            "120",
            "--log-level",
            "warning",
        ],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=log,
    )
    base = f"http://{HOST}:{port}"
    try:
        while True:
            try:
                if get(f"{base}/masuk/", timeout=5) == 200:
                    break
            except OSError:
                pass
            if server.poll() is not None or time.perf_counter() - started > 180:
                raise RuntimeError("gunicorn did not come up; see var/bench-warm-start.log")
            time.sleep(0.1)
        ready = time.perf_counter() - started
        first = timed(endpoint, base, token, questions[0])
        warm_runs = [timed(endpoint, base, token, q) for q in questions[1 : 1 + warm_n]]
        return ready, first, statistics.median(warm_runs)
    finally:
        server.terminate()
        server.wait(timeout=30)
        log.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=3, help="server starts per mode (default %(default)s)")
    parser.add_argument("--warm", type=int, default=10, help="warm searches per start (default %(default)s)")
    args = parser.parse_args()
    questions = [json.loads(line)["question"] for line in EVAL.read_text(encoding="utf-8").splitlines() if line.strip()]
    user = get_user_model().objects.filter(username="pembaca").first()
    if user is None:
        sys.exit("the demo users are missing: run make demo (or manage.py demo_setup) first")
    ApiToken.objects.filter(user=user, name="bench-warm-start").delete()
    _, token = token_issue(user=user, name="bench-warm-start")
    connection.close()
    rows = {}
    for endpoint in ("search", "ask"):
        for warm in (False, True):
            results = []
            for n in range(args.rounds):
                offset = (n * (args.warm + 1)) % max(len(questions) - args.warm - 1, 1)
                results.append(one_round(endpoint, warm, token, questions[offset:], args.warm))
            rows[(endpoint, "warm start" if warm else "cold (NALARKU_WARM_START=0)")] = results
    print(f"\n{args.rounds} starts per row, 1 gunicorn worker, demo archive (search k=10; ask: answerer)")
    print(f"{'endpoint':<11} {'mode':<30} {'ready s':>8} {'first ms':>9} {'warm p50 ms':>12} {'first / warm':>13}")
    for (endpoint, name), results in rows.items():
        ready, first, warm_p50 = (statistics.median(r[i] for r in results) for i in range(3))
        ratios = [r[1] / r[2] for r in results]
        print(
            f"/api/{endpoint:<6} {name:<30} {ready:>8.2f} {first:>9.1f} {warm_p50:>12.1f} "
            f"{statistics.median(ratios):>13.2f}"
        )


if __name__ == "__main__":
    main()
