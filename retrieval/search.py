"""Hybrid search: BM25 over postings + pgvector HNSW, fused by reciprocal
rank fusion, in one SQL round trip, under the reader's permissions.

The statement is raw SQL because the ORM cannot express LATERAL top-M reads
per query term, the FULL OUTER JOIN of two ranked arms, or the vector cast
that matches each space's partial HNSW index. Both arms filter by
permission and revision status inside SQL (never after fetching), ranks come
from ROW_NUMBER (ties break the same way every time), and chunk text is only
read for the fused top of the pool.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache

import numpy as np
from django.conf import settings
from django.contrib.auth.base_user import AbstractBaseUser
from django.contrib.auth.models import AnonymousUser
from django.db import connections

from nalarku_site.metrics import SEARCH_STAGE_SECONDS, stages_observe
from nalarku_site.replicas import read_alias

from . import graph
from .embeddings import EmbeddingProvider, embed_query_cached, provider_from_config
from .hits import Hit, SearchResponse
from .http import ServiceError
from .models import EmbeddingSpace
from .repeats import repeats_collapsed
from .rerank import Reranker, RerankError, reranker_from_config

logger = logging.getLogger(__name__)

MODES = ("hybrid", "lexical", "vector")
FUSIONS = ("rrf", "convex")

# The permission predicate of ``Document.objects.visible_to`` (tests keep the
# two in agreement), for a chunk aliased ``c``.
_VISIBLE_DOCUMENTS = """
        SELECT d.id FROM retrieval_document d
        WHERE d.collection = %(collection)s
          AND (%(see_all)s OR d.public OR d.id IN (
                SELECT dg.document_id FROM retrieval_document_groups dg
                JOIN auth_user_groups ug ON ug.group_id = dg.group_id
                WHERE ug.user_id = %(user_id)s))
"""
_VISIBLE = f"""
    c.document_id IN ({_VISIBLE_DOCUMENTS})
    AND EXISTS (SELECT 1 FROM retrieval_revision r
                WHERE r.id = c.revision_id AND r.status = ANY(%(statuses)s))
"""
# The same predicate as the set of revisions whose chunks the reader may see
# (a chunk's document is its revision's): computed once per query, so the
# lexical arm's check per posting is one primary-key lookup and a hash probe,
# whatever the size of the archive. (Written per posting as the predicate
# above, the planner chose a hash join over every document and revision for
# each posting when those tables are small: 10k chunks were slower than 100k.)
_VISIBLE_REVISIONS = f"""
    SELECT r.id FROM retrieval_revision r
    WHERE r.status = ANY(%(statuses)s) AND r.document_id IN ({_VISIBLE_DOCUMENTS})
"""

_HYBRID = """
WITH visible_revisions AS MATERIALIZED ({visible_revisions}),
query_terms AS (
    SELECT ts.term_id, ln(1 + (s.chunk_count - ts.df + 0.5) / (ts.df + 0.5)) AS idf
    FROM retrieval_term w
    JOIN retrieval_termstat ts ON ts.term_id = w.id AND ts.collection = %(collection)s
    JOIN retrieval_lexicalstats s ON s.collection = %(collection)s
    WHERE ts.df > 0 AND %(use_lexical)s
      AND w.lexeme IN (SELECT lexeme FROM unnest(to_tsvector('indonesian', %(query)s)))
),
lexical AS (
    SELECT chunk_id, score, ROW_NUMBER() OVER (ORDER BY score DESC, chunk_id) AS rank,
           coalesce((score - min(score) OVER ()) / nullif(max(score) OVER () - min(score) OVER (), 0), 1) AS norm
    FROM (
        SELECT p.chunk_id, sum(q.idf * p.weight) AS score
        FROM query_terms q CROSS JOIN LATERAL (
            -- The permission check is a per-posting subquery, not a join:
            -- a join lets the planner hash every posting of a common term and
            -- sort them (measured 640 ms at 100k chunks); this way postings
            -- are read in index (impact) order and the LIMIT stops early.
            -- Inside CASE the IN is not turned into a semi join (which
            -- would read every posting of the term before the LIMIT): it
            -- stays a filter, a hash probe into the visible revisions.
            -- The order is the primary key's, read backwards: index only.
            SELECT p.chunk_id, p.weight FROM retrieval_posting p
            WHERE p.term_id = q.term_id
              AND CASE WHEN (SELECT c.revision_id FROM retrieval_chunk c WHERE c.id = p.chunk_id)
                            IN (SELECT id FROM visible_revisions) THEN true ELSE false END
            ORDER BY p.weight DESC, p.chunk_id DESC LIMIT %(per_term)s
        ) p
        GROUP BY p.chunk_id ORDER BY score DESC, p.chunk_id LIMIT %(pool)s
    ) scored
),
semantic AS (
    SELECT chunk_id, 1 - distance AS similarity, ROW_NUMBER() OVER (ORDER BY distance, chunk_id) AS rank,
           coalesce((max(distance) OVER () - distance) / nullif(max(distance) OVER () - min(distance) OVER (), 0), 1)
             AS norm
    FROM (
        SELECT e.chunk_id, e.embedding::vector({dims}) <=> %(vector)s::vector({dims}) AS distance
        FROM retrieval_chunkembedding e JOIN retrieval_chunk c ON c.id = e.chunk_id
        WHERE %(use_vector)s AND e.space_id = %(space)s AND {visible}
        ORDER BY e.embedding::vector({dims}) <=> %(vector)s::vector({dims}) LIMIT %(pool)s
    ) nearest
),
fused AS (
    SELECT coalesce(l.chunk_id, s.chunk_id) AS chunk_id, l.rank AS lexical_rank, s.rank AS semantic_rank,
           l.score AS lexical_score, s.similarity AS semantic_score,
           coalesce(%(lexical_weight)s / (%(rrf_k)s + l.rank), 0)
             + coalesce(%(vector_weight)s / (%(rrf_k)s + s.rank), 0) AS rrf_score,
           coalesce(%(lexical_weight)s * l.norm, 0) + coalesce(%(vector_weight)s * s.norm, 0) AS convex_score
    FROM lexical l FULL OUTER JOIN semantic s ON s.chunk_id = l.chunk_id
),
ranked AS (
    SELECT *, CASE WHEN %(convex)s THEN convex_score ELSE rrf_score END AS fused_score FROM fused
    ORDER BY fused_score DESC, chunk_id LIMIT %(limit)s
)
SELECT f.chunk_id, c.key, d.key, r.number, r.title, c.heading_path, c.text, r.status = 'superseded',
       f.lexical_rank, f.semantic_rank, f.rrf_score, d.source_type, r.document_date, d.url, d.id,
       f.lexical_score, f.semantic_score, c.page, c.page_end, c.ocr
