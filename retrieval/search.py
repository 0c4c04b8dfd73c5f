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

import time
from dataclasses import asdict, dataclass, field
from functools import cache

import numpy as np
from django.contrib.auth.base_user import AbstractBaseUser
from django.contrib.auth.models import AnonymousUser
from django.db import connection

from .embeddings import EmbeddingProvider, provider_from_config
from .http import ServiceError
from .models import EmbeddingSpace

MODES = ("hybrid", "lexical", "vector")

# The permission predicate of ``Document.objects.visible_to`` (tests keep the
# two in agreement), for a chunk aliased ``c``.
_VISIBLE = """
    c.document_id IN (
        SELECT d.id FROM retrieval_document d
        WHERE d.collection = %(collection)s
          AND (%(see_all)s OR d.public OR d.id IN (
                SELECT dg.document_id FROM retrieval_document_groups dg
                JOIN auth_user_groups ug ON ug.group_id = dg.group_id
                WHERE ug.user_id = %(user_id)s)))
    AND EXISTS (SELECT 1 FROM retrieval_revision r
                WHERE r.id = c.revision_id AND r.status = ANY(%(statuses)s))
"""

_HYBRID = """
WITH query_terms AS (
    SELECT ts.term, ln(1 + (s.chunk_count - ts.df + 0.5) / (ts.df + 0.5)) AS idf
    FROM retrieval_termstat ts, retrieval_lexicalstats s
    WHERE s.id = 1 AND ts.df > 0 AND %(use_lexical)s
      AND ts.term IN (SELECT lexeme FROM unnest(to_tsvector('indonesian', %(query)s)))
),
lexical AS (
    SELECT chunk_id, ROW_NUMBER() OVER (ORDER BY score DESC, chunk_id) AS rank
    FROM (
        SELECT p.chunk_id, sum(q.idf * p.weight) AS score
        FROM query_terms q CROSS JOIN LATERAL (
            SELECT p.chunk_id, p.weight FROM retrieval_posting p
            JOIN retrieval_chunk c ON c.id = p.chunk_id
            WHERE p.term = q.term AND {visible}
            ORDER BY p.weight DESC LIMIT %(per_term)s
        ) p
        GROUP BY p.chunk_id ORDER BY score DESC, p.chunk_id LIMIT %(pool)s
    ) scored
),
semantic AS (
    SELECT chunk_id, ROW_NUMBER() OVER (ORDER BY distance, chunk_id) AS rank
    FROM (
        SELECT e.chunk_id, e.embedding::vector({dims}) <=> %(vector)s::vector({dims}) AS distance
        FROM retrieval_chunkembedding e JOIN retrieval_chunk c ON c.id = e.chunk_id
        WHERE %(use_vector)s AND e.space_id = %(space)s AND {visible}
        ORDER BY e.embedding::vector({dims}) <=> %(vector)s::vector({dims}) LIMIT %(pool)s
    ) nearest
),
fused AS (
    SELECT coalesce(l.chunk_id, s.chunk_id) AS chunk_id, l.rank AS lexical_rank, s.rank AS semantic_rank,
           coalesce(%(lexical_weight)s / (%(rrf_k)s + l.rank), 0)
             + coalesce(%(vector_weight)s / (%(rrf_k)s + s.rank), 0) AS rrf_score
    FROM lexical l FULL OUTER JOIN semantic s ON s.chunk_id = l.chunk_id
    ORDER BY rrf_score DESC, chunk_id LIMIT %(limit)s
)
SELECT f.chunk_id, c.key, d.key, r.number, r.title, c.heading_path, c.text, r.status = 'superseded',
       f.lexical_rank, f.semantic_rank, f.rrf_score, d.source_type, r.document_date, d.url
FROM fused f
JOIN retrieval_chunk c ON c.id = f.chunk_id
JOIN retrieval_revision r ON r.id = c.revision_id
JOIN retrieval_document d ON d.id = c.document_id
ORDER BY f.rrf_score DESC, f.chunk_id
"""


@cache
def hybrid_sql(dims: int) -> str:
    """The statement for one vector dimension. A type modifier cannot be a
    bind parameter, and the cast must match the space's partial index."""
    return _HYBRID.format(dims=int(dims), visible=_VISIBLE)


