"""Latency of the answer stage next to retrieval's, on the demo archive.

    uv run python bench/answer_latency.py [--set demo] [--rounds 2] [--artefacts answerer-v6,...]
    uv run python bench/answer_latency.py --meaning-weights 0,20
    uv run python bench/answer_latency.py --generators answerer@answerer-v6,reader,reader+int8

Asks every case of the evaluation set as its user with the default
(answerer, scored) generator; the first round fills the embedding cache
of the answer units, later rounds are warm and are the ones reported. Prints
p50/p95 per stage: query embedding and SQL (retrieval), then context, unit
scoring, claims and validation (the answer stage), and the whole ask. With
``--artefacts``, each case is asked with every artefact in turn (the order
turning case by case, so neither always runs second on warm pages), and the
stages are printed side by side with the ratio of each to the first;
``--meaning-weights`` does the same for the answerer generator's claim
order (``NALARKU_CLAIMS["meaning_weight"]``) with the configured artefact,
and ``--generators`` for answer generators as ``eval_answers`` names them
(``reader+int8``: the reader with int8 matrix products).
Uses the demo's data directory (var/; ``make demo`` or ``make report`` fills it).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from contextlib import contextmanager, nullcontext
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "nalarku_site.settings")
os.environ.setdefault("NALARKU_LOG_LEVEL", "WARNING")

import django  # noqa: E402

django.setup()

from django.conf import settings  # noqa: E402
from django.contrib.auth import get_user_model  # noqa: E402
from django.db import transaction  # noqa: E402
from django.test import override_settings  # noqa: E402

from answering.answerer import artefact_used  # noqa: E402
from review.asking import question_ask  # noqa: E402
from review.models import EvalSet  # noqa: E402

RETRIEVAL = ("embed", "sql")
ANSWER = ("context", "score", "read", "generate", "validate")


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


@contextmanager
def variant(name: str):  # noqa: ANN201
    """Ask as ``name`` says: "weight 20" (the claim order's meaning weight),
    a generator ("reader", "reader+int8", "answerer@answerer-v6"), an
    artefact's name, or "" (the configuration)."""
    kind, _, artefact = name.partition("@")
    if kind.startswith("reader"):
        reader = {**settings.NALARKU_READER, "int8": kind.endswith("+int8")}
        generator = "reader" + (f"@{artefact}" if artefact else "")
        with override_settings(NALARKU_GENERATOR=generator, NALARKU_READER=reader):
            yield
    elif kind == "answerer":
        with override_settings(NALARKU_GENERATOR="answerer"), artefact_used(artefact) if artefact else nullcontext():
            yield
    else:
        with _setting(name):
            yield


def _setting(name: str):  # noqa: ANN202 - a context manager
    if name.startswith("weight "):
        weight = float(name.removeprefix("weight "))
        return override_settings(NALARKU_CLAIMS={**settings.NALARKU_CLAIMS, "meaning_weight": weight})
    return artefact_used(name) if name else nullcontext()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--set", default="demo", help="evaluation set (default demo)")
    parser.add_argument("--rounds", type=int, default=2, help="rounds; the first warms the cache (default 2)")
    parser.add_argument("--limit", type=int, default=0, help="only the first N cases (default: all)")
    parser.add_argument(
        "--artefacts", default="", help="scorer artefacts to compare, comma-separated (default: the configured one)"
    )
    parser.add_argument(
        "--meaning-weights", default="", help="claim-order meaning weights to compare, comma-separated (e.g. 0,20)"
    )
    parser.add_argument(
        "--generators", default="", help="generators to compare, comma-separated (e.g. answerer@answerer-v6,reader)"
    )
    args = parser.parse_args()
    eval_set = EvalSet.objects.filter(name=args.set).first()
    if eval_set is None:
        sys.exit(f"set {args.set!r} not found: run `manage.py eval_import demo/eval.jsonl --name demo` first")
    users = {u.username: u for u in get_user_model().objects.all()}
    cases = list(eval_set.cases.order_by("case_id"))[: args.limit or None]
    weights = [w.strip() for w in args.meaning_weights.split(",") if w.strip()]
    generators = [g.strip() for g in args.generators.split(",") if g.strip()]
    names = (
        [f"weight {w}" for w in weights]
        or generators
        or [a.strip() for a in args.artefacts.split(",") if a.strip()]
        or [""]
    )
    stages: dict[str, dict[str, list[float]]] = {name: {} for name in names}
    for round_ in range(args.rounds):
        for n, case in enumerate(cases):
            for name in names[n % len(names) :] + names[: n % len(names)]:
                warming = round_ == 0 and args.rounds > 1
                with variant(name):
                    # The warming round commits (the answer units' embeddings
                    # stay in the cache) and then deletes its questions; the
                    # measured rounds roll everything back.
                    with transaction.atomic():
                        started = time.perf_counter()
                        asked = question_ask(
                            text=case.question,
                            user=users.get(case.username),
                            as_of=case.as_of,
                            search_options={"collection": eval_set.collection},
                        )
                        total = (time.perf_counter() - started) * 1000
                        transaction.set_rollback(not warming)
                if warming:
                    asked.answer.question.delete()
                    continue
                timings, mine = asked.answer.timings_ms, stages[name]
                for stage in (*RETRIEVAL, *ANSWER):
                    mine.setdefault(stage, []).append(timings.get(stage, 0.0))
                mine.setdefault("retrieval (embed + sql)", []).append(sum(timings.get(s, 0.0) for s in RETRIEVAL))
                mine.setdefault("answer stage", []).append(sum(timings.get(s, 0.0) for s in ANSWER))
                mine.setdefault("whole ask", []).append(total)
    print(f"{len(cases)} questions × {max(args.rounds - 1, 1)} warm round(s), set {args.set}")
    header = "".join(f"{(name or 'configured') + ' p50/p95':>30}" for name in names)
    ratio = f"{'ratio p50/p95':>18}" if len(names) > 1 else ""
    print(f"{'stage':<26}{header}{ratio}")
    first = stages[names[0]]
    for stage in first:
        cells = "".join(
            f"{statistics.median(stages[n][stage]):>21.1f} /{percentile(stages[n][stage], 0.95):>7.1f}" for n in names
        )
        if len(names) > 1:
            last = stages[names[-1]][stage]
            base_p50, base_p95 = statistics.median(first[stage]), percentile(first[stage], 0.95)
            cells += (
                f"{statistics.median(last) / base_p50 if base_p50 else float('nan'):>11.2f} /"
                f"{percentile(last, 0.95) / base_p95 if base_p95 else float('nan'):>5.2f}"
            )
        print(f"{stage:<26}{cells}")


if __name__ == "__main__":
    main()
