"""Retrieval quality on public BEIR datasets: our three search modes next to
two references computed in the same run over the same passages.

    uv run --frozen python bench/beir_quality.py [--datasets DIR ...] [--limit N]
        [--variant rrf_k=10 --variant vector_weight=3 --variant mode=lexical,per_term=5000 ...]

For each dataset (default: tydiqa-goldp-id, tydiqa-goldp-id-distractors and
SciFact's test split from data/) the corpus is loaded through
``retrieval.beir.load_corpus`` (the normal submit → index services; a re-run
reuses what is indexed and the embedding cache, so only the first run embeds:
about 2, 12 and 47 minutes on 2 cores) and every judged query is run through

- ``search(mode="lexical" | "vector" | "hybrid", reader=None)``: chunks come
  back, a document scores as its best chunk, so chunks are mapped to
  documents (first occurrence wins) from k = 100, pool = 100;
- bm25s: BM25 (k1 1.2, b 0.75, Lucene IDF, as ours) over each passage's
  title + text as our index sees them (the id when the title is blank);
  bm25s' regex tokenizer ``\\w\\w+``, lower-cased, no stop words, no stemmer;
- numpy-exact: exact cosine over the very vectors stored in ChunkEmbedding,
  a document scoring as its best chunk, the query embedded by the same
  provider (``embed_query``).

nDCG@10 and R@10 come from ``ir_measures``. The goals checked: hybrid beats
both its arms on nDCG@10; the lexical arm is within 0.02 nDCG@10 of bm25s.
The hybrid row is RRF (k 60, equal weights) whatever NALARKU_FUSION says;
--variant adds rows with other fusions and settings. Where a corpus holds
exact duplicates of judged passages (the distractor set holds 102), figures
with those duplicates judged relevant too are printed next to the official
ones ("dup"). Reference rows ("ref: …") fuse bm25s and numpy-exact per
document, to tell fusion effects from chunking and approximation effects.

Lexical statistics (IDF, average length) are per database, so each dataset
runs in a child process with its own data directory,
var/bench-beir/<dataset>/ (<dataset>-limit<N>/ with --limit; set before Django starts); the parent collects the
JSON each child prints, prints the tables and writes var/bench-beir/report.json.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Iterable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATASETS = ROOT / "data"
DEFAULT_DATASETS = [DATASETS / "tydiqa-goldp-id", DATASETS / "tydiqa-goldp-id-distractors", DATASETS / "scifact"]
DATA_ROOT = ROOT / "var" / "bench-beir"
RESULT_PREFIX = "BEIR-RESULT "
MODES = ("lexical", "vector", "hybrid")
SYSTEMS = (*MODES, "bm25s", "numpy-exact")
DEPTH = 10  # the cut-off of every metric
RUN_DEPTH = 100  # documents kept per query and run (the fusion references fuse these)


# --- parent ---------------------------------------------------------------------------


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "--datasets",
        nargs="+",
        type=Path,
        default=DEFAULT_DATASETS,
        metavar="DIR",
        help="BEIR dataset folders, run in this order (default: the three in %(default)s)".replace(
            "%(default)s", str(DATASETS)
        ),
    )
    parser.add_argument(
        "--limit",
        type=int,
        metavar="N",
        help="load only the first N passages of each corpus; queries are restricted to "
        "those with a relevant passage among them",
    )
    parser.add_argument("--split", help="qrels split (default: test if present, else dev, else the first)")
    parser.add_argument("--pool", type=int, default=100, help="candidates per arm (default %(default)s)")
    parser.add_argument(
        "--rrf-k",
        type=int,
        default=60,
        help="RRF k of the hybrid row, which fuses by RRF with equal arm weights (default %(default)s)",
    )
    parser.add_argument(
        "--variant",
        action="append",
        default=[],
        metavar="NAME=VALUE[,NAME=VALUE]",
        help="extra rows with other search() settings: fusion (rrf|convex), rrf_k, "
        "lexical_weight, vector_weight, pool, per_term and mode (default hybrid), e.g. "
        "rrf_k=10 or vector_weight=3 or fusion=convex,lexical_weight=0.3,vector_weight=0.7 "
        "or mode=lexical,per_term=5000 (repeatable)",
    )
    parser.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    return parser.parse_args(argv)


def main() -> None:
    args = parse_args()
    if args.child:
        child(args)
        return
    reports = []
    for directory in args.datasets:
        directory = directory.resolve()
        if not directory.is_dir():
            sys.exit(f"not a dataset folder: {directory}")
        # A limited run gets a database of its own: the full collection would
        # still be searched (and weigh in the IDF) in the dataset's database.
        data_dir = DATA_ROOT / (directory.name + (f"-limit{args.limit}" if args.limit else ""))
        env = {**os.environ, "NALARKU_DATA_DIR": str(data_dir), "NALARKU_LOG_LEVEL": "WARNING"}
        command = [
            sys.executable,
            str(Path(__file__).resolve()),
            "--child",
            str(directory),
            "--pool",
            str(args.pool),
            "--rrf-k",
            str(args.rrf_k),
        ]
        command += [f"--variant={v}" for v in args.variant]
        command += ["--limit", str(args.limit)] if args.limit else []
        command += ["--split", args.split] if args.split else []
        print(f"== {directory.name}  (data dir {data_dir})", flush=True)
        process = subprocess.run(command, env=env, stdout=subprocess.PIPE, text=True)  # stderr: progress bars
        result = None
        for line in process.stdout.splitlines():
            if line.startswith(RESULT_PREFIX):
                result = json.loads(line.removeprefix(RESULT_PREFIX))
            else:
                print(line)
        if process.returncode or result is None:
            sys.exit(f"{directory.name}: child failed (exit {process.returncode})")
        print_dataset(result)
        reports.append(result)
    print_summary(reports)
    if reports:
        print(
            f"bm25s reference: {reports[0]['bm25s_settings']}; our lexical arm: to_tsvector('indonesian'), "
            "BM25 k1 1.2, b 0.75, top 500 postings per term"
        )
    DATA_ROOT.mkdir(parents=True, exist_ok=True)
    (DATA_ROOT / "report.json").write_text(json.dumps(reports, indent=2), encoding="utf-8")
    print(f"\nreport: {DATA_ROOT / 'report.json'}")


def goals(result: dict, metrics: str = "metrics") -> dict[str, tuple[bool, str]]:
    ndcg = {name: m["nDCG@10"] for name, m in result[metrics].items()}
    best_arm = max(ndcg["lexical"], ndcg["vector"])
    gap = ndcg["lexical"] - ndcg["bm25s"]
    return {
        "hybrid > both arms": (
            ndcg["hybrid"] > best_arm,
            f"{ndcg['hybrid']:.3f} vs {ndcg['lexical']:.3f} / {ndcg['vector']:.3f}",
        ),
        "lexical ≥ bm25s − 0.02": (gap >= -0.02, f"{gap:+.3f}"),
    }


def print_dataset(result: dict) -> None:
    load = result["load"]
    dups = result["duplicates_judged"]
    print(
        f"{result['dataset']} ({result['split']}): {result['queries']} queries, {result['corpus']} passages → "
        f"{result['chunks']} chunks; load {load['seconds']:.1f} s in this run "
        f"({load['indexed']} indexed, {load['embedded']} chunks embedded, {load['unchanged']} unchanged)"
    )
    header = f"  {'system':36}{'nDCG@10':>9}{'R@10':>8}"
    header += f"{'nDCG dup':>10}{'R dup':>8}" if dups else ""
    print(header + f"{'sql p50':>10}{'p95 ms':>8}")
    for name, metrics in result["metrics"].items():
        latency = result["latency_ms"].get(name)
        line = f"  {name:36}{metrics['nDCG@10']:>9.4f}{metrics['R@10']:>8.4f}"
        if dups:
            twin = result["metrics_duplicates_judged"][name]
            line += f"{twin['nDCG@10']:>10.4f}{twin['R@10']:>8.4f}"
        print(line + (f"{latency['p50']:>10.1f}{latency['p95']:>8.1f}" if latency else ""))
    if dups:
        print(
            f"  'dup' columns: {dups} exact duplicates of judged passages also judged relevant "
            "(the official qrels mark them not relevant)"
        )
    embed = result["embed_ms_p50"]
    print(
        "  query embedding p50 "
        + (f"{embed:.1f} ms" if embed is not None else "n/a (vectors stored by a previous run)")
        + "; once per query, shared by vector, hybrid and numpy-exact"
    )
    for label, metrics in (("", "metrics"), (" (dup)", "metrics_duplicates_judged")):
        if label and not dups:
            continue
        for goal, (held, detail) in goals(result, metrics).items():
            print(f"  goal{label} {goal}: {'yes' if held else 'NO'} ({detail})")
    if result["degraded"]:
        print(f"  degraded searches: {result['degraded']}")
    print()


def print_summary(reports: list[dict]) -> None:
    if not reports:
        return
    print(
        f"{'nDCG@10 / R@10':60}" + "  ".join(f"{s:>13}" for s in SYSTEMS) + "   goals: hybrid>arms, lexical≥bm25s−0.02"
    )
    for result in reports:
        for label, metrics in (("", "metrics"), (" dup-judged", "metrics_duplicates_judged")):
            if label and not result["duplicates_judged"]:
                continue
            cells = "  ".join(f"{result[metrics][s]['nDCG@10']:.3f}/{result[metrics][s]['R@10']:.3f}" for s in SYSTEMS)
            held = " ".join("yes" if ok else "NO" for ok, _ in goals(result, metrics).values())
            name = f"{result['dataset']}{label} ({result['queries']} q, {result['corpus']} docs)"
            print(f"{name:60}{cells}   {held}")
    print("search SQL p50 / p95 ms (lexical, vector, hybrid):")
    for r in reports:
        print(
            f"  {r['dataset']:30}"
            + "   ".join(f"{m} {r['latency_ms'][m]['p50']:.1f} / {r['latency_ms'][m]['p95']:.1f}" for m in MODES)
        )


# --- child: one dataset, one database -----------------------------------------------


def child(args: argparse.Namespace) -> None:
    sys.path.insert(0, str(ROOT))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "nalarku_site.settings")
    import django

    django.setup()

    from django.core.management import call_command
    from tqdm import tqdm

    from retrieval import beir

    directory: Path = args.child
    split = args.split or next(
        (s for s in ("test", "dev") if s in beir.splits(directory)), (beir.splits(directory) or ["test"])[0]
    )
    collection = f"beir-{directory.name}"
    call_command("migrate", verbosity=0)

    def progress(items: Iterable, desc: str, total: int) -> Iterable:
        return tqdm(
            items,
            desc=f"{directory.name}: {desc}",
            total=total,
            unit="passage",
            file=sys.stderr,
            disable=total < 2,
            mininterval=2,
        )

    loaded = beir.load_corpus(directory=directory, collection=collection, limit=args.limit, progress=progress)
    if loaded.failed:
        print(f"warning: {len(loaded.failed)} passages failed to index, e.g. {loaded.failed[:3]}")
    passages = beir.read_corpus(directory, limit=args.limit)
    queries, qrels = beir.judged_subset(
        beir.read_queries(directory), beir.read_qrels(directory, split), [p.id for p in passages]
    )
    qrels_dup, extra = judge_duplicates(qrels, passages)
    evaluation = Evaluation(collection=collection, passages=passages, doc_ids=loaded.keys, queries=queries)

    runs: dict[str, dict[str, list[str]]] = {}
    latency: dict[str, dict[str, float]] = {}
    # The plain hybrid row is RRF with equal weights whatever NALARKU_FUSION
    # says; other fusions are --variant rows.
    settings = {"pool": args.pool, "fusion": "rrf", "rrf_k": args.rrf_k, "lexical_weight": 1.0, "vector_weight": 1.0}
    for mode in MODES:
        runs[mode], latency[mode] = evaluation.ours(mode=mode, **settings)
    for text in args.variant:
        variant = parse_variant(text)
        mode = str(variant.pop("mode", "hybrid"))
        short = {"lexical_weight": "lex_w", "vector_weight": "vec_w"}
        name = f"{mode} " + ",".join(
            str(v) if k == "fusion" else f"{short.get(k, k)}={v:g}" for k, v in variant.items()
        )
        runs[name], latency[name] = evaluation.ours(mode=mode, **{**settings, **variant})
    bm25 = evaluation.bm25s()
    cosine = evaluation.exact()
    runs["bm25s"], runs["numpy-exact"] = ({q: list(d) for q, d in run.items()} for run in (bm25, cosine))
    runs["ref: bm25s over our chunks"] = {q: list(d) for q, d in evaluation.bm25s(chunks=True).items()}
    for rrf_k in (60, 10):
        runs[f"ref: RRF k={rrf_k} of bm25s+exact"] = rrf([runs["bm25s"], runs["numpy-exact"]], rrf_k)
    for alpha in (0.5, 0.7):
        runs[f"ref: convex {alpha}·exact+{1 - alpha:.1f}·bm25s"] = convex(cosine, bm25, alpha)

    result = {
        "dataset": directory.name,
        "split": split,
        "collection": collection,
        "queries": len(queries),
        "corpus": len(passages),
        "chunks": evaluation.chunk_count,
        "limit": args.limit,
        "settings": settings,
        "load": {
            "seconds": round(loaded.seconds, 1),
            "indexed": loaded.indexed,
            "embedded": loaded.embedded,
            "unchanged": loaded.unchanged,
            "failed": len(loaded.failed),
        },
        "metrics": {name: evaluate(qrels, run) for name, run in runs.items()},
        "duplicates_judged": extra,
        "metrics_duplicates_judged": {name: evaluate(qrels_dup, run) for name, run in runs.items()},
        "latency_ms": latency,
        "embed_ms_p50": evaluation.embed_ms_p50(),
        "degraded": evaluation.degraded,
        "bm25s_settings": "bm25s Tokenizer(lower=True, splitter=r'(?u)\\b\\w\\w+\\b', stopwords=None, "
        "stemmer=None); BM25(method='lucene', k1=1.2, b=0.75)",
    }
    print(RESULT_PREFIX + json.dumps(result), flush=True)


def parse_variant(text: str) -> dict[str, str | float | int]:
    allowed = {
        "mode": str,
        "fusion": str,
        "rrf_k": int,
        "lexical_weight": float,
        "vector_weight": float,
        "pool": int,
        "per_term": int,
    }
    out: dict[str, str | float | int] = {}
    for part in text.split(","):
        name, _, value = (p.strip() for p in part.partition("="))
        if name not in allowed:
            sys.exit(f"--variant: unknown setting {name!r} (one of {', '.join(allowed)})")
        if name == "mode" and value not in MODES:
            sys.exit(f"--variant: mode must be one of {', '.join(MODES)}")
        if name == "fusion" and value not in ("rrf", "convex"):
            sys.exit("--variant: fusion must be rrf or convex")
        out[name] = allowed[name](value)
    return out


class CachedQueries:
    """The configured provider, embedding each query once: vector, hybrid and
    numpy-exact then see the very same query vector. Query vectors are kept
    in the dataset's data directory too, so a re-run (another --variant)
    embeds nothing."""

    def __init__(self, store: Path) -> None:
        import numpy as np

        from retrieval.embeddings import provider_from_config

        self.inner = provider_from_config()
        for name in ("provider", "model", "version", "dimensions"):
            setattr(self, name, getattr(self.inner, name))
        self.store = store
        self.stored: dict[str, object] = dict(np.load(store)) if store.is_file() else {}
        self.vectors: dict[str, object] = {}
        self.times_ms: list[float] = []

    def _key(self, text: str) -> str:
        material = "\x1f".join([self.provider, self.model, self.version, str(self.dimensions), text])
        return hashlib.sha256(material.encode("utf-8")).hexdigest()[:24]

    def embed_passages(self, texts):  # noqa: ANN001, ANN201
        return self.inner.embed_passages(texts)

    def embed_query(self, text: str):  # noqa: ANN201
        if text not in self.vectors:
            key = self._key(text)
            if key not in self.stored:
                started = time.perf_counter()
                self.stored[key] = self.inner.embed_query(text)
                self.times_ms.append((time.perf_counter() - started) * 1000)
            self.vectors[text] = self.stored[key]
        return self.vectors[text]

    def save(self) -> None:
        import numpy as np

        if self.times_ms:
            np.savez(self.store, **self.stored)


class Evaluation:
    def __init__(self, *, collection: str, passages: list, doc_ids: dict[str, str], queries: dict[str, str]):
        self.collection, self.passages, self.doc_ids, self.queries = collection, passages, doc_ids, queries
        from django.conf import settings
        from tqdm import tqdm

        self.provider = CachedQueries(Path(settings.DATA_DIR) / "query-vectors.npz")
        self.degraded: dict[str, int] = {}
        for text in tqdm(queries.values(), desc="embedding queries", unit="query", file=sys.stderr, mininterval=2):
            self.provider.embed_query(text)
        self.provider.save()
        from retrieval.models import Chunk

        self.chunk_count = Chunk.objects.filter(document__collection=collection, revision__status="active").count()

    def embed_ms_p50(self) -> float | None:
        """None: every query vector came from the previous run's store."""
        return round(statistics.median(self.provider.times_ms), 2) if self.provider.times_ms else None

    def ours(self, *, mode: str, pool: int, **options: float | str) -> tuple[dict, dict]:
        """Top documents per query from search() (no reranker, no graph
        expansion: the arms and their fusion only), and the SQL latency."""
        from retrieval.search import search

        run, sql_ms = {}, []
        k = min(100, pool)
        for query_id, text in self.queries.items():
            response = search(
                text,
                None,
                mode=mode,
                k=k,
                pool=pool,
                collection=self.collection,
                provider=self.provider,
                rerank=False,
                expand=False,
                **options,
            )
            if response.mode != mode or response.degraded:
                key = f"{mode}: {response.mode} {response.degraded}"
                self.degraded[key] = self.degraded.get(key, 0) + 1
            sql_ms.append(response.timings_ms["sql"])
            run[query_id] = distinct(self.doc_ids[h.document] for h in response.results)
        ordered = sorted(sql_ms)
        return run, {
            "p50": round(statistics.median(ordered), 2),
            "p95": round(ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))], 2),
        }

    def bm25s(self, *, chunks: bool = False) -> dict[str, dict[str, float]]:
        """BM25 over whole passages (title + text), or over our chunks as our
        lexical index sees them (heading path + text), best chunk per document."""
        import bm25s
        from bm25s.tokenization import Tokenizer

        if chunks:
            from retrieval.models import Chunk

            rows = list(
                Chunk.objects.filter(document__collection=self.collection, revision__status="active")
                .order_by("pk")
                .values_list("document__key", "heading_path", "text")
            )
            owners = [self.doc_ids[key] for key, _, _ in rows]
            texts = [f"{heading}\n{text}" for _, heading, text in rows]
        else:
            owners = [p.id for p in self.passages]
            texts = [f"{p.title or p.id}\n{p.text}" for p in self.passages]
        tokenizer = Tokenizer(lower=True, stopwords=None, stemmer=None)
        retriever = bm25s.BM25(method="lucene", k1=1.2, b=0.75)
        retriever.index(
            tokenizer.tokenize(texts, update_vocab=True, return_as="ids", show_progress=False), show_progress=False
        )
        query_ids = list(self.queries)
        tokens = tokenizer.tokenize(
            [self.queries[q] for q in query_ids], update_vocab=False, return_as="ids", show_progress=False
        )
        depth = min(len(texts), 3 * RUN_DEPTH if chunks else RUN_DEPTH)
        found, scores = retriever.retrieve(tokens, k=depth, show_progress=False)
        out: dict[str, dict[str, float]] = {}
        for n, query_id in enumerate(query_ids):
            best: dict[str, float] = {}
            for i, score in zip(found[n], scores[n], strict=True):
                if score > 0 and owners[i] not in best and len(best) < RUN_DEPTH:
                    best[owners[i]] = float(score)
            out[query_id] = best
        return out

    def exact(self) -> dict[str, dict[str, float]]:
        """Exact cosine over the stored chunk vectors, best chunk per document."""
        import numpy as np

        from retrieval.models import ChunkEmbedding, EmbeddingSpace

        space = EmbeddingSpace.objects.get(is_active=True)
        rows = list(
            ChunkEmbedding.objects.filter(
                space=space, chunk__document__collection=self.collection, chunk__revision__status="active"
            )
            .order_by("chunk__document__key", "chunk_id")
            .values_list("chunk__document__key", "embedding")
        )
        keys = [key for key, _ in rows]
        matrix = np.asarray([np.asarray(vector, dtype=np.float32) for _, vector in rows])
        matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
        starts = [n for n, key in enumerate(keys) if n == 0 or key != keys[n - 1]]
        owners = [self.doc_ids[keys[n]] for n in starts]
        query_ids = list(self.queries)
        vectors = np.asarray([self.provider.embed_query(self.queries[q]) for q in query_ids], dtype=np.float32)
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        by_document = np.maximum.reduceat(vectors @ matrix.T, starts, axis=1)
        top = np.argsort(-by_document, axis=1, kind="stable")[:, :RUN_DEPTH]
        return {q: {owners[i]: float(by_document[n, i]) for i in top[n]} for n, q in enumerate(query_ids)}


