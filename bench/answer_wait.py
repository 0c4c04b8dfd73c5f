"""What an editor waits: from "Tanya" to the answer on screen, in Chromium, on the demo.

    uv run --frozen python bench/answer_wait.py [--questions 20] [--web-workers 2] [--poll-ms 700,250]

Runs the demo as ``make demo`` runs it (gunicorn with the production
settings, one Celery worker for every queue, concurrency 1) on a free
127.0.0.1 port over the demo's data directory (``NALARKU_DATA_DIR``, by
default var/: run ``make demo`` or ``manage.py demo_setup`` there first;
migrated here as ``make demo`` migrates), with Redis database 9 as the broker. Logs in as the demo's ``editor`` in
headless Chromium, asks two questions to warm both processes, then the
first ``--questions`` answerable questions of demo/eval.jsonl one after
another, each from the home page as an editor does: type, click, wait until
the answer's claims (or its refusal) are on screen. Each question is
asked once per ``--poll-ms`` value (the progress page's poll interval,
``NALARKU_PROGRESS_POLL_MS``), each on a gunicorn of its own, the same
worker, in turn (who goes first alternates): the old interval beside the
new, in one run, under the same load.

Prints click-to-answer p50/p95 and where each question's time went, from
the server's own records (same clock): **to the worker** (click → the
question saved and picked up: the POST, the queue), **answering** (the
pipeline's stages as the answer records them: search, read, generate, …),
and **to the screen** (the answer saved → on screen: the page learning it
is done, the redirect, rendering). Everything started here is stopped at
the end.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import time
from datetime import datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("NALARKU_DATA_DIR", str(ROOT / "var"))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "nalarku_site.settings")
os.environ.setdefault("NALARKU_LOG_LEVEL", "WARNING")
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")  # Playwright's sync API keeps a loop in this thread
DATA = Path(os.environ["NALARKU_DATA_DIR"]).resolve()
HOST = "127.0.0.1"
BROKER = os.environ.get("NALARKU_BENCH_REDIS_URL", "redis://127.0.0.1:6379/9")
CHROMIUM = os.environ.get("NALARKU_CHROMIUM", "/usr/bin/chromium")
PASSWORD = {u["username"]: u["password"] for u in json.loads((ROOT / "demo" / "users.json").read_text())["users"]}

import django  # noqa: E402

django.setup()

from review.models import Answer  # noqa: E402


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        return sock.getsockname()[1]


def start(cmd: list[str], env: dict, log: Path) -> subprocess.Popen:
    out = open(log, "w")  # noqa: SIM115 - closed in stop()
    process = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    process.log = out  # type: ignore[attr-defined]
    return process


def stop(process: subprocess.Popen) -> None:
    try:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(15)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    process.log.close()  # type: ignore[attr-defined]


def questions(n: int) -> list[str]:
    cases = [json.loads(line) for line in (ROOT / "demo" / "eval.jsonl").read_text().splitlines() if line.strip()]
    return [c["question"] for c in cases if c["expected_status"] != "insufficient_evidence" and not c["as_of"]][:n]


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def ask(page, base: str, text: str) -> tuple[float, float, int]:  # noqa: ANN001
    """Click → answer on screen; returns (click time, screen time, answer id)."""
    page.goto(f"{base}/")
    page.get_by_label("Pertanyaan").fill(text)
    clicked = time.time()
    page.get_by_role("button", name="Cari bukti dan susun jawaban").click()
    page.wait_for_url("**/jawaban/*/", timeout=120_000)
    page.locator("#claims-title").wait_for(state="visible", timeout=120_000)
    shown = time.time()
    return clicked, shown, int(page.url.rstrip("/").rsplit("/", 1)[1])


STAGES = ("search", "context", "score", "read", "generate", "validate", "persist")  # the pipeline's own


def signed_in(browser, base: str):  # noqa: ANN001, ANN201
    """A page of the editor's, signed in to the server at ``base``."""
    page = browser.new_page(viewport={"width": 1280, "height": 900}, locale="id-ID")
    page.set_default_timeout(120_000)
    for _ in range(240):
        try:
            if page.goto(f"{base}/masuk/").ok:
                break
        except Exception:  # noqa: BLE001 - not listening yet
            time.sleep(0.5)
    page.get_by_label("Nama pengguna").fill("editor")
    page.get_by_label("Kata sandi").fill(PASSWORD["editor"])
    page.get_by_role("button", name="Masuk").click()
    page.wait_for_url(f"{base}/")
    if not page.get_by_label("Pertanyaan").count():
        sys.exit(f"the home page has no question field:\n{page.inner_text('body')[:800]}")
    return page


