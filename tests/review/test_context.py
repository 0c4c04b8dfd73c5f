"""Which chunks the answer stage is given: the cap per revision leaves room
for other sources, and room nobody else takes is not left empty."""

from __future__ import annotations

from answering.context import ContextPolicy, context_select
from retrieval.hits import Hit


def hit(document: str, revision: int, paragraph: int, similarity: float = 0.9) -> Hit:
    return Hit(
        evidence_id=f"{document}:r{revision}:p{paragraph}",
        document=document,
        revision=revision,
        title=document,
        heading_path="",
        text=f"Isi {document} bagian {paragraph}.",
        superseded=False,
        lexical_rank=paragraph,
        semantic_rank=paragraph,
        rrf_score=0.1,
        semantic_score=similarity,
        source_type="documentation",
        document_date="2025-09-20",
        url="",
    )


def chosen(hits: list[Hit], **policy: int) -> list[str]:
    return [h.evidence_id for h in context_select(hits, question="berapa jam?", policy=ContextPolicy(**policy))]


def test_one_revision_alone_fills_the_room_the_cap_kept_for_others():
    # An as-of question filtered down to the revision then in force: its
    # third chunk (the table with the answer) is no longer left out.
    hits = [hit("D20", 1, n) for n in (1, 2, 3, 4)]
    assert chosen(hits, per_revision=2) == ["D20:r1:p1", "D20:r1:p2", "D20:r1:p3", "D20:r1:p4"]


def test_other_sources_still_come_before_a_revisions_further_chunks():
    hits = [hit("D20", 1, 1), hit("D20", 1, 2), hit("D20", 1, 3), hit("D21", 1, 4), hit("D22", 1, 5)]
    # Room for four: each source its share first, then the held-back chunk.
    assert chosen(hits, per_revision=2, max_chunks=4) == ["D20:r1:p1", "D20:r1:p2", "D21:r1:p4", "D22:r1:p5"]
    # Room for five: the held-back chunk too, in rank order.
    assert chosen(hits, per_revision=2, max_chunks=5) == [
        "D20:r1:p1",
        "D20:r1:p2",
        "D20:r1:p3",
        "D21:r1:p4",
        "D22:r1:p5",
    ]


def test_held_back_chunks_stay_within_the_token_budget():
    hits = [hit("D20", 1, n) for n in (1, 2, 3)]
    # Each chunk costs its tokens plus 40 for the evidence header: room for two.
    assert chosen(hits, per_revision=2, budget_tokens=110) == ["D20:r1:p1", "D20:r1:p2"]
    assert len(chosen(hits, per_revision=1, budget_tokens=110)) == 2
