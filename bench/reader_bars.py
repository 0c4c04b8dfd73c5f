"""The reader's status bars, chosen end to end on the tuning sets.

Ask each tuning set once with the reader and a refusal bar of 0, and the
claim bars at 0 beside a support bar of 0.3, so every case keeps its claims
and the reader's calibrated probability (``answerable_p``):

    NALARKU_READER_REFUSE_BELOW=0 NALARKU_READER_CLAIM_MIN=0 NALARKU_READER_CLAIM_RATIO=0 \\
    NALARKU_READER_SUPPORT_MIN=0.3 uv run python manage.py eval_answers --set k8s-dev \\
        --generators reader --label reader-bars       # and idk-valid, editor-dev (demo only reported)
    uv run python bench/reader_bars.py --label reader-bars [--write]
    uv run python bench/reader_bars.py --label reader-bars --at-card   # the card's own bars, by category

With ``--at-card`` nothing is chosen: every set is replayed at the bars the
artefact's card already holds, overall and by category, so two readers
asked in one zero-bar run are compared each at its own bars.

With ``--combine`` the reader's probability is first combined with the
scorer's (answerer-v6, asked beside it in the same runs): a logistic
regression of "answerable" on both log-odds, fitted on the tuning sets
(each weighing the same); the combiner goes into the card with the bars,
and the reader's answers are judged by the combined probability.

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

# The claim bars relative to the first claim tried beside none (0).
RATIOS = (0.5, 0.6, 0.7, 0.8, 0.9)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mode", default="reader", help="the generator column of the runs (reader@NAME)")
    parser.add_argument("--label", default="", help="only runs with this label (eval_answers --label)")
    parser.add_argument("--tune", default="idk-valid,k8s-dev,editor-dev", help="sets the bars are chosen on")
    parser.add_argument("--report", default="demo", help="sets only reported")
    parser.add_argument("--max-wrong", type=float, default=0.05, help="answered without the answer allowed per set")
    parser.add_argument(
        "--max-in-claims-loss",
        type=float,
        default=0.01,
        help="answer-in-claims a claim bar may cost per set (a further claim that held the key, dropped)",
    )
    parser.add_argument("--write", action="store_true", help="write the proposed bars into the artefact's card")
    parser.add_argument(
        "--at-card", action="store_true", help="replay every set at the card's own bars, by category; choose nothing"
    )
    parser.add_argument("--combine", action="store_true", help="combine the reader's probability with the scorer's")
    parser.add_argument("--scorer-mode", default="answerer@answerer-v6", help="the scorer's column in the runs")
    args = parser.parse_args()
    django.setup()
    from django.conf import settings

    from answering.generators import reader_path
    from answering.reader.model import DEFAULT_BARS
    from answering.reader.scoring import combined

    tune = [s for s in args.tune.split(",") if s]
    sets, scorer, categories = {}, {}, {}
    for name in tune + [s for s in args.report.split(",") if s]:
        run, _ = stored_rows(name, args.mode, args.label)
        if (run.config.get("reader") or {}).get("refuse_below") not in (0, 0.0):
            sys.exit(f"run {run.pk} of {name} was not asked with NALARKU_READER_REFUSE_BELOW=0")
        ids, sets[name] = _rows(run, args.mode)
        categories[name] = _categories(run, args.mode)
        if args.combine:
            theirs = dict(zip(*_rows(run, args.scorer_mode), strict=True))
            scorer[name] = [(theirs.get(i) or {}).get("answerable_p") for i in ids]
    combiner = None
    if args.combine:
        combiner = combiner_fit({n: (sets[n], scorer[n]) for n in tune})
        for name in sets:
            sets[name] = [
                {**r, "answerable_p": combined(combiner, r["answerable_p"], p)}
                for r, p in zip(sets[name], scorer[name], strict=True)
            ]
        print(f"combiner: {combiner}")
    name = args.mode.partition("@")[2]
    card_path = Path(reader_path(name) if name else settings.NALARKU_READER["artefact"]).with_suffix(".json")
    if args.at_card:
        at_card(sets, categories, json.loads(card_path.read_text())["bars"])
        return
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
    claim_bars = claim_bar(sets, tune, refuse, args.max_in_claims_loss)
    if args.write:
        card = json.loads(card_path.read_text())
        # A claim is supported where its unit clears the refusal bar; with a
        # combiner the bars are on the combined scale and the units keep the
        # reader's, so the support bar stays the default (not tuned).
        support = DEFAULT_BARS["support_min"] if combiner else refuse
        card["bars"] = {"refuse_below": refuse, "answer_at": answer, "support_min": support}
        if claim_bars is not None:
            card["bars"]["claim_min"], card["bars"]["claim_ratio"] = claim_bars
        card["combiner"] = combiner
        cases = ", ".join(f"{n} {len(sets[n])} cases" for n in tune)
        card["bars_source"] = (
            f"bench/reader_bars.py on {cases} (eval_answers label {args.label!r}): best mean decision accuracy "
            f"{best_score:.4f} with answered-without-the-answer <= {args.max_wrong} on each"
        )
        card_path.write_text(json.dumps(card, indent=2, ensure_ascii=False) + "\n")
        print(f"written to {card_path}")


def claims_replay(rows: list[dict], refuse_below: float, claim_min: float, ratio: float = 0.0) -> dict[str, float]:
    """The run's claims with the status bar ``refuse_below`` and a further
    claim kept only at ``claim_min`` or above and at ``ratio`` × the first
    claim's score or above (the first claim always, a conflict side
    always): claim precision, answer in claims (answerable cases with keys)
    and the share of answers with a claim that does not answer."""
    precise, holds, offtopic = [], [], []
    for r in rows:
        if "claims_precise" not in r:
            sys.exit("the runs hold no per-claim measures: ask them again with this eval_answers")
        p = r["answerable_p"]
        refused = r["status"] == "insufficient_evidence" or (p is not None and p < refuse_below)
        scores = [score or 0.0 for score in r["claim_scores"]]
        bar = max(claim_min, ratio * scores[0]) if scores else claim_min
        kept = [i for i, score in enumerate(scores) if not refused and (i == 0 or r["claims_side"][i] or score >= bar)]
        precise += [r["claims_precise"][i] for i in kept]
        if kept:
            offtopic.append(not all(r["claims_precise"][i] for i in kept))
        if r["expected"] != "insufficient_evidence" and r["answer_in_claims"] is not None:
            holds.append(any(r["claims_holding"][i] for i in kept))
    mean = lambda xs: sum(xs) / len(xs) if xs else 0.0  # noqa: E731
    return {"precision": mean(precise), "in_claims": mean(holds), "offtopic": mean(offtopic), "claims": len(precise)}


def claim_bar(sets: dict, tune: list[str], refuse: float, max_loss: float) -> tuple[float, float] | None:
    """The claim bars: on a grid of an absolute bar (from the refusal bar up)
    and a bar relative to the first claim (``claim_ratio`` × its score), the
    pair with the best mean claim precision over the tuning sets among those
    that cost answer in claims at most ``max_loss`` on each (against no bar
    beyond the support bar); where two tie, the lower ratio, then the lower
    bar. Printed with every set's figures; None when no run holds claims."""
    if not all(any("claims_precise" in r for r in sets[n]) for n in tune):
        print("claim bar: the runs hold no per-claim measures (ask them again); not chosen")
        return None
    base = {n: claims_replay(sets[n], refuse, refuse) for n in sets}
    best, best_score = (refuse, 0.0), -1.0
    for ratio in (0.0, *RATIOS):
        for bar in [round(x, 2) for x in np.arange(refuse, 1.0, 0.05)]:
            figures = {n: claims_replay(sets[n], refuse, bar, ratio) for n in tune}
            if any(base[n]["in_claims"] - figures[n]["in_claims"] > max_loss + 1e-9 for n in tune):
                continue
            score = sum(f["precision"] for f in figures.values()) / len(tune)
            if score > best_score + 1e-9:
                best, best_score = (bar, ratio), score
    print(
        f"proposed claim bars: claim_min {best[0]:.2f}, claim_ratio {best[1]:.2f} "
        f"(tuning mean claim precision {best_score:.4f})"
    )
    print(
        "set: claim precision / answer in claims / answers with an off-topic claim / claims, at the support bar → at them"
    )
    for name in sets:
        a, b = base[name], claims_replay(sets[name], refuse, *best)
        print(
            f"{name}: {a['precision']:.3f} → {b['precision']:.3f} / {a['in_claims']:.3f} → {b['in_claims']:.3f} / "
            f"{a['offtopic']:.3f} → {b['offtopic']:.3f} / {a['claims']} → {b['claims']}"
        )
    return best