def timed_ask(page, base: str, text: str) -> dict:  # noqa: ANN001
    clicked, shown, pk = ask(page, base, text)
    answer = Answer.objects.get(pk=pk)
    work = sum(answer.timings_ms.get(stage, 0) for stage in STAGES) / 1000
    saved = answer.created_at.timestamp()
    return {
        "total": shown - clicked,
        "to_worker": max(0.0, saved - work - clicked),
        "answering": work,
        "to_screen": shown - saved,
        "stages": {stage: answer.timings_ms.get(stage, 0) / 1000 for stage in STAGES},
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--questions", type=int, default=20)
    parser.add_argument("--web-workers", type=int, default=2)
    parser.add_argument(
        "--poll-ms", default="700,250", help="the progress page's poll interval, one pass each (default 700,250)"
    )
    args = parser.parse_args()
    from django.contrib.auth.models import User

    if not User.objects.filter(username="editor").exists():
        sys.exit(f"no demo users in {DATA}: run `make demo` (or manage.py migrate && manage.py demo_setup) first")
    env = dict(
        os.environ,
        NALARKU_DEBUG="0",
        NALARKU_SECRET_KEY="bench-answer-wait",
        NALARKU_SSL_REDIRECT="0",
        NALARKU_SECURE_COOKIES="0",
        NALARKU_HSTS_SECONDS="0",
        NALARKU_ALLOWED_HOSTS=HOST,
        REDIS_URL=BROKER,
        PYTHONUNBUFFERED="1",
    )
    for command in (["migrate", "--no-input"], ["collectstatic", "--no-input"]):  # as make demo does
        subprocess.run([sys.executable, "manage.py", *command, "-v", "0"], cwd=ROOT, env=env, check=True)
    logs = DATA / "bench-answer-wait"
    logs.mkdir(exist_ok=True)
    celery = [sys.executable, "-m", "celery", "-A", "nalarku_site", "worker", "-l", "WARNING", "--concurrency", "1"]
    worker = start([*celery, "--purge"], env, logs / "worker.log")
    asked = questions(args.questions + 2)
    results: dict[int, list[dict]] = {}
    servers: dict[int, subprocess.Popen] = {}
    bases: dict[int, str] = {}
    pages: dict = {}
    from playwright.sync_api import sync_playwright

    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=["--no-sandbox"])
            polls = [int(v) for v in args.poll_ms.split(",")]
            for poll in polls:
                port = free_port()
                servers[poll] = start(
                    [sys.executable, "-m", "gunicorn", "nalarku_site.wsgi", "--bind", f"{HOST}:{port}",
                     "--workers", str(args.web_workers), "--timeout", "120", "--log-level", "warning"],
                    {**env, "NALARKU_PROGRESS_POLL_MS": str(poll)},
                    logs / f"gunicorn-{poll}.log",
                )  # fmt: skip
                bases[poll] = f"http://{HOST}:{port}"
                pages[poll] = signed_in(browser, bases[poll])
                results[poll] = []
                for text in asked[:2]:  # warm: both gunicorn workers serve, the worker has answered
                    ask(pages[poll], bases[poll], text)
            print(f"{len(asked) - 2} questions, each asked once per poll interval, in turn "
                  f"(gunicorn {args.web_workers} workers each, one Celery worker, concurrency 1)", flush=True)  # fmt: skip
            for n, text in enumerate(asked[2:]):
                turn = polls[n % len(polls) :] + polls[: n % len(polls)]  # who goes first alternates
                for poll in turn:
                    results[poll].append(timed_ask(pages[poll], bases[poll], text))
                said = "  ".join(f"{poll} ms {results[poll][-1]['total']:.2f} s" for poll in polls)
                print(f"  {n + 1:>2}  {said}  {text[:50]}", flush=True)
            browser.close()
    finally:
        for server in servers.values():
            stop(server)
        stop(worker)
    print(f"\nclick to answer on screen, seconds ({datetime.now():%Y-%m-%d %H:%M}; p50 / p95):")
    print(f"  {'':<11}" + "".join(f"{f'poll {poll} ms':>18}" for poll in results))
    for part in ("total", "to_worker", "answering", *(f"  {s}" for s in STAGES), "to_screen"):
        cells = []
        for rows in results.values():
            values = [r["stages"][part.strip()] if part.startswith("  ") else r[part] for r in rows]
            cells.append(f"{statistics.median(values):>8.2f} / {pct(values, 0.95):<6.2f}")
        print(f"  {part:<11}" + "".join(f"{c:>18}" for c in cells))
    if len(results) > 1:
        first, *rest = results
        for poll in rest:
            ratio = statistics.median(r["total"] for r in results[poll]) / statistics.median(
                r["total"] for r in results[first]
            )
            print(f"  total p50, poll {poll} ms / poll {first} ms: {ratio:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
