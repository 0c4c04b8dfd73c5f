"""Never the superseded value: k8s-id-editor's checks.jsonl names, for some
questions, strings an answer must not state (the value an earlier revision
gave). Each such question of a stored set is asked as the set's user, and its
claims are searched for the forbidden strings and for the answer key.

    uv run --frozen python bench/forbidden_values.py [--set k8s-dev] [--generators reader,answerer@answerer-v6]

Needs the set imported with its collection (``eval_import
data/k8s-id-editor/dev.jsonl --name k8s-dev --collection k8s``
after ``ingest --manifest …/archive.jsonl --collection k8s``). Nothing is
kept: each answer is rolled back, as ``eval_answers`` does.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from contextlib import nullcontext
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "nalarku_site.settings")
os.environ.setdefault("NALARKU_LOG_LEVEL", "WARNING")

import django  # noqa: E402

django.setup()

from django.contrib.auth.models import User  # noqa: E402
from django.db import transaction  # noqa: E402

from answering.answer_keys import answer_in_claims, normalise_answer  # noqa: E402
from answering.answerer import artefact_used  # noqa: E402
from answering.generators import generator_from_config  # noqa: E402
from review.asking import question_ask  # noqa: E402
from review.models import EvalSet  # noqa: E402

CHECKS = ROOT / "data" / "k8s-id-editor" / "checks.jsonl"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--set", default="k8s-dev")
    parser.add_argument("--checks", type=Path, default=CHECKS)
    parser.add_argument("--generators", default="reader,answerer@answerer-v6")
    args = parser.parse_args()
    forbid = {c["id"]: c["forbid"] for c in map(json.loads, args.checks.open()) if c.get("forbid")}
    eval_set = EvalSet.objects.filter(name=args.set).first()
    if eval_set is None:
        sys.exit(f"set {args.set!r} not found (see this script's docstring)")
    cases = list(eval_set.cases.filter(case_id__in=forbid).order_by("case_id"))
    print(f"{len(cases)} questions of {args.set} with forbidden values")
    for name in args.generators.split(","):
        # As eval_answers reads the names: "answerer@answerer-v6" is the
        # answerer generator on a named scorer artefact, "reader@NAME" a reader.
        kind, _, artefact_name = name.partition("@")
        generator = generator_from_config(name if kind == "reader" else kind)
        named = artefact_name and kind != "reader"
        stated = right = 0
        for case in cases:
            with artefact_used(artefact_name) if named else nullcontext(), transaction.atomic():
                contract = question_ask(
                    text=case.question,
                    user=User.objects.filter(username=case.username).first(),
                    as_of=case.as_of,
                    generator=generator,
                    search_options={"collection": eval_set.collection},
                ).contract
                transaction.set_rollback(True)
            claims = [c.text for c in contract.claims]
            said = " ".join(normalise_answer(t) for t in claims)
            bad = [f for f in forbid[case.case_id] if normalise_answer(f) and normalise_answer(f) in said]
            good = answer_in_claims(case.answers, claims)
            stated += bool(bad)
            right += good
            mark = "FORBIDDEN " + "; ".join(bad) if bad else ("right value" if good else "neither")
            print(f"  {name:<26} {case.case_id} {case.category:<10} {contract.status:<22} {mark}")
        print(f"{name}: forbidden value stated {stated}/{len(cases)}, right value in the claims {right}/{len(cases)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