FROM ranked f
JOIN retrieval_chunk c ON c.id = f.chunk_id
JOIN retrieval_revision r ON r.id = c.revision_id
JOIN retrieval_document d ON d.id = c.document_id
ORDER BY f.fused_score DESC, f.chunk_id
"""


@cache
def hybrid_sql(dims: int) -> str:
    """The statement for one vector dimension. A type modifier cannot be a
    bind parameter, and the cast must match the space's partial index."""
    return _HYBRID.format(dims=int(dims), visible=_VISIBLE, visible_revisions=_VISIBLE_REVISIONS)


class SearchError(ValueError):
    """Invalid search parameters; the message is safe to show the user."""


@contextmanager
def timed(timings: dict[str, float], stage: str) -> Iterator[None]:
    """Record how long the block took, in ms, under ``stage``."""
    started = time.perf_counter()
    try:
        yield
    finally:
        timings[stage] = round((time.perf_counter() - started) * 1000, 2)


def validate(query: str, *, k: int, pool: int, mode: str) -> str:
    """The stripped query, or SearchError with a message fit for the user."""
    query = (query or "").strip()
    if not query:
        raise SearchError("pertanyaan kosong")
    if len(query) > 2000:
        raise SearchError("pertanyaan terlalu panjang (maksimal 2000 karakter)")
    if mode not in MODES:
        raise SearchError(f"mode harus salah satu dari {', '.join(MODES)}")
    if not 1 <= k <= 100 or not k <= pool <= 1000:
        raise SearchError("k harus 1–100 dan pool antara k dan 1000")
    return query


