"""Locust readers for bench/load.py: GET /api/search and POST /api/ask.

Not meant to be started by hand: bench/load.py writes the run's plan (one
bearer token per reader, the questions, think time, /api/ask share) to a JSON
file and passes its path in NALARKU_LOAD_PLAN. Each simulated reader takes
its own account and token, picks questions from demo/eval.jsonl with its own
seeded random stream, and waits ``think`` seconds (uniform between the two
bounds; 0 = closed loop) between requests. Every completed request is logged
with its exact time in milliseconds (Locust's own percentiles are rounded,
to 10 ms above 100 ms: too coarse for a 200 ms goal) to the plan's
``log`` file when the run ends, together with the server's own timings for
/api/search (``timings_ms``: embed, sql, expand).
"""

from __future__ import annotations

import itertools
import json
import os
import random
import time
from urllib.parse import urlencode

from locust import events, task
from locust.contrib.fasthttp import FastHttpUser

PLAN = json.loads(open(os.environ["NALARKU_LOAD_PLAN"], encoding="utf-8").read())
THINK_MIN, THINK_MAX = PLAN["think"]
ASK_SHARE = float(PLAN["ask_share"])
QUESTIONS = PLAN["questions"]
_next_reader = itertools.count()
_log: list[list] = []  # [start (epoch s), endpoint, ms, ok, status, server timings or None]


@events.request.add_listener
def _record(
    request_type, name, response_time, response_length, response, context, exception, start_time=None, **kwargs
):  # noqa: ANN001, ANN003 - Locust's event signature
    status = getattr(response, "status_code", 0) or 0
    ok = exception is None and 200 <= status < 300
    _log.append(
        [
            start_time or time.time() - response_time / 1000,
            name,
            round(response_time, 3),
            ok,
            status,
            (context or {}).get("server"),
        ]
    )


@events.quitting.add_listener
def _write(environment, **kwargs):  # noqa: ANN001, ANN003
    with open(PLAN["log"], "w", encoding="utf-8") as out:
        json.dump(_log, out)


class Reader(FastHttpUser):
    # FastHttpUser (geventhttpclient) costs the shared CPU far less than requests.
    network_timeout = 60.0
    connection_timeout = 10.0

    def wait_time(self) -> float:
        return self.rng.uniform(THINK_MIN, THINK_MAX) if THINK_MAX > 0 else 0.0

    def on_start(self) -> None:
        n = next(_next_reader)
        self.account = PLAN["readers"][n % len(PLAN["readers"])]
        self.rng = random.Random(PLAN["seed"] * 1000 + n)
        # As the TLS proxy in front of gunicorn passes requests on (bench/load.py sets NALARKU_BEHIND_PROXY).
        self.auth = {"Authorization": f"Bearer {self.account['token']}", "X-Forwarded-Proto": "https"}

    @task
    def read(self) -> None:
        question = self.rng.choice(QUESTIONS)
        if self.rng.random() < ASK_SHARE:
            body = {"question": question["q"], "as_of": question.get("as_of")}
            with self.client.post(
                "/api/ask", json=body, headers=self.auth, name="/api/ask", catch_response=True, allow_redirects=False
            ) as response:
                if response.status_code != 200:
                    response.failure(f"HTTP {response.status_code}: {(response.text or '')[:200]}")
        else:
            with self.client.get(
                "/api/search?" + urlencode({"q": question["q"]}),
                headers=self.auth,
                name="/api/search",
                catch_response=True,
                allow_redirects=False,
            ) as response:
                if response.status_code != 200:
                    response.failure(f"HTTP {response.status_code}: {(response.text or '')[:200]}")
                else:
                    try:
                        payload = response.json()
                        response.request_meta["context"]["server"] = payload.get("timings_ms")
                        if payload.get("degraded"):
                            response.failure(f"degraded: {payload['degraded']}")
                    except ValueError:
                        response.failure("not JSON")