def distinct(items: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(items))


def rrf(runs: list[dict[str, list[str]]], k: int) -> dict[str, list[str]]:
    """Reciprocal rank fusion of document rankings (a reference, over the top
    100 documents of each)."""
    fused = {}
    for query_id in runs[0]:
        scores: dict[str, float] = {}
        for run in runs:
            for rank, doc in enumerate(run.get(query_id, []), start=1):
                scores[doc] = scores.get(doc, 0.0) + 1 / (k + rank)
        fused[query_id] = sorted(scores, key=lambda d: (-scores[d], d))[:RUN_DEPTH]
    return fused


def judge_duplicates(qrels: dict[str, dict[str, int]], passages: list) -> tuple[dict[str, dict[str, int]], int]:
    """Judgments extended to exact duplicates (same text up to whitespace and
    case) of judged passages, and how many such judgments were added.

    tydiqa-goldp-id-distractors holds 102 gold passages twice (``tydi-id-p21``
    and ``idkmrc-p4143``), the copy judged not relevant, so every system
    loses whenever tie-breaking or a one-token length difference puts the
    copy first. Both figures are reported; this one measures retrieval."""

    def norm(text: str) -> str:
        return " ".join(text.split()).lower()

    same: dict[str, list[str]] = {}
    for passage in passages:
        same.setdefault(norm(passage.text), []).append(passage.id)
    text_of = {p.id: norm(p.text) for p in passages}
    extended, added = {}, 0
    for query_id, judged in qrels.items():
        extended[query_id] = dict(judged)
        for doc, grade in judged.items():
            for twin in same.get(text_of.get(doc, ""), []):
                if twin not in extended[query_id]:
                    extended[query_id][twin] = grade
                    added += 1
    return extended, added