def search(
    query: str,
    reader: AbstractBaseUser | AnonymousUser | None,
    *,
    k: int = 10,
    pool: int | None = None,
    mode: str = "hybrid",
    include_superseded: bool = False,
    fusion: str | None = None,
    rrf_k: int | None = None,
    lexical_weight: float | None = None,
    vector_weight: float | None = None,
    per_term: int = 500,
    collection: str = "editorial",
    provider: EmbeddingProvider | None = None,
    rerank: bool | None = None,
    reranker: Reranker | None = None,
    threshold: float | None = None,
    expand: bool = True,
) -> SearchResponse:
    """Ranked chunks for ``query`` that ``reader`` may see.

    ``rerank``: None reranks when a reranker is configured, False never, True
    always (reporting ``reranker_unavailable`` when none answers). ``threshold``
    drops reranked chunks scoring below it. ``expand`` appends documents
    reached through relations from the direct hits, labelled ``via_graph``.
    ``fusion``: "rrf" (sum of weight/(rrf_k + rank)) or "convex" (weighted sum
    of each arm's min-max-normalised score); unset values come from
    ``settings.NALARKU_FUSION``."""
    pool = max(50, k) if pool is None else pool
    query = validate(query, k=k, pool=pool, mode=mode)
    fusion_config = settings.NALARKU_FUSION
    fusion = fusion or fusion_config["method"]
    if fusion not in FUSIONS:
        raise SearchError(f"fusi harus salah satu dari {', '.join(FUSIONS)}")
    weights = fusion_config[fusion]
    rrf_k = weights.get("rrf_k", 60) if rrf_k is None else rrf_k
    lexical_weight = weights["lexical_weight"] if lexical_weight is None else lexical_weight
    vector_weight = weights["vector_weight"] if vector_weight is None else vector_weight
    timings: dict[str, float] = {}
    degraded: list[str] = []
    rerank_config = settings.NALARKU_RERANK
    if rerank is not False and reranker is None:
        try:
            reranker = reranker_from_config()
        except ServiceError as exc:
            logger.warning("reranker misconfigured: %s", exc)
    rerank = rerank is not False and (reranker is not None or rerank is True)
    threshold = rerank_config.get("threshold") if threshold is None else threshold

    # One database for the whole search: a replica when the reader may read
    # from one (nalarku_site/replicas.py), else the primary.
    db = read_alias()
    space = EmbeddingSpace.objects.using(db).filter(is_active=True).first()
    vector = None
    if mode != "lexical" and space is not None:
        with timed(timings, "embed"):
            try:
                vector = embed_query_cached(query, provider or provider_from_config())
            except ServiceError as exc:
                logger.warning("query embedding failed: %s", exc)
                degraded.append("semantic_unavailable")
    elif mode != "lexical":
        degraded.append("semantic_unavailable")
    # Without a query vector, search falls back to the lexical arm (still
    # under permissions) and says so.
    mode_used = "lexical" if vector is None else mode

    see_all = bool(reader is not None and reader.is_authenticated and reader.is_active and reader.is_superuser)
    user_id = reader.pk if reader is not None and reader.is_authenticated and reader.is_active else None
    depth = max(k, min(pool, int(rerank_config.get("depth", 30)))) if rerank else k
    params = {
        "query": query,
        "collection": collection,
        "see_all": see_all,
        "user_id": user_id,
        "statuses": ["active", "superseded"] if include_superseded else ["active"],
        "use_lexical": mode_used in ("hybrid", "lexical"),
        "use_vector": vector is not None and mode_used in ("hybrid", "vector"),
        "vector": _vector_literal(vector, space.dimensions if space else 384),
        "space": space.pk if space else 0,
        "per_term": per_term,
        "pool": pool,
        # Twice as many rows as shown: near-identical copies folded into one
        # leave room for the results after them.
        "limit": min(pool, 2 * depth),
        "rrf_k": float(rrf_k),
        "lexical_weight": float(lexical_weight),
        "vector_weight": float(vector_weight),
        "convex": fusion == "convex",
    }
    with timed(timings, "sql"), connections[db].cursor() as cursor:
        cursor.execute(hybrid_sql(space.dimensions if space else 384), params)
        rows = cursor.fetchall()
    hits = [
        Hit(
            chunk_id=row[0],
            evidence_id=row[1],
            document=row[2],
            revision=row[3],
            title=row[4],
            heading_path=row[5],
            text=row[6],
            superseded=row[7],
            lexical_rank=row[8],
            semantic_rank=row[9],
            rrf_score=round(float(row[10]), 6),
            source_type=row[11],
            document_date=row[12].isoformat() if row[12] else None,
            url=row[13],
            document_id=row[14],
            lexical_score=_rounded(row[15]),
            semantic_score=_rounded(row[16]),
            page=row[17],
            page_end=row[18],
            ocr=row[19],
        )
        for row in rows
    ]

    hits = repeats_collapsed(hits)[:depth]
    if rerank:
        with timed(timings, "rerank"):
            hits = _reranked(query, hits, reranker, threshold, k, degraded)
    hits = hits[:k]
    if expand and hits:
        with timed(timings, "expand"):
            hits += _expanded(hits, reader=reader, collection=collection, space=space, vector=vector)
    stages_observe(SEARCH_STAGE_SECONDS, timings)
    return SearchResponse(query, mode_used, hits, timings, degraded, vector)


def _reranked(
    query: str, hits: list[Hit], reranker: Reranker | None, threshold: float | None, k: int, degraded: list[str]
) -> list[Hit]:
    """Hits in rerank order, those under the threshold dropped; on failure
    the RRF order, without scores, and ``reranker_unavailable``."""
    if not hits:
        return hits
    try:
        if reranker is None:
            raise RerankError("tidak ada reranker yang dikonfigurasi", transient=False)
        scores = reranker.scores(query, [_rerank_text(h) for h in hits])
    except ServiceError as exc:
        logger.warning("reranker unavailable: %s", exc)
        degraded.append("reranker_unavailable")
        return hits
    for hit, score in zip(hits, scores, strict=True):
        hit.rerank_score = round(score, 6)
    kept = [h for h in hits if threshold is None or h.rerank_score >= threshold]
    return sorted(kept, key=lambda h: -h.rerank_score)[:k]


