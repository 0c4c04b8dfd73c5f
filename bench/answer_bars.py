"""Where should the answer engine's bars sit — the refusal bar of the status
band and the answerer generator's claim bar? Measured on a validation
set, every setting side by side from one scoring pass.

    uv run python bench/answer_bars.py --set idk-valid
    uv run python bench/answer_bars.py --set demo --refuse-below 0.3,0.43 --ratios 0.15 --floors 0

Each case is asked as ``question_ask`` asks it (search as its user, the
context policy, the scorer) once; then each (refusal bar, max claims, claim
ratio, claim floor) setting draws its claims from the same scored units and
is measured
as ``eval_answers`` measures: answer in the claims (answerable cases, a
refusal counts as not holding it), decision accuracy, wrong refusals,
refusals and ``answered`` for unanswerable cases, and the mean number of
claims of the answers not refused. (``answered`` here is the band's; the
pipeline lowers it further for flags and conflicts.)

This chooses settings on the set it is run on: run it on a validation set
(IDK-MRC valid, the demo set), never on tydiqa dev.
"""

from __future__ import annotations

import argparse
import os
import sys
from dataclasses import replace
from itertools import product
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "nalarku_site.settings")
os.environ.setdefault("NALARKU_LOG_LEVEL", "WARNING")

import django  # noqa: E402

django.setup()

from django.conf import settings  # noqa: E402
from django.contrib.auth import get_user_model  # noqa: E402
from tqdm import tqdm  # noqa: E402

from answering.answer_keys import answer_in_claims  # noqa: E402
from answering.answerer import INSUFFICIENT, evidence_score, thresholds  # noqa: E402
from answering.context import context_select  # noqa: E402
from answering.generators import AnswererGenerator  # noqa: E402
from answering.question_form import asks_about_present  # noqa: E402
from retrieval.in_force import hits_as_of  # noqa: E402
from retrieval.search import search  # noqa: E402
from review.models import EvalSet  # noqa: E402


def floats(text: str) -> list[float]:
    return [float(x) for x in text.split(",") if x.strip()]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--set", default="idk-valid", help="evaluation set (default %(default)s)")
    parser.add_argument("--limit", type=int)
    parser.add_argument("--refuse-below", default="", help="refusal bars, comma-separated (default: today's only)")
    parser.add_argument("--max-claims", default="3", help="comma-separated (default %(default)s)")
    parser.add_argument("--ratios", default="0,0.25,0.5", help="claim_ratio values (default %(default)s)")
    parser.add_argument("--floors", default="0,0.1,0.2,0.33", help="claim_floor values (default %(default)s)")
    args = parser.parse_args()

    eval_set = EvalSet.objects.filter(name=args.set).first()
    if eval_set is None:
        sys.exit(f"set {args.set!r} not found (manage.py eval_import …)")
    users = {u.username: u for u in get_user_model().objects.all()}
    cases = list(eval_set.cases.order_by("case_id"))[: args.limit or None]
    options = {"k": settings.NALARKU_ANSWER_SEARCH_K, "collection": eval_set.collection}
    scored_cases = []
    for case in tqdm(cases, desc="scoring", unit="case"):
        present = case.as_of is None and asks_about_present(case.question)
        response = search(case.question, users.get(case.username), include_superseded=case.as_of is not None, **options)
        hits = hits_as_of(response.results, case.as_of) if case.as_of else response.results
        chunks = context_select(hits, question=response.query, newest_first=present)
        scored = (
            evidence_score(response.query, chunks, vector=response.vector, collection=eval_set.collection)
            if chunks
            else None
        )
        scored_cases.append((case, chunks, scored))

    base = AnswererGenerator(**settings.NALARKU_CLAIMS)
    today = thresholds()["refuse_below"]
    print(
        f"\n{args.set}: {len(cases)} cases; today: refuse_below {today:.3f}, max_claims {base.max_claims}, "
        f"claim_ratio {base.claim_ratio}, claim_floor {base.claim_floor}"
    )
    print(
        f"{'refuse':>6} {'max':>4} {'ratio':>6} {'floor':>6} | {'decision':>8} {'in claims':>9} "
        f"{'wrong refusal':>13} {'unans. refused':>14} {'unans. answered':>15} {'claims':>6}"
    )
    settings.NALARKU_ANSWERER = dict(settings.NALARKU_ANSWERER)
    for refuse, max_claims, ratio, floor in product(
        floats(args.refuse_below) or [today], floats(args.max_claims), floats(args.ratios), floats(args.floors)
    ):
        settings.NALARKU_ANSWERER["refuse_below"] = refuse
        generator = replace(base, max_claims=int(max_claims), claim_ratio=ratio, claim_floor=floor)
        correct, holds, refused_wrongly, unanswered_refused, unanswered_answered, claims = [], [], [], [], [], []
        for case, chunks, scored in scored_cases:
            no_answer = case.expected_status == INSUFFICIENT
            if scored is None:
                status, texts = INSUFFICIENT, []
            else:
                draft = generator.generate(case.question, chunks, scored).draft
                status, texts = draft.status, [c.text for c in draft.claims]
            if status != INSUFFICIENT:
                claims.append(len(texts))
            if no_answer:
                correct.append(status == INSUFFICIENT)
                unanswered_refused.append(status == INSUFFICIENT)
                unanswered_answered.append(status == "answered")
            elif case.answers:
                held = answer_in_claims(case.answers, texts) and status != INSUFFICIENT
                holds.append(held)
                correct.append(held)
                refused_wrongly.append(status == INSUFFICIENT)
        rate = lambda xs: sum(xs) / len(xs) if xs else float("nan")  # noqa: E731
        print(
            f"{refuse:>6.3f} {int(max_claims):>4} {ratio:>6.2f} {floor:>6.2f} | {rate(correct):>8.3f} "
            f"{rate(holds):>9.3f} {rate(refused_wrongly):>13.3f} {rate(unanswered_refused):>14.3f} "
            f"{rate(unanswered_answered):>15.3f} {rate(claims):>6.2f}",
            flush=True,
        )


if __name__ == "__main__":
    main()