def convex(
    vector: dict[str, dict[str, float]], lexical: dict[str, dict[str, float]], alpha: float
) -> dict[str, list[str]]:
    """Convex combination of min-max-normalised scores (each list's top 100;
    a document missing from a list scores 0 there), as in docs/design.md."""

    def normalised(scores: dict[str, float]) -> dict[str, float]:
        if not scores:
            return {}
        low, high = min(scores.values()), max(scores.values())
        return {d: (s - low) / (high - low) if high > low else 1.0 for d, s in scores.items()}

    fused = {}
    for query_id in vector:
        v, b = normalised(vector[query_id]), normalised(lexical.get(query_id, {}))
        scores = {d: alpha * v.get(d, 0.0) + (1 - alpha) * b.get(d, 0.0) for d in v.keys() | b.keys()}
        fused[query_id] = sorted(scores, key=lambda d: (-scores[d], d))[:RUN_DEPTH]
    return fused


def evaluate(qrels: dict[str, dict[str, int]], run: dict[str, list[str]]) -> dict[str, float]:
    """nDCG@10 and R@10 by ir_measures, over every judged query (a query with
    no results counts as 0, not as missing)."""
    import ir_measures
    from ir_measures import R, nDCG

    scored = {
        q: {doc: float(RUN_DEPTH * 10 - rank) for rank, doc in enumerate(run.get(q, []))} or {"__none__": 0.0}
        for q in qrels
    }
    values = ir_measures.calc_aggregate([nDCG @ DEPTH, R @ DEPTH], qrels, scored)
    return {"nDCG@10": round(values[nDCG @ DEPTH], 4), "R@10": round(values[R @ DEPTH], 4)}


if __name__ == "__main__":
    main()