@dataclass
class Hit:
    evidence_id: str
    document: str
    revision: int
    title: str
    heading_path: str
    text: str
    superseded: bool
    lexical_rank: int | None
    semantic_rank: int | None
    rrf_score: float
    source_type: str
    document_date: str | None
    url: str
    rerank_score: float | None = None
    via_graph: bool = False
    chunk_id: int = field(default=0, repr=False)

    def as_dict(self) -> dict:
        data = asdict(self)
        data.pop("chunk_id")
        return data


@dataclass
class SearchResponse:
    query: str
    mode: str
    results: list[Hit]
    timings_ms: dict[str, float]
    degraded: list[str]

    def as_dict(self) -> dict:
        return {"query": self.query, "mode": self.mode, "results": [h.as_dict() for h in self.results],
                "timings_ms": self.timings_ms, "degraded": self.degraded}


class SearchError(ValueError):
    """Invalid search parameters; the message is safe to show the user."""


def search(query: str, reader: AbstractBaseUser | AnonymousUser | None, *, k: int = 10, pool: int = 50,
           mode: str = "hybrid", include_superseded: bool = False, rrf_k: int = 60,
           lexical_weight: float = 1.0, vector_weight: float = 1.0, per_term: int = 500,
           collection: str = "editorial", provider: EmbeddingProvider | None = None) -> SearchResponse:
    """Ranked chunks for ``query`` that ``reader`` may see."""
    query = (query or "").strip()
    if not query:
        raise SearchError("pertanyaan kosong")
    if len(query) > 2000:
        raise SearchError("pertanyaan terlalu panjang (maksimal 2000 karakter)")
    if mode not in MODES:
        raise SearchError(f"mode harus salah satu dari {', '.join(MODES)}")
    if not 1 <= k <= 100 or not k <= pool <= 1000:
        raise SearchError("k harus 1–100 dan pool antara k dan 1000")

    timings: dict[str, float] = {}
    degraded: list[str] = []
    space = EmbeddingSpace.objects.filter(is_active=True).first()
    vector = None
    if mode != "lexical" and space is not None:
        started = time.perf_counter()
        try:
            vector = (provider or provider_from_config()).embed_query(query)
        except ServiceError:
            degraded.append("semantic_unavailable")
        timings["embed"] = round((time.perf_counter() - started) * 1000, 2)
    elif mode != "lexical":
        degraded.append("semantic_unavailable")
    # Without a query vector, search falls back to the lexical arm (still
    # under permissions) and says so.
    mode_used = "lexical" if vector is None else mode

    see_all = bool(reader is not None and reader.is_authenticated and reader.is_active and reader.is_superuser)
    user_id = reader.pk if reader is not None and reader.is_authenticated and reader.is_active else None
    params = {
        "query": query, "collection": collection, "see_all": see_all, "user_id": user_id,
        "statuses": ["active", "superseded"] if include_superseded else ["active"],
        "use_lexical": mode_used in ("hybrid", "lexical"),
        "use_vector": vector is not None and mode_used in ("hybrid", "vector"),
        "vector": _vector_literal(vector, space.dimensions if space else 384),
        "space": space.pk if space else 0, "per_term": per_term, "pool": pool, "limit": k,
        "rrf_k": float(rrf_k), "lexical_weight": float(lexical_weight), "vector_weight": float(vector_weight),
    }
    started = time.perf_counter()
    with connection.cursor() as cursor:
        cursor.execute(hybrid_sql(space.dimensions if space else 384), params)
        rows = cursor.fetchall()
    timings["sql"] = round((time.perf_counter() - started) * 1000, 2)
    hits = [Hit(chunk_id=row[0], evidence_id=row[1], document=row[2], revision=row[3], title=row[4],
                heading_path=row[5], text=row[6], superseded=row[7], lexical_rank=row[8],
                semantic_rank=row[9], rrf_score=round(float(row[10]), 6), source_type=row[11],
                document_date=row[12].isoformat() if row[12] else None, url=row[13])
            for row in rows]
    return SearchResponse(query, mode_used, hits, timings, degraded)


def _vector_literal(vector: np.ndarray | None, dims: int) -> str:
    values = vector if vector is not None else np.zeros(dims, dtype=np.float32)
    return "[" + ",".join(f"{float(v):.7g}" for v in values) + "]"
