"""Exact matches under the search desk's floor: hits shown before and after.

    NALARKU_DATA_DIR=/path/to/var uv run python bench/search_exact.py [--negatives 200]

Before, the search desk hid every hit when the best one's cosine similarity
to the query was under ``NALARKU_SEARCH_FLOOR``; now a hit holding an
identifier or a rare word of the query verbatim is shown anyway
(review/desk/search_floor.py). For the search-box questions of two sets —
``keyword`` and ``exact_string`` of the k8s-id-editor dev set (collection
``k8s``, when that archive is indexed in the data directory) and
``exact_string`` of demo/editor-dev.jsonl (it has no ``keyword`` category),
plus every case with gold evidence of both sets — in hybrid and semantic
mode, as the case's user, it prints, before → after:

- **hits**: hits shown on the first page, summed over the questions;
- **any**: questions showing at least one hit;
- **gold**: questions showing a hit of a gold document;
- **floored**: questions whose best hit is under the floor (the same before
  and after: the floor did not move).

Whole questions seldom fall under the floor; bare terms do (``crypto-shredding``
alone). So it also searches, alone, each term of those questions an editor
would type into the search box — each identifier and each word the model's
vocabulary does not hold whole, four letters or more — counting the gold of
the question it came from (a bare term may rightly find other documents too).

And the cost: of off-topic queries (IDK-MRC *valid* questions and random
letter strings, as in bench/search_floor.py), the share the desk keeps
quiet (shows nothing) before and after, for rare-word limits 1, 3, 5, 10.
It only reads the data directory (searches; no writes).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "nalarku_site.settings")
os.environ.setdefault("NALARKU_DATA_DIR", str(ROOT / "var"))
os.environ.setdefault("NALARKU_LOG_LEVEL", "WARNING")

import django  # noqa: E402

django.setup()

from django.conf import settings  # noqa: E402
from django.contrib.auth import get_user_model  # noqa: E402

from retrieval.models import Document  # noqa: E402
from retrieval.search import search  # noqa: E402
from review.desk.search_floor import (  # noqa: E402
    RARE_CHUNKS,
    floor_check,
    identifier,
    matched_well,
    query_words,
    whole_in_vocabulary,
)

K8S = ROOT / "data" / "k8s-id-editor" / "dev.jsonl"
MODES = ("hybrid", "vector")


def _cases(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _bare_terms(cases: list[dict]) -> list[dict]:
    terms = {}
    for case in cases:
        for word in query_words(case["question"]):
            if len(word) >= 4 and (identifier(word) or not whole_in_vocabulary(word)):
                terms.setdefault(word.lower(), {**case, "question": word})
    return list(terms.values())


def _shown(question: str, reader, mode: str, collection: str, rare: int) -> tuple[list, list, bool]:  # noqa: ANN001
    """First-page hits before and after, and whether the floor applied."""
    response = search(question, reader, k=10, mode=mode, collection=collection)
    page = response.results[:10]
    floored = response.mode != "lexical" and bool(page) and not matched_well(response.results)
    before = [] if floored else page
    weak = floor_check(response, page, reader=reader, collection=collection, rare=rare)
    after = page if weak is None else weak.exact
    return before, after, floored


def _row(label: str, cases: list[dict], users: dict, collection: str, mode: str) -> None:
    totals = {"before": [0, 0, 0], "after": [0, 0, 0]}
    floored = 0
    for case in cases:
        before, after, was_floored = _shown(case["question"], users[case["user"]], mode, collection, RARE_CHUNKS)
        floored += was_floored
        gold = {g["document"] for g in case.get("gold") or []}
        for name, hits in (("before", before), ("after", after)):
            totals[name][0] += len(hits)
            totals[name][1] += bool(hits)
            totals[name][2] += any(h.document in gold for h in hits)
    b, a = totals["before"], totals["after"]
    print(
        f"{label:<40} {mode:<7} {len(cases):>4} {floored:>8}"
        f"  {b[0]:>4} → {a[0]:<4} {b[1]:>3} → {a[1]:<3} {b[2]:>3} → {a[2]:<3}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--negatives", type=int, default=200, help="off-topic queries (default 200)")
    args = parser.parse_args()
    users = {u.username: u for u in get_user_model().objects.all()}
    print(f"floor {settings.NALARKU_SEARCH_FLOOR}, rare word: at most {RARE_CHUNKS} visible chunks hold it")
    print(f"{'set':<40} {'mode':<7} {'n':>4} {'floored':>8}  {'hits':^11} {'any':^9} {'gold':^9}")
    editor_dev = _cases(ROOT / "demo" / "editor-dev.jsonl")
    sets = [
        ("editor-dev exact_string", [c for c in editor_dev if c["category"] == "exact_string"], "editorial"),
        ("editor-dev all with gold", [c for c in editor_dev if c.get("gold")], "editorial"),
    ]
    if Document.objects.filter(collection="k8s").exists() and K8S.exists():
        k8s = _cases(K8S)
        sets += [
            ("k8s dev keyword", [c for c in k8s if c["category"] == "keyword"], "k8s"),
            ("k8s dev exact_string", [c for c in k8s if c["category"] == "exact_string"], "k8s"),
            ("k8s dev all with gold", [c for c in k8s if c.get("gold")], "k8s"),
        ]
    else:
        print("(the k8s-id-editor archive is not indexed in this data directory: editor-dev only)")
    # The terms of those questions an editor would type alone into the
    # search box: each identifier, and each word the model's vocabulary
    # does not hold whole, of the keyword and exact_string questions.
    sets += [
        (f"{label}: bare terms", _bare_terms(cases), collection)
        for label, cases, collection in list(sets)
        if "all" not in label
    ]
    for label, cases, collection in sets:
        for mode in MODES:
            _row(label, cases, users, collection, mode)

    probe = "crypto-shredding"
    for mode in MODES:
        before, after, _ = _shown(probe, users["editor"], mode, "editorial", RARE_CHUNKS)
        ids = ", ".join(h.evidence_id for h in after)
        print(f"probe {probe!r} ({mode}, editor): {len(before)} → {len(after)} hits shown ({ids})")

    from search_floor import _negatives  # the same off-topic queries as the floor's bench

    reader = users["pembaca"]
    negatives = _negatives(args.negatives)
    print(f"\noff-topic queries kept quiet (nothing shown), {len(negatives)} queries, as pembaca, hybrid:")
    results = [(q, search(q, reader, k=10)) for q in negatives]
    before = sum(not matched_well(r.results) or not r.results for _, r in results)
    print(f"  before: {before / len(results):.3f}")
    for rare in (1, 3, 5, 10):
        quiet = 0
        for _, response in results:
            weak = floor_check(response, response.results[:10], reader=reader, rare=rare)
            quiet += not response.results or (weak is not None and not weak.exact)
        print(f"  after, rare word ≤ {rare:>2} chunks: {quiet / len(results):.3f}")


if __name__ == "__main__":
    main()
