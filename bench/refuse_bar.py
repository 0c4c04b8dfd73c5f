"""Where should ``refuse_below`` stand, measured end to end?

``train_answerer`` chooses the refusal bar on the scorer's own figures
(one-standard-error rule on the validation split); what an editor meets is
the whole pipeline's answer: a case kept above the bar counts only if its
claims hold the answer. This replays higher refusal bars on stored
``eval_answers`` runs asked with a *low* bar
(``NALARKU_ANSWER_REFUSE_BELOW=0.2``): each case keeps the scorer's
calibrated probability (``answerable_p``) and its claims, and raising the
bar only turns a case whose probability is below it into a refusal, except
where its sources disagree (``engine._doubt_is_a_conflict`` then keeps it
``needs_review``): such a case is replayed as it was asked, which is exact
when the conflict was found without the claims and an approximation
otherwise (the conflicted share is printed). ``answer_at`` is replayed as
``answered_bar.py`` replays it.

For each set and refusal bar it prints decision accuracy, answer in the
claims (answerable cases), answerable refused, unanswerable refused and
``answered`` without the answer (all cases). The proposed bar is the one
with the highest mean decision accuracy over the tuning sets (``--tune``,
each set weighing the same), among bars that keep ``answered`` without the
answer at most ``--max-wrong`` on each; the other sets are only reported.

    NALARKU_ANSWER_REFUSE_BELOW=0.2 uv run python manage.py eval_answers --set editor-dev \\
        --generators answerer@answerer-v6 --label refuse-0.20      # and idk-valid, demo
    uv run python bench/refuse_bar.py --mode answerer@answerer-v6 --label refuse-0.20

Uses the demo's data directory, where the runs are stored.
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
sys.path.insert(0, str(ROOT / "bench"))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "nalarku_site.settings")
os.environ.setdefault("NALARKU_LOG_LEVEL", "WARNING")

from answered_bar import _artefact_bar, stored_rows  # noqa: E402

REFUSED = "insufficient_evidence"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mode", default="answerer", help="the generator column of the runs (answerer@answerer-vN)")
    parser.add_argument("--label", default="", help="only runs with this label (eval_answers --label)")
    parser.add_argument("--tune", default="editor-dev,idk-valid", help="sets the bar is chosen on, comma-separated")
    parser.add_argument("--report", default="demo", help="sets only reported, comma-separated")
    parser.add_argument(
        "--max-wrong", type=float, default=0.05, help="answered without the answer allowed per tuning set"
    )
    parser.add_argument("--answer-at", type=float, default=None, help="the answered bar (default: the artefact's)")
    parser.add_argument("--top", type=float, default=0.6, help="the highest refusal bar replayed")
    args = parser.parse_args()
    django.setup()
    tune = [s for s in args.tune.split(",") if s]
    names = tune + [s for s in args.report.split(",") if s]
    answer_at = args.answer_at if args.answer_at is not None else _artefact_bar(args.mode)
    sets, own = {}, 0.0
    for name in names:
        run, rows = stored_rows(name, args.mode, args.label)
        bar = run.config["answerer"].get("refuse_below")
        if bar is None:
            sys.exit(f"run {run.pk} of {name} was asked with the artefact's refusal bar: ask with a low one")
        own = max(own, float(bar))
        sets[name] = (run.pk, rows)
    grid = sorted({own, *np.round(np.arange(np.ceil(own * 100) / 100, args.top + 1e-9, 0.01), 2)})
    print(f"mode {args.mode}; refuse_below from {own:.2f} (the runs' own) up; answer_at {answer_at:.4f}")
    print("per set: decision / answer in claims / answerable refused / unanswerable refused / answered without")
    best, best_score = None, -1.0
    for bar in grid:
        line, score, ok = [], 0.0, True
        for name, (_, rows) in sets.items():
            f = replay(rows, bar, answer_at)
            line.append(
                f"{name} {f['decision']:.3f}/{f['in_claims']:.3f}/{f['answerable_refused']:.3f}/"
                f"{f['unanswerable_refused']:.3f}/{f['wrong']:.3f}"
            )
            if name in tune:
                score += f["decision"] / len(tune)
                ok = ok and f["wrong"] <= args.max_wrong
        if ok and score > best_score + 1e-9:
            best, best_score = bar, score
        print(f"refuse_below {bar:.2f}: " + "  ".join(line) + f"  (tuning mean {score:.4f})")
    for name, (pk, rows) in sets.items():
        conflicted = sum(r["conflict_found"] == 1.0 and r["status"] != REFUSED for r in rows) / max(len(rows), 1)
        role = "" if name in tune else " (reported only)"
        print(f"{name}: run {pk}, {len(rows)} cases, conflicts found in {conflicted:.3f} of them{role}")
    print(f"proposed refuse_below: {best:.2f} (tuning mean decision {best_score:.4f})" if best is not None else "none")


def replay(rows: list[dict], refuse_below: float, answer_at: float) -> dict[str, float]:
    """The run's cases with the refusal bar raised to ``refuse_below``."""
    decision, in_claims, refused_yes, refused_no, wrong = [], [], [], [], []
    for r in rows:
        p, no_answer = r["answerable_p"], r["expected"] == REFUSED
        # Under the bar, a case stays with an editor where its sources'
        # disagreement would send it there (recorded since the pipeline
        # says so; older runs: any conflict found, which keeps more).
        doubt = r.get("doubt_to_editor")
        kept = doubt if doubt is not None else r["conflict_found"] == 1.0
        refused = r["status"] == REFUSED or (p is not None and p < refuse_below and not kept)
        answered = not refused and r["answered"] == 1.0 and (p is None or p >= answer_at)
        holds = r["answer_in_claims"] == 1.0 and not refused
        if no_answer:
            decision.append(refused)
            refused_no.append(refused)
        else:
            # A case without answer keys keeps eval_answers' reading (gold cited) unless refused now.
            decision.append(False if refused else r["decision_correct"] == 1.0)
            refused_yes.append(refused)
            if r["answer_in_claims"] is not None:
                in_claims.append(holds)
        wrong.append(answered and (no_answer or r["answer_in_claims"] == 0.0))
    mean = lambda xs: sum(xs) / len(xs) if xs else 0.0  # noqa: E731
    return {
        "decision": mean(decision),
        "in_claims": mean(in_claims),
        "answerable_refused": mean(refused_yes),
        "unanswerable_refused": mean(refused_no),
        "wrong": mean(wrong),
    }


if __name__ == "__main__":
    main()