def _rerank_text(hit: Hit) -> str:
    context = " > ".join(part for part in (hit.title, hit.heading_path) if part)
    return f"{context}\n\n{hit.text}" if context else hit.text


def _expanded(
    hits: list[Hit],
    *,
    reader: AbstractBaseUser | AnonymousUser | None,
    collection: str,
    space: EmbeddingSpace | None,
    vector: np.ndarray | None,
) -> list[Hit]:
    config = settings.NALARKU_GRAPH
    seeds = list(dict.fromkeys(h.document_id for h in hits))
    reached = graph.expand(
        seeds,
        reader=reader,
        collection=collection,
        types=config["types"],
        depth=config["depth"],
        max_nodes=config["max_nodes"],
    )
    chunks = graph.representative_chunks([doc for doc, _ in reached], space=space, vector=vector)
    out = []
    for doc, step in reached:
        chunk = chunks.get(doc)
        if chunk is None:  # an active revision with no text chunks
            continue
        revision, document = chunk.revision, chunk.document
        out.append(
            Hit(
                chunk_id=chunk.pk,
                document_id=doc,
                evidence_id=chunk.key,
                document=document.key,
                revision=revision.number,
                title=revision.title,
                heading_path=chunk.heading_path,
                text=chunk.text,
                superseded=False,
                lexical_rank=None,
                semantic_rank=None,
                rrf_score=0.0,
                semantic_score=_rounded(1 - chunk.distance) if hasattr(chunk, "distance") else None,
                source_type=document.source_type_id,
                document_date=revision.document_date.isoformat() if revision.document_date else None,
                url=document.url,
                via_graph=True,
                relation=step.as_dict(),
                page=chunk.page,
                page_end=chunk.page_end,
                ocr=chunk.ocr,
            )
        )
    return out


def _rounded(value: float | None) -> float | None:
    return None if value is None else round(float(value), 6)


def _vector_literal(vector: np.ndarray | None, dims: int) -> str:
    values = vector if vector is not None else np.zeros(dims, dtype=np.float32)
    return "[" + ",".join(f"{float(v):.7g}" for v in values) + "]"


# For each query word, how many chunks the reader may see hold it, counted
# only up to a cap: "a rare term" for the search desk's floor
# (review/desk/search_floor.py). Counted over what this reader may see, never
# the collection's document frequency: that includes hidden documents, and
# showing or hiding a hit by it would let a reader infer their words. Raw
# SQL for the reason the search statement is: ``to_tsvector`` on the query
# and the per-posting permission probe, read in index order with a LIMIT.
_VISIBLE_COUNTS = f"""
WITH visible_revisions AS MATERIALIZED ({_VISIBLE_REVISIONS})
SELECT q.word, min(coalesce(n.count, 0)) AS chunks
FROM unnest(%(words)s::text[]) AS q(word)
CROSS JOIN LATERAL unnest(to_tsvector('indonesian', q.word)) AS v
LEFT JOIN retrieval_term w ON w.lexeme = v.lexeme
LEFT JOIN LATERAL (
    SELECT count(*) AS count FROM (
        SELECT 1 FROM retrieval_posting p
        WHERE p.term_id = w.id
          AND CASE WHEN (SELECT c.revision_id FROM retrieval_chunk c WHERE c.id = p.chunk_id)
                        IN (SELECT id FROM visible_revisions) THEN true ELSE false END
        LIMIT %(cap)s
    ) found
) n ON true
GROUP BY q.word
"""


def visible_chunk_counts(
    words: list[str],
    reader: AbstractBaseUser | AnonymousUser | None,
    *,
    cap: int,
    collection: str = "editorial",
    include_superseded: bool = False,
) -> dict[str, int]:
    """How many chunks ``reader`` may see hold each of ``words`` (each of a
    word's lexemes, the rarest counting), up to ``cap``. A word the
    tokenizer drops entirely (a stop word) is left out."""
    if not words:
        return {}
    see_all = bool(reader is not None and reader.is_authenticated and reader.is_active and reader.is_superuser)
    user_id = reader.pk if reader is not None and reader.is_authenticated and reader.is_active else None
    params = {
        "words": words,
        "cap": cap,
        "collection": collection,
        "see_all": see_all,
        "user_id": user_id,
        "statuses": ["active", "superseded"] if include_superseded else ["active"],
    }
    with connections[read_alias()].cursor() as cursor:
        cursor.execute(_VISIBLE_COUNTS, params)
        return {word: int(chunks) for word, chunks in cursor.fetchall()}
