"""Calibrate the answer thresholds on the demo archive's evaluation set.

    uv run python bench/calibrate_answers.py [--set demo]

For every case, asked as its user, runs the pipeline's own search, context
bar and candidate scoring, and records the best sentence's similarity to the
question and its IDF-weighted coverage of the question's terms. Then sweeps
both thresholds and prints the best pairs by decision accuracy ("answer" vs
"insufficient evidence" as the case expects) next to the current settings —
so the defaults are measured, not guessed. Uses the demo's data (var/).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "nalarku_site.settings")
os.environ.setdefault("NALARKU_LOG_LEVEL", "WARNING")

import django  # noqa: E402

django.setup()

import numpy as np  # noqa: E402
from django.conf import settings  # noqa: E402
from django.contrib.auth import get_user_model  # noqa: E402

from answering.context import context_select  # noqa: E402
from answering.generators import candidates_score  # noqa: E402
from answering.question_form import asks_about_present  # noqa: E402
from retrieval.in_force import hits_as_of  # noqa: E402
from retrieval.search import search  # noqa: E402
from review.models import EvalSet  # noqa: E402


def features(eval_set: EvalSet) -> list[dict]:
    """Per case, the best sentence the sentence baseline would see: the
    same search, context bar and candidate scoring as the pipeline."""
    users = {u.username: u for u in get_user_model().objects.all()}
    rows = []
    for case in eval_set.cases.order_by("case_id"):
        response = search(
            case.question,
            users.get(case.username),
            k=settings.NALARKU_ANSWER_SEARCH_K,
            include_superseded=case.as_of is not None,
        )
        hits = hits_as_of(response.results, case.as_of) if case.as_of else response.results
        chunks = context_select(
            hits, question=case.question, newest_first=case.as_of is None and asks_about_present(case.question)
        )
        candidates = candidates_score(case.question, chunks, min_coverage=0.0)
        best = max(candidates, key=lambda c: c.score, default=None)
        rows.append(
            {
                "case": case.case_id,
                "answerable": case.expected_status != "insufficient_evidence",
                "similarity": best.similarity or 0.0 if best else 0.0,
                "coverage": best.coverage if best else 0.0,
                "identifier": bool(best and best.identifier),
            }
        )
    return rows


def decide(row: dict, min_similarity: float, min_coverage: float) -> bool:
    """Would the generator answer (claims) rather than refuse?"""
    return row["identifier"] or (row["similarity"] >= min_similarity and row["coverage"] >= min_coverage)


def sweep(rows: list[dict]) -> None:
    answerable = [r for r in rows if r["answerable"]]
    refused = [r for r in rows if not r["answerable"]]
    for key in ("similarity", "coverage"):
        print(
            f"{key}: answerable p10/p50 {np.percentile([r[key] for r in answerable], [10, 50]).round(3)} · "
            f"not answerable p50/p90 {np.percentile([r[key] for r in refused], [50, 90]).round(3)}"
        )
    results = []
    for min_similarity in np.arange(0.78, 0.92, 0.01):
        for min_coverage in np.arange(0.0, 1.0, 0.05):
            kept = sum(decide(r, min_similarity, min_coverage) for r in answerable)
            declined = sum(not decide(r, min_similarity, min_coverage) for r in refused)
            results.append(
                ((kept + declined) / len(rows), kept, declined, round(min_similarity, 2), round(min_coverage, 2))
            )
    results.sort(reverse=True)
    print(f"\n{len(answerable)} answerable, {len(refused)} not answerable (no answer, or restricted for the asker)")
    print(f"{'accuracy':>9}{'answered':>10}{'refused':>9}{'min_similarity':>16}{'min_coverage':>14}")
    for accuracy, kept, declined, min_similarity, min_coverage in results[:8]:
        print(
            f"{accuracy:>9.3f}{kept:>7}/{len(answerable):<3}{declined:>5}/{len(refused):<4}"
            f"{min_similarity:>16.2f}{min_coverage:>14.2f}"
        )
    current = settings.NALARKU_SENTENCE
    kept = sum(decide(r, current["min_similarity"], current["min_coverage"]) for r in answerable)
    declined = sum(not decide(r, current["min_similarity"], current["min_coverage"]) for r in refused)
    print(
        f"current settings (min_similarity {current['min_similarity']}, min_coverage {current['min_coverage']}): "
        f"accuracy {(kept + declined) / len(rows):.3f}, answered {kept}/{len(answerable)}, "
        f"refused {declined}/{len(refused)}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--set", dest="set_name", default="demo")
    args = parser.parse_args()
    eval_set = EvalSet.objects.get(name=args.set_name)
    sweep(features(eval_set))


if __name__ == "__main__":
    main()
