"""The search desk's relevance floor, measured on the demo archive.

    uv run python bench/search_floor.py [--negatives 200]

When the best hit of a hybrid search is less similar to the query than the
floor, the search desk says "Tidak ada hasil yang cukup relevan"
(review/desk/search_floor.py). This prints, for floors from 0.70 to 0.90:

- **kept**: of the questions with gold evidence in the demo set and the
  editor-style dev set (demo/eval.jsonl, demo/editor-dev.jsonl), the share
  that still shows its gold document in the first ten hits (hybrid mode, as
  the case's user); questions whose gold is not in the top ten at all are
  left out (no floor can keep them);
- **quiet**: of queries about nothing in the archive, the share the desk
  calls not relevant. They are IDK-MRC *valid* questions (Indonesian
  Wikipedia topics: off-topic for a cloud-storage archive) and random letter
  strings; the IDK-MRC test split is never read.

It chooses the floor with the best balanced accuracy (kept + quiet, the
lower floor on a tie: a real result hidden costs more than noise shown) and
prints it; ``NALARKU_SEARCH_FLOOR`` in settings holds the value chosen with
it. Both question sets were written for this archive and are not held out. Uses the demo's data directory (var/; ``make demo`` fills it).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import string
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "nalarku_site.settings")
os.environ.setdefault("NALARKU_DATA_DIR", str(ROOT / "var"))
os.environ.setdefault("NALARKU_LOG_LEVEL", "WARNING")

import django  # noqa: E402

django.setup()

from django.contrib.auth import get_user_model  # noqa: E402

from retrieval.search import search  # noqa: E402
from review.desk.search_floor import matched_well  # noqa: E402

FLOORS = [round(0.70 + 0.01 * n, 2) for n in range(21)]


def _negatives(count: int) -> list[str]:
    paragraphs = json.loads((ROOT / "data" / "idk-mrc" / "valid.json").read_text())
    questions = [qa["question"] for p in paragraphs for qa in p["qas"]]
    rng = random.Random(7)
    picked = rng.sample(questions, min(count * 3 // 4, len(questions)))
    noise = [
        " ".join("".join(rng.choices(string.ascii_lowercase, k=rng.randint(3, 9))) for _ in range(rng.randint(1, 4)))
        for _ in range(count - len(picked))
    ]
    return picked + noise


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--negatives", type=int, default=200, help="off-topic queries (default 200)")
    args = parser.parse_args()
    users = {u.username: u for u in get_user_model().objects.all()}
    cases = [
        json.loads(line)
        for name in ("eval.jsonl", "editor-dev.jsonl")
        for line in (ROOT / "demo" / name).read_text().splitlines()
        if line.strip()
    ]
    positives = []
    for case in cases:
        if not case.get("gold"):
            continue
        hits = search(case["question"], users[case["user"]], k=10).results
        if any(h.document in {g["document"] for g in case["gold"]} for h in hits):
            positives.append(hits)
    reader = users["pembaca"]
    negatives = [search(q, reader, k=10).results for q in _negatives(args.negatives)]
    print(f"{len(positives)} questions with their gold in the top 10, {len(negatives)} off-topic queries")
    print(f"{'floor':>6} {'kept':>6} {'quiet':>6}")
    chosen, best = FLOORS[0], -1.0
    for floor in FLOORS:
        kept = sum(matched_well(hits, floor) for hits in positives) / len(positives)
        quiet = sum(not matched_well(hits, floor) for hits in negatives) / len(negatives)
        print(f"{floor:>6.2f} {kept:>6.3f} {quiet:>6.3f}")
        if kept + quiet > best + 1e-9:
            chosen, best = floor, kept + quiet
    print(f"chosen floor (best balanced accuracy, {best / 2:.3f}): {chosen:.2f}")


if __name__ == "__main__":
    main()
