"""What a search returns: its hits and the response around them, the types
every stage after search (the answer engine, the desk, the API) reads."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

import numpy as np


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
    semantic_score: float | None  # cosine similarity to the query
    source_type: str
    document_date: str | None
    url: str
    rerank_score: float | None = None
    page: int | None = None  # a PDF's page the chunk starts on
    page_end: int | None = None  # and the last page it covers ("hlm. 1–2")
    ocr: bool = False  # its text was read by OCR from a scan ("hasil OCR")
    # Near-identical chunks of the same revision shown as this one
    # (retrieval/repeats.py), and their first pages: "juga di hlm. 3, 11".
    repeats: list[str] = field(default_factory=list)
    repeat_pages: list[int] = field(default_factory=list)
    via_graph: bool = False
    relation: dict[str, str] | None = None  # the relation that led here, for graph hits
    chunk_id: int = field(default=0, repr=False)
    document_id: int = field(default=0, repr=False)
    # BM25 depends on corpus-wide term statistics, hidden documents included,
    # so it stays internal: showing it would let a reader infer their terms.
    lexical_score: float | None = field(default=None, repr=False)

    def as_dict(self) -> dict:
        data = asdict(self)
        del data["chunk_id"], data["document_id"], data["lexical_score"]
        return data


@dataclass
class SearchResponse:
    query: str
    mode: str
    results: list[Hit]
    timings_ms: dict[str, float]
    degraded: list[str]
    # The query's embedding, for the answer engine: a question is embedded once per ask.
    vector: np.ndarray | None = field(default=None, repr=False)

    def as_dict(self) -> dict:
        return {
            "query": self.query,
            "mode": self.mode,
            "results": [h.as_dict() for h in self.results],
            "timings_ms": self.timings_ms,
            "degraded": self.degraded,
        }
