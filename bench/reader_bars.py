"""The reader's status bars, chosen end to end on the tuning sets.

Ask each tuning set once with the reader and a refusal bar of 0, so every
case keeps its claims and the reader's calibrated probability
(``answerable_p``):

    NALARKU_READER_REFUSE_BELOW=0 uv run python manage.py eval_answers --set k8s-dev \\
        --generators reader --label reader-bars       # and idk-valid, editor-dev (demo only reported)
    uv run python bench/reader_bars.py --label reader-bars [--write]

Every pair (refuse_below, answer_at) on a grid is replayed on those runs
(``refuse_bar.replay``: a case under the refusal bar becomes a refusal, one
at or over the answer bar stays ``answered``) and the pair with the best
mean decision accuracy over the tuning sets, each weighing the same, among
pairs that keep ``answered`` without the answer at most ``--max-wrong`` on
each set, is proposed; ``--write`` puts it in the artefact's card. The
tuning sets are IDK-MRC valid, k8s-id-editor dev and editor-dev, none of
which the reader was trained on; the demo set is only reported.
"""

from __future__ import annotations

import argparse
import json
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

from answered_bar import stored_rows  # noqa: E402
from refuse_bar import replay  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mode", default="reader", help="the generator column of the runs (reader@NAME)")
    parser.add_argument("--label", default="", help="only runs with this label (eval_answers --label)")
    parser.add_argument("--tune", default="idk-valid,k8s-dev,editor-dev", help="sets the bars are chosen on")
    parser.add_argument("--report", default="demo", help="sets only reported")
    parser.add_argument("--max-wrong", type=float, default=0.05, help="answered without the answer allowed per set")
    parser.add_argument("--write", action="store_true", help="write the proposed bars into the artefact's card")
    args = parser.parse_args()
    django.setup()
    from django.conf import settings

    from review.answers.generators import reader_path

    tune = [s for s in args.tune.split(",") if s]
    sets = {}
    for name in tune + [s for s in args.report.split(",") if s]:
        run, rows = stored_rows(name, args.mode, args.label)
        if (run.config.get("reader") or {}).get("refuse_below") not in (0, 0.0):
            sys.exit(f"run {run.pk} of {name} was not asked with NALARKU_READER_REFUSE_BELOW=0")
        sets[name] = rows
    grid = [round(x, 2) for x in np.arange(0.0, 0.96, 0.05)]
    best, best_score = None, -1.0
    for refuse in grid:
        for answer in (a for a in grid if a >= refuse):
            score, ok = 0.0, True
            for name in tune:
                f = replay(sets[name], refuse, answer)
                score += f["decision"] / len(tune)
                ok = ok and f["wrong"] <= args.max_wrong
            if ok and score > best_score + 1e-9:
                best, best_score = (refuse, answer), score
    if best is None:
        sys.exit("no pair of bars keeps answered-without-the-answer within --max-wrong on every set")
    refuse, answer = best
    print(f"proposed: refuse_below {refuse:.2f}, answer_at {answer:.2f} (tuning mean decision {best_score:.4f})")
    print("set: decision / answer in claims / answerable refused / unanswerable refused / answered without")
    for name, rows in sets.items():
        f = replay(rows, refuse, answer)
        role = "" if name in tune else " (reported only)"
        print(
            f"{name}{role}: {f['decision']:.3f} / {f['in_claims']:.3f} / {f['answerable_refused']:.3f} / "
            f"{f['unanswerable_refused']:.3f} / {f['wrong']:.3f}  ({len(rows)} cases)"
        )
    if args.write:
        name = args.mode.partition("@")[2]
        card_path = Path(reader_path(name) if name else settings.NALARKU_READER["artefact"]).with_suffix(".json")
        card = json.loads(card_path.read_text())
        # A claim is supported where its unit clears the refusal bar.
        card["bars"] = {"refuse_below": refuse, "answer_at": answer, "support_min": refuse}
        card["bars_source"] = (
            f"bench/reader_bars.py on {', '.join(tune)} (label {args.label!r}): best mean decision accuracy "
            f"{best_score:.4f} with answered-without-the-answer <= {args.max_wrong} on each"
        )
        card_path.write_text(json.dumps(card, indent=2, ensure_ascii=False) + "\n")
        print(f"written to {card_path}")


if __name__ == "__main__":
    main()
