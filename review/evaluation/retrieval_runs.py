"""Retrieval runs: every search mode over the same cases with the same k,
measures from ``ir_measures`` (not hand-written formulas), each run stored
with its configuration and per-query candidates, and two runs compared
query by query."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import ir_measures
from django.conf import settings
from django.db.models import Max, Sum
from ir_measures import RR, P, R, Success, nDCG

from retrieval.chunking import CHUNKER_VERSION
from retrieval.in_force import hits_as_of
from retrieval.models import Chunk, EmbeddingSpace, LexicalStats, Revision
from retrieval.search import search
from review.evaluation.sets import Case
from review.models import EvalResult, EvalRun, EvalSet

MEASURES = [nDCG @ 10, R @ 5, R @ 10, P @ 10, RR @ 10, Success @ 10]
MODES = ("lexical", "vector", "hybrid", "hybrid+rerank")


# --- runs ------------------------------------------------------------------------------


def index_state(collection: str) -> dict:
    chunks = Chunk.objects.filter(document__collection=collection, revision__status="active")
    stats = (
        LexicalStats.objects.filter(collection=collection)
        .values("chunk_count", "total_length", "weights_avglen")
        .first()
    )
    space = EmbeddingSpace.objects.filter(is_active=True).first()
    return {
        "collection": collection,
        "active_chunks": chunks.count(),
        "tokens": chunks.aggregate(n=Sum("token_count"))["n"] or 0,
        "last_indexed_at": (
            Revision.objects.filter(document__collection=collection).aggregate(t=Max("indexed_at"))["t"] or ""
        ).__str__(),
        "lexical_stats": stats or {},
        "embedding_space": {
            "id": space.pk,
            "provider": space.provider,
            "model": space.model,
            "version": space.version,
            "dimensions": space.dimensions,
        }
        if space
        else None,
    }


def retrieval_evaluate(
    *,
    cases: list[Case],
    modes: Iterable[str],
    k: int = 10,
    pool: int = 50,
    fusion: str | None = None,
    rrf_k: int | None = None,
    collection: str = "editorial",
    label: str = "",
    eval_set: EvalSet | None = None,
    dataset: str = "",
    progress: Callable[[int], None] | None = None,
) -> EvalRun:
    """Run every case in every mode with the same k, store the run."""
    modes = list(modes)
    reranker = settings.NALARKU_RERANK.get("provider") or None
    fusion = fusion or settings.NALARKU_FUSION["method"]
    fusion_weights = {**settings.NALARKU_FUSION[fusion], **({"rrf_k": rrf_k} if rrf_k else {})}
    config = {
        "k": k,
        "pool": pool,
        "fusion": fusion,
        "fusion_weights": fusion_weights,
        "modes": modes,
        "chunker_version": CHUNKER_VERSION,
        "chunk_max_tokens": settings.NALARKU_CHUNK_MAX_TOKENS,
        "reranker": reranker,
        "rerank_threshold": settings.NALARKU_RERANK.get("threshold"),
        "rerank_depth": settings.NALARKU_RERANK.get("depth"),
        "index": index_state(collection),
        "cases": len(cases),
        "measures": [str(m) for m in MEASURES],
    }
    run = EvalRun.objects.create(kind="retrieval", label=label, eval_set=eval_set, dataset=dataset, config=config)
    qrels = [ir_measures.Qrel(c.case_id, unit, 1) for c in cases for unit in c.gold]
    results, metrics = [], {}
    for mode in modes:
        if mode == "hybrid+rerank" and not reranker:
            metrics[mode] = {"skipped": "tidak ada reranker yang dikonfigurasi (NALARKU_RERANK_PROVIDER)"}
            continue
        scored, latencies, ranked_by_case = [], {}, {}
        for case in cases:
            started = time.perf_counter()
            ranked = _ranked_units(case, mode=mode, k=k, pool=pool, fusion=fusion, rrf_k=rrf_k, collection=collection)
            latencies[case.case_id] = (time.perf_counter() - started) * 1000
            ranked_by_case[case.case_id] = ranked
            scored += [ir_measures.ScoredDoc(case.case_id, unit, float(k - i)) for i, unit in enumerate(ranked)]
            if progress:
                progress(1)
        per_query = _per_query(qrels, scored, [c.case_id for c in cases])
        metrics[mode] = _aggregate(per_query, cases, latencies)
        results += [
            EvalResult(
                run=run,
                case_id=c.case_id,
                mode=mode,
                category=c.category,
                candidates=ranked_by_case[c.case_id],
                measures=per_query[c.case_id],
                latency_ms=round(latencies[c.case_id], 2),
            )
            for c in cases
        ]
    EvalResult.objects.bulk_create(results, batch_size=1000)
    run.metrics = metrics
    run.save(update_fields=["metrics"])
    return run


def _ranked_units(
    case: Case, *, mode: str, k: int, pool: int, fusion: str, rrf_k: int | None, collection: str
) -> list[str]:
    """The first k distinct units (document revisions, documents or chunks)
    of the mode's ranking; more chunks are read so k units remain after
    chunks of one unit collapse."""
    chunks = min(100, max(3 * k, k))
    response = search(
        case.question,
        case.reader,
        k=chunks,
        pool=max(pool, chunks),
        fusion=fusion,
        rrf_k=rrf_k,
        mode="hybrid" if mode == "hybrid+rerank" else mode,
        rerank=mode == "hybrid+rerank",
        include_superseded=case.as_of is not None,
        expand=False,
        collection=collection,
    )
    hits = hits_as_of(response.results, case.as_of) if case.as_of else response.results
    return list(dict.fromkeys(case.unit(h) for h in hits))[:k]


def _per_query(qrels: list, scored: list, case_ids: list[str]) -> dict[str, dict[str, float]]:
    """Per-query measures; a query with nothing retrieved scores 0 (the
    library leaves such queries out, which would inflate the mean)."""
    values = {cid: {str(m): 0.0 for m in MEASURES} for cid in case_ids}
    for metric in ir_measures.iter_calc(MEASURES, qrels, scored):
        values[metric.query_id][str(metric.measure)] = round(float(metric.value), 6)
    return values


def _aggregate(per_query: dict[str, dict[str, float]], cases: list[Case], latencies: dict[str, float]) -> dict:
    def mean(ids: list[str]) -> dict[str, float]:
        return {str(m): round(statistics.fmean(per_query[i][str(m)] for i in ids), 4) for m in MEASURES}

    everything = [c.case_id for c in cases]
    by_category: dict[str, list[str]] = {}
    for case in cases:
        by_category.setdefault(case.category, []).append(case.case_id)
    ordered = sorted(latencies.values())
    return {
        "all": mean(everything),
        "queries": len(everything),
        "by_category": {cat: {**mean(ids), "queries": len(ids)} for cat, ids in sorted(by_category.items())},
        "latency_ms": {
            "p50": round(statistics.median(ordered), 1),
            "p95": round(ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))], 1),
        },
    }


# --- comparison --------------------------------------------------------------------------


@dataclass
class QueryDelta:
    case_id: str
    mode: str
    before: float
    after: float

    @property
    def delta(self) -> float:
        return round(self.after - self.before, 4)


def runs_compare(*, a: EvalRun, b: EvalRun, measure: str = "nDCG@10") -> dict[str, list[QueryDelta]]:
    """Per mode, every query measured in both runs with its change."""
    before = {(r.mode, r.case_id): r.measures.get(measure, 0.0) for r in a.results.all()}
    out: dict[str, list[QueryDelta]] = {}
    for r in b.results.order_by("mode", "case_id"):
        if (r.mode, r.case_id) in before:
            out.setdefault(r.mode, []).append(
                QueryDelta(r.case_id, r.mode, before[(r.mode, r.case_id)], r.measures.get(measure, 0.0))
            )
    return out
