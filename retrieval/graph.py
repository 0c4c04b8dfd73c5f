"""Bounded graph expansion: from the documents of the direct hits, follow
typed relations (both directions) up to a depth and a node cap.

Every node reached must be visible to the reader, in the same collection and
currently served by an active revision; a node the reader may not see is
neither returned nor walked through, so not even the shape of the graph
around it shows. For each document reached, the chunk of its current revision
closest to the query stands for it (its first chunk when there is no query
vector).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from django.contrib.auth.base_user import AbstractBaseUser
from django.contrib.auth.models import AnonymousUser
from django.db.models import F, Q
from pgvector.django import CosineDistance

from .models import Chunk, Document, EmbeddingSpace, Relation, RevisionStatus


@dataclass(frozen=True)
class Step:
    """The relation that led to a document: ``source`` ``type`` ``target``."""

    type: str
    source: str
    target: str

    def as_dict(self) -> dict[str, str]:
        return {"type": self.type, "source": self.source, "target": self.target}


def expand(
    seed_documents: Sequence[int],
    *,
    reader: AbstractBaseUser | AnonymousUser | None,
    collection: str,
    types: Sequence[str],
    depth: int,
    max_nodes: int,
) -> list[tuple[int, Step]]:
    """Documents reached from ``seed_documents`` (in the seeds' order), each
    with the step that reached it first; at most ``max_nodes``."""
    if not seed_documents or depth < 1 or max_nodes < 1 or not types:
        return []
    visible = Document.objects.visible_to(reader).filter(
        collection=collection, current_revision__status=RevisionStatus.ACTIVE
    )
    order = {doc: i for i, doc in enumerate(seed_documents)}
    seen = set(seed_documents)
    frontier = list(seed_documents)
    reached: list[tuple[int, Step]] = []
    for _ in range(depth):
        relations = (
            Relation.objects.filter(type__in=types, target__isnull=False)
            .filter(Q(source_id__in=frontier) | Q(target_id__in=frontier))
            .select_related("source", "target")
            .order_by("id")
        )
        candidates: dict[int, tuple[int, Step]] = {}
        for rel in relations:
            step = Step(rel.type, rel.source.key, rel.target.key)
            for here, there in ((rel.source_id, rel.target_id), (rel.target_id, rel.source_id)):
                if here in order and there not in seen:
                    best = candidates.get(there)
                    if best is None or order[here] < best[0]:
                        candidates[there] = (order[here], step)
        allowed = set(visible.filter(pk__in=list(candidates)).values_list("pk", flat=True))
        level = sorted(
            ((doc, rank_step) for doc, rank_step in candidates.items() if doc in allowed),
            key=lambda item: (item[1][0], item[0]),
        )
        frontier = []
        for doc, (_, step) in level:
            if len(reached) >= max_nodes:
                return reached
            reached.append((doc, step))
            seen.add(doc)
            order[doc] = len(order)
            frontier.append(doc)
        if not frontier:
            break
    return reached


def representative_chunks(
    documents: Sequence[int], *, space: EmbeddingSpace | None, vector: np.ndarray | None
) -> dict[int, Chunk]:
    """For each document, the chunk of its current revision nearest the query."""
    chunks = Chunk.objects.filter(
        document_id__in=documents, revision_id=F("document__current_revision_id")
    ).select_related("document", "revision")
    if vector is not None and space is not None:
        chunks = (
            chunks.filter(embeddings__space=space)
            .annotate(distance=CosineDistance("embeddings__embedding", vector))
            .order_by("document_id", "distance", "position")
        )
    else:
        chunks = chunks.order_by("document_id", "position")
    return {chunk.document_id: chunk for chunk in chunks.distinct("document_id")}
