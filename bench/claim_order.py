"""In which order should claims be drawn from the scored units?

The answerer generator's first claim is the unit it ranks first. The
unit model learned from IDK-MRC, where the unit sharing the question's
words nearly always answers; on the editor-style dev set the model's first
unit holds the answer less often than the unit closest in meaning (e5
cosine). This sweeps the order ``log-odds(p) + w × cosine`` over ``w`` on
IDK-MRC valid and the dev set, each question's own evidence as the
pipeline gives it, and prints how often the first unit, and one of the
first three (the claims shown), holds the answer — for questions whose
evidence holds it. The weight in settings (``NALARKU_CLAIMS
["meaning_weight"]``) is the smallest within 0.005 of the best mean over
both sets of the two rates.

    uv run python bench/claim_order.py [--artefact answerer-v6] [--dev-set editor-dev]

Uses the demo's data directory (the dev set is imported there, see README)
and the items ``train_answerer`` caches under it (IDK-MRC valid is searched
and prepared again when the cache is missing: minutes).
"""

from __future__ import annotations

import argparse
import os
import pickle
import sys
from pathlib import Path

import django
import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "nalarku_site.settings")
os.environ.setdefault("NALARKU_LOG_LEVEL", "WARNING")

WEIGHTS = (0, 5, 10, 15, 20, 30, 40, 60, 80, 160)
TIE = 0.005


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--artefact", default="answerer-v6", help="the scorer artefact whose unit model ranks")
    parser.add_argument("--dev-set", default="editor-dev", help="the editor-style evaluation set")
    args = parser.parse_args()
    django.setup()
    from answering.answerer import artefact_path, artefact_read, log_odds
    from answering.features import NAMES, baseline_of, rarity_of
    from answering.units import UNITS_VERSION
    from training import answerer as training

    artefact = artefact_read(artefact_path(args.artefact))
    cache = training.default_cache_dir() / f"items-valid-{UNITS_VERSION}.pkl"
    if cache.is_file():
        with cache.open("rb") as handle:
            valid = pickle.load(handle)  # noqa: S301 - written by train_answerer on this machine
    else:
        dataset = ROOT / "data" / "idk-mrc" / "valid.json"
        valid = training.items_build(dataset, cache_dir=training.default_cache_dir(), progress=print)
    sets = {"IDK-MRC valid": valid, args.dev_set: training.items_from_evalset(args.dev_set)}
    cos_col = NAMES.index("cos")
    rates: dict[str, list[tuple[float, float]]] = {}
    for name, items in sets.items():
        for item in items:
            item.question.rarity = rarity_of(item.question.content, artefact.rarity)
            item.question.baseline = baseline_of(item.question.vector, artefact.centroid)
        x, _, groups = training.item_rows(items)
        p = artefact.unit_model.predict_proba(x)[:, 1]
        logit, cos = log_odds(p)[:, 0], x[:, cos_col]
        answerable = [n for n, item in enumerate(items) if item.labels.any()]
        rates[name] = []
        for weight in WEIGHTS:
            order = logit + weight * cos
            firsts = [np.argsort(-order[groups == n])[:3] for n in answerable]
            first = np.mean([items[n].labels[f[0]] > 0 for n, f in zip(answerable, firsts, strict=True)])
            three = np.mean([items[n].labels[f].any() for n, f in zip(answerable, firsts, strict=True)])
            rates[name].append((float(first), float(three)))
        print(f"{name}: {len(items)} questions, {len(answerable)} with the answer in their evidence")
    print(f"\n{'weight':>7} " + " ".join(f"{n[:18]:>18} 1st / top3" for n in sets) + "   mean")
    means = []
    for i, weight in enumerate(WEIGHTS):
        row = [rates[n][i] for n in sets]
        mean = float(np.mean([v for pair in row for v in pair]))
        means.append(mean)
        print(f"{weight:>7} " + " ".join(f"{a:>18.3f} / {b:.3f}   " for a, b in row) + f" {mean:.4f}")
    best = max(means)
    chosen = min(w for w, m in zip(WEIGHTS, means, strict=True) if m >= best - TIE)
    print(f"\nchosen weight (smallest within {TIE} of the best mean {best:.4f}): {chosen}")


if __name__ == "__main__":
    main()
