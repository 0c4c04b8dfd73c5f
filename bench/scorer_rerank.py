"""Would the answer scorer, or the reader, make a good reranker? Measured, not assumed.

    uv run python bench/scorer_rerank.py --set demo
    uv run python bench/scorer_rerank.py --beir data/tydiqa-goldp-id-distractors --limit 200

For every judged question, the hybrid search's top ``--depth`` chunks are
reordered by their best unit's probability of answering (the feature scorer
of ``answering/``) and by the reader's probability that the chunk holds
the answer (``answering/reader/``: its best span over "no answer"), and
nDCG@10, R@10 and hit@5 (Success@5) of the three orders are computed with
ir-measures on the same candidates, in one run, side by side. ``--beir``
loads the dataset as its own collection first (``load_beir``; slow the
first time). The reorder is only worth wiring into search if it beats the
hybrid order on both sets (issue: "keep it only if it measures better").
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "nalarku_site.settings")
os.environ.setdefault("NALARKU_LOG_LEVEL", "WARNING")

import django  # noqa: E402

django.setup()

import ir_measures  # noqa: E402
from ir_measures import R, Success, nDCG  # noqa: E402

from answering.answerer import evidence_score  # noqa: E402
from answering.generators import generator_from_config  # noqa: E402
from answering.reader.windows import passage_of  # noqa: E402
from retrieval.search import search  # noqa: E402
from review.evaluation.sets import Case, cases_from_beir, cases_from_set  # noqa: E402
from review.models import EvalSet  # noqa: E402

MEASURES = [nDCG @ 10, R @ 10, Success @ 5]


def cases_and_collection(args: argparse.Namespace) -> tuple[list[Case], str]:
    if args.beir:
        from retrieval.beir import judged_subset, load_corpus, read_qrels, read_queries

        collection = f"beir-{args.beir.name}"
        loaded = load_corpus(directory=args.beir, collection=collection)
        print(f"{collection}: {loaded.passages} passages ({loaded.indexed} indexed now)", flush=True)
        queries, qrels = judged_subset(read_queries(args.beir), read_qrels(args.beir, args.split), loaded.keys.values())
        cases = cases_from_beir(queries=queries, qrels=qrels, collection=collection)
        return (cases[: args.limit] if args.limit else cases), collection
    eval_set = EvalSet.objects.filter(name=args.set).first()
    if eval_set is None:
        sys.exit(f"set {args.set!r} not found (manage.py eval_import demo/eval.jsonl --name demo)")
    cases = cases_from_set(eval_set)
    return (cases[: args.limit] if args.limit else cases), eval_set.collection


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--set", default="demo", help="stored evaluation set (default demo)")
    parser.add_argument("--beir", type=Path, help="a BEIR directory instead of a stored set")
    parser.add_argument("--split", default="dev", help="BEIR qrels split (default dev)")
    parser.add_argument("--limit", type=int, help="first N judged questions only")
    parser.add_argument("--depth", type=int, default=20, help="hybrid candidates reordered (default 20)")
    parser.add_argument(
        "--reader", default="reader", help="generator whose reader orders (default: the default reader)"
    )
    args = parser.parse_args()
    cases, collection = cases_and_collection(args)
    reader = generator_from_config(args.reader).reader()
    qrels = [ir_measures.Qrel(c.case_id, unit, 1) for c in cases for unit in c.gold]
    runs: dict[str, list] = {"hybrid": [], "hybrid + scorer order": [], f"hybrid + {reader.name} order": []}
    seconds, reading_seconds = [], []
    for n, case in enumerate(cases, 1):
        response = search(
            case.question,
            case.reader,
            k=args.depth,
            pool=max(50, args.depth),
            collection=collection,
            expand=False,
            include_superseded=case.as_of is not None,
        )
        hits = response.results
        started = time.perf_counter()
        scored = evidence_score(response.query, hits, vector=response.vector, collection=collection)
        seconds.append(time.perf_counter() - started)
        best: dict[str, float] = {}
        for unit in scored.units:
            best.setdefault(unit.hit.evidence_id, unit.probability)
        reordered = sorted(hits, key=lambda h: -best.get(h.evidence_id, 0.0))  # stable: ties keep hybrid order
        started = time.perf_counter()
        readings = reader.read(response.query, [passage_of(h.title, h.heading_path, h.text)[0] for h in hits])
        reading_seconds.append(time.perf_counter() - started)
        read = {h.evidence_id: r.probability for h, r in zip(hits, readings, strict=True)}
        by_reader = sorted(hits, key=lambda h: -read[h.evidence_id])
        for name, order in zip(runs, (hits, reordered, by_reader), strict=True):
            units = list(dict.fromkeys(case.unit(h) for h in order))[:10]
            runs[name] += [ir_measures.ScoredDoc(case.case_id, u, float(10 - i)) for i, u in enumerate(units)]
        if n % 50 == 0:
            print(f"  {n}/{len(cases)}", flush=True)
    print(
        f"{len(cases)} questions, collection {collection}, depth {args.depth}; "
        f"scoring p50 {statistics.median(seconds) * 1000:.0f} ms, reading p50 {statistics.median(reading_seconds) * 1000:.0f} ms"
    )
    base = None
    for name, scored_docs in runs.items():
        values = ir_measures.calc_aggregate(MEASURES, qrels, scored_docs)
        figures = {str(m): values[m] for m in MEASURES}
        base = base or figures
        ratio = figures["nDCG@10"] / base["nDCG@10"] if base["nDCG@10"] else float("nan")
        print(
            f"  {name:<28} nDCG@10 {figures['nDCG@10']:.4f}  R@10 {figures['R@10']:.4f}  "
            f"hit@5 {figures['Success@5']:.4f}  nDCG ratio {ratio:.3f}"
        )


if __name__ == "__main__":
    main()
