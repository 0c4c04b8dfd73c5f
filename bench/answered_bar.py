"""Where should ``answer_at`` stand, measured end to end?

``answered`` is a confidence claim: the editor is told the evidence answers.
The artefact's ``answer_at`` is chosen on the scorer's own figures to keep
``answered`` for at most 8 % of unanswerable questions; what an editor
meets is the whole pipeline's answer, where a confident answer can also be
wrong for an answerable question (the claims miss the answer). This replays
higher bars on stored ``eval_answers`` runs: each case keeps the scorer's
calibrated probability (``answerable_p``), and raising the bar only turns
an ``answered`` case whose probability is below it into ``needs_review``
(nothing else in the status depends on the bar), so the replay is exact for
bars at or above the run's own. Lower bars cannot be replayed.

For each set and bar it prints the share answered, answered with the
answer in the claims, confidently wrong (``answered`` without the answer,
all cases) and ``answered`` for unanswerable cases. The proposed bar is the
lowest at which confidently wrong is at most ``--max-wrong`` on every
tuning set (``--tune``; the others are only reported).

    uv run python bench/answered_bar.py --mode answerer@answerer-v6 \\
        --tune editor-dev,idk-valid --report demo

Uses the demo's data directory, where the runs are stored (the newest run
of each set that holds the mode).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import django
import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "nalarku_site.settings")
os.environ.setdefault("NALARKU_LOG_LEVEL", "WARNING")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mode", default="answerer", help="the generator column of the runs (answerer@answerer-vN)")
    parser.add_argument("--tune", default="editor-dev,idk-valid", help="sets the bar is chosen on, comma-separated")
    parser.add_argument("--report", default="demo", help="sets only reported, comma-separated")
    parser.add_argument("--max-wrong", type=float, default=0.05, help="confidently wrong allowed on each tuning set")
    args = parser.parse_args()
    django.setup()
    tune = [s for s in args.tune.split(",") if s]
    names = tune + [s for s in args.report.split(",") if s]
    sets = {}
    for name in names:
        run, rows = stored_rows(name, args.mode)
        bar = float(run.config["answerer"].get("answer_at") or _artefact_bar(args.mode))
        sets[name] = (run.pk, bar, rows)

    own = max(bar for _, bar, _ in sets.values())
    grid = sorted({own, *np.round(np.arange(np.ceil(own * 100) / 100, 1.0001, 0.01), 2)})
    print(f"mode {args.mode}; bars from {own:.4f} (the runs' own) up; confidently wrong allowed {args.max_wrong}")
    chosen = None
    for t in grid:
        line, ok = [], True
        for name, (_, _, rows) in sets.items():
            figures = replay(rows, t)
            line.append(
                f"{name} {figures['answered']:.3f}/{figures['right']:.3f}/{figures['wrong']:.3f}/"
                f"{figures['unanswerable']:.3f}"
            )
            if name in tune and figures["wrong"] > args.max_wrong:
                ok = False
        mark = ""
        if ok and chosen is None:
            chosen, mark = t, "  <- lowest bar within the limit on every tuning set"
        print(f"answer_at {t:.4f}: " + "  ".join(line) + mark)
    print("(per set: answered / answered with the answer / confidently wrong / unanswerable answered)")
    for name, (pk, bar, rows) in sets.items():
        print(f"{name}: run {pk}, {len(rows)} cases, run's bar {bar:.4f}{'' if name in tune else ' (reported only)'}")
    print(f"proposed answer_at: {chosen}" if chosen is not None else "no bar up to 1.0 meets the limit")


def stored_rows(name: str, mode: str, label: str = "") -> tuple[object, list[dict]]:
    """The newest ``eval_answers`` run of set ``name`` (with ``label``, when
    given) that holds ``mode`` with the scorer's probability, and its cases'
    measures."""
    from review.models import EvalResult, EvalRun

    runs = EvalRun.objects.filter(kind="answers", eval_set__name=name)
    run = next(
        (
            r
            for r in (runs.filter(label=label) if label else runs)
            if mode in r.config.get("generators", [])
            and EvalResult.objects.filter(run=r, mode=mode, measures__has_key="answerable_p").exists()
        ),
        None,
    )
    if run is None:
        sys.exit(f"no run of {name} with {mode} and answerable_p: run eval_answers first")
    return run, [r.measures for r in EvalResult.objects.filter(run=run, mode=mode)]


def replay(rows: list[dict], bar: float) -> dict[str, float]:
    """The run's cases with ``answer_at`` raised to ``bar``."""
    answered = [r["answered"] == 1.0 and (r["answerable_p"] is None or r["answerable_p"] >= bar) for r in rows]
    no_answer = [r["expected"] == "insufficient_evidence" for r in rows]
    # eval_answers' own reading: a case without answer keys is neither.
    holds = [r["answer_in_claims"] == 1.0 for r in rows]
    misses = [r["answer_in_claims"] == 0.0 for r in rows]
    n, unanswerable = len(rows), max(1, sum(no_answer))
    return {
        "answered": sum(answered) / n,
        "right": sum(a and h for a, h in zip(answered, holds, strict=True)) / n,
        "wrong": sum(a and (na or m) for a, na, m in zip(answered, no_answer, misses, strict=True)) / n,
        "unanswerable": sum(a and na for a, na in zip(answered, no_answer, strict=True)) / unanswerable,
    }


def _artefact_bar(mode: str) -> float:
    from answering.answerer import artefact_used, thresholds

    _, _, name = mode.partition("@")
    if not name:
        return thresholds()["answer_at"]
    with artefact_used(name):
        return thresholds()["answer_at"]


if __name__ == "__main__":
    main()
