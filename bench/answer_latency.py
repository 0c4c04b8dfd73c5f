"""Latency of the answer stage next to retrieval's, on the demo archive.

    uv run python bench/answer_latency.py [--set demo] [--rounds 2]

Asks every case of the evaluation set as its user with the default
(extractive, scored) generator; the first round fills the embedding cache
of the answer units, later rounds are warm and are the ones reported. Prints
p50/p95 per stage: query embedding and SQL (retrieval), then context, unit
scoring, claims and validation (the answer stage), and the whole ask.
Uses the demo's data directory (var/; ``make demo`` or ``make report`` fills it).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "nalarku_site.settings")
os.environ.setdefault("NALARKU_LOG_LEVEL", "WARNING")

import django  # noqa: E402

django.setup()

from django.contrib.auth import get_user_model  # noqa: E402
from django.db import transaction  # noqa: E402

from review.answers.pipeline import question_ask  # noqa: E402
from review.models import EvalSet  # noqa: E402

RETRIEVAL = ("embed", "sql")
ANSWER = ("context", "score", "generate", "validate")


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--set", default="demo", help="evaluation set (default demo)")
    parser.add_argument("--rounds", type=int, default=2, help="rounds; the first warms the cache (default 2)")
    args = parser.parse_args()
    eval_set = EvalSet.objects.filter(name=args.set).first()
    if eval_set is None:
        sys.exit(f"set {args.set!r} not found: run `manage.py eval_import demo/eval.jsonl --name demo` first")
    users = {u.username: u for u in get_user_model().objects.all()}
    cases = list(eval_set.cases.order_by("case_id"))
    stages: dict[str, list[float]] = {}
    for round_ in range(args.rounds):
        for case in cases:
            with transaction.atomic():
                started = time.perf_counter()
                asked = question_ask(text=case.question, user=users.get(case.username), as_of=case.as_of)
                total = (time.perf_counter() - started) * 1000
                transaction.set_rollback(True)
            if round_ == 0 and args.rounds > 1:
                continue
            timings = asked.answer.timings_ms
            for stage in (*RETRIEVAL, *ANSWER):
                stages.setdefault(stage, []).append(timings.get(stage, 0.0))
            stages.setdefault("retrieval (embed + sql)", []).append(sum(timings.get(s, 0.0) for s in RETRIEVAL))
            stages.setdefault("answer stage", []).append(sum(timings.get(s, 0.0) for s in ANSWER))
            stages.setdefault("whole ask", []).append(total)
    print(f"{len(cases)} questions × {max(args.rounds - 1, 1)} warm round(s), set {args.set}")
    print(f"{'stage':<26}{'p50 ms':>9}{'p95 ms':>9}")
    for stage, values in stages.items():
        print(f"{stage:<26}{statistics.median(values):>9.1f}{percentile(values, 0.95):>9.1f}")


if __name__ == "__main__":
    main()
