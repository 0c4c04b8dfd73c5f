"""Where does an answerable question lose its answer?

Asks every case of an evaluation set through the pipeline (as its user,
rolled back, as ``eval_answers`` does) with the answerer generator and one
scorer artefact, and sorts each answerable case by where the answer key
went:

- ``in claims``: a claim quotes it;
- ``refused``: the evidence was judged not to answer (with or without a
  unit holding the key);
- ``not in evidence``: no unit of the scored evidence holds it (search or
  context selection lost it);
- ``ranked below``: a unit holds it, but claims were drawn from others.
  For these, the rank of the first unit holding it in claim order, its
  probability against the support bar, and the unit right after the first
  claim's (does the answer follow the sentence that restates the question?).

    uv run python bench/answer_misses.py --set editor-dev [--artefact answerer-v6] [--cases] [--json FILE]

Uses the demo's data directory (the sets are imported there, see README);
IDK-MRC valid takes about 15 minutes on 2 cores, the dev set about 2.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections import Counter
from pathlib import Path

import django

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "nalarku_site.settings")
os.environ.setdefault("NALARKU_LOG_LEVEL", "WARNING")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--set", dest="set_name", default="editor-dev", help="evaluation set (default %(default)s)")
    parser.add_argument("--artefact", default="", help="scorer artefact (default: the configured one)")
    parser.add_argument("--cases", action="store_true", help="print every case that lost its answer")
    parser.add_argument("--json", type=Path, help="write every answerable case's record here")
    args = parser.parse_args()
    django.setup()
    from contextlib import nullcontext

    from django.contrib.auth import get_user_model
    from django.db import transaction

    from answering import generators
    from answering.answerer import artefact, artefact_used, thresholds
    from review.asking import question_ask
    from review.models import EvalSet

    eval_set = EvalSet.objects.get(name=args.set_name)
    users = {u.username: u for u in get_user_model().objects.all()}
    generator = generators.generator_from_config("answerer")
    seen: dict = {}

    class Watching(generators.AnswererGenerator):
        def generate(self, question, chunks, scored):  # noqa: ANN001, ANN202
            seen["scored"] = scored
            return super().generate(question, chunks, scored)

    watching = Watching(**vars(generator))
    records = []
    with artefact_used(args.artefact) if args.artefact else nullcontext():
        bars, name = thresholds(), artefact().meta["name"]
        cases = [c for c in eval_set.cases.order_by("case_id") if c.answers]
        for n, case in enumerate(cases, 1):
            with transaction.atomic():
                contract = question_ask(
                    text=case.question,
                    user=users.get(case.username),
                    as_of=case.as_of,
                    generator=watching,
                    search_options={"collection": eval_set.collection},
                ).contract
                transaction.set_rollback(True)
            records.append(_record(case, contract, seen.pop("scored", None), watching.meaning_weight, bars))
            print(f"\r{n}/{len(cases)}", end="", file=sys.stderr)
    print(file=sys.stderr)
    _report(records, name, args.set_name, bars, args.cases)
    if args.json:
        args.json.write_text(json.dumps(records, ensure_ascii=False, indent=1), encoding="utf-8")


def _record(case, contract, scored, meaning_weight: float, bars: dict) -> dict:  # noqa: ANN001
    from answering.answer_keys import answer_in_claims as holds
    from review.models import AnswerStatus

    # No scored evidence (nothing retrieved, or the scorer was unavailable): no unit to rank.
    order = scored.claim_order(meaning_weight) if scored is not None else []
    holding = [i for i, s in enumerate(order) if holds(case.answers, [s.unit.text])]
    record = {
        "case": case.case_id,
        "category": case.category,
        "question": case.question,
        "answers": case.answers,
        "status": contract.status,
        "answerable": scored.answerable if scored is not None else 0.0,
        "claims": [c.text for c in contract.claims],
    }
    if contract.status == AnswerStatus.INSUFFICIENT_EVIDENCE:
        record["where"] = "refused"
    elif holds(case.answers, record["claims"]):
        record["where"] = "in claims"
    elif not holding:
        record["where"] = "not in evidence"
    else:
        record["where"] = "ranked below"
    if holding:
        key = order[holding[0]]
        record |= {"key_rank": holding[0] + 1, "key_p": key.probability, "key_unit": key.unit.text}
        record["key_below_support"] = key.probability < bars["support_min"]
    if order:
        first = order[0]
        after = [s for s in order if s.hit.evidence_id == first.hit.evidence_id and s.unit.start > first.unit.start]
        following = min(after, key=lambda s: s.unit.start) if after else None
        record["key_follows_first"] = bool(following and holds(case.answers, [following.unit.text]))
    return record


def _report(records: list[dict], artefact: str, set_name: str, bars: dict, cases: bool) -> None:
    total = len(records)
    where = Counter(r["where"] for r in records)
    print(f"{set_name}: {total} answerable cases, scorer {artefact}, support bar {bars['support_min']}")
    for label in ("in claims", "refused", "not in evidence", "ranked below"):
        print(f"  {label:16} {where[label]:4}  {where[label] / max(total, 1):.3f}")
    refused = [r for r in records if r["where"] == "refused"]
    below = [r for r in records if r["where"] == "ranked below"]
    print(f"  refused with a unit holding the key: {sum('key_rank' in r for r in refused)}")
    print(
        f"  ranked below: key unit 2nd-3rd in claim order {sum(r['key_rank'] <= 3 for r in below)}, "
        f"further {sum(r['key_rank'] > 3 for r in below)}; under the support bar {sum(r['key_below_support'] for r in below)}; "
        f"in the unit right after the first claim's {sum(r['key_follows_first'] for r in below)}"
    )
    if cases:
        for r in records:
            if r["where"] == "in claims":
                continue
            key = f"key #{r['key_rank']} p {r['key_p']:.3f}" if "key_rank" in r else "no unit holds the key"
            print(f"\n{r['case']} [{r['category']}] {r['where']}, P(answers) {r['answerable']:.3f}, {key}")
            print(f"  Q: {r['question']}  ->  {r['answers']}")
            print(f"  first claim: {(r['claims'] or ['-'])[0][:150]}")
            if "key_unit" in r:
                print(f"  key unit:    {r['key_unit'][:150]}")


if __name__ == "__main__":
    main()