def at_card(sets: dict, categories: dict, bars: dict) -> None:
    """Each set replayed at ``bars`` (a card's): decision figures and claim
    figures, overall and for each category of case."""
    refuse, answer = bars["refuse_below"], bars["answer_at"]
    claim_min, ratio = bars.get("claim_min", refuse), bars.get("claim_ratio", 0.0)
    print(
        f"bars: refuse_below {refuse:.2f}, answer_at {answer:.2f}, claim_min {claim_min:.2f}, claim_ratio {ratio:.2f}"
    )
    print("set [category]: decision / answer in claims / unanswerable refused / answered without / claim precision")
    for name, rows in sets.items():
        groups = {"": list(range(len(rows)))}
        for i, category in enumerate(categories[name]):
            groups.setdefault(category, []).append(i)
        for category, at in sorted(groups.items()):
            chosen = [rows[i] for i in at]
            f, c = replay(chosen, refuse, answer), claims_replay(chosen, refuse, claim_min, ratio)
            print(
                f"{name}{f' [{category}]' if category else ''} ({len(chosen)}): {f['decision']:.3f} / "
                f"{c['in_claims']:.3f} / {f['unanswerable_refused']:.3f} / {f['wrong']:.3f} / {c['precision']:.3f}"
            )


def _categories(run, mode: str) -> list[str]:  # noqa: ANN001
    """The run's cases' categories, in the order of ``_rows``."""
    from review.models import EvalResult

    return list(EvalResult.objects.filter(run=run, mode=mode).order_by("case_id").values_list("category", flat=True))


def _rows(run, mode: str) -> tuple[list[str], list[dict]]:  # noqa: ANN001
    """The run's cases in ``mode``: their ids and measures, in case order."""
    from review.models import EvalResult

    rows = list(EvalResult.objects.filter(run=run, mode=mode).order_by("case_id"))
    return [r.case_id for r in rows], [r.measures for r in rows]


def combiner_fit(sets: dict) -> dict:
    """Logistic regression of "answerable" on the reader's and the scorer's
    log-odds, each set weighing the same."""
    from sklearn.linear_model import LogisticRegression

    from answering.reader.scoring import logit

    x, y, w = [], [], []
    for rows, scorer in sets.values():
        for r, p in zip(rows, scorer, strict=True):
            x.append([logit(r["answerable_p"]), logit(p)])
            y.append(r["expected"] != "insufficient_evidence")
            w.append(1.0 / len(rows))
    model = LogisticRegression().fit(np.array(x), np.array(y), sample_weight=np.array(w) * len(w))
    return {
        "reader": round(float(model.coef_[0][0]), 4),
        "scorer": round(float(model.coef_[0][1]), 4),
        "bias": round(float(model.intercept_[0]), 4),
    }


if __name__ == "__main__":
    main()
