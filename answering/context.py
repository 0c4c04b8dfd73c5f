"""Which retrieved chunks go to the generator, in what order, within a
token budget.

Only chunks that pass the relevance bar are sent — never a fixed number per
question. With a reranker, its threshold is the bar (search already applied
it). Without one, a chunk passes when its cosine similarity to the question
is above an absolute floor and close to the best chunk's, or when it holds an
exact identifier from the question (ERR_CONN_RESET, CVE-2026-1234) that the
lexical arm found. Thresholds are calibrated on the demo archive's
evaluation set (see README) and live in settings.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from django.conf import settings

from answering.facts import fact_present, facts
from retrieval import source_types
from retrieval.embeddings import token_count
from retrieval.hits import Hit


@dataclass(frozen=True)
class ContextPolicy:
    budget_tokens: int = 1800
    min_similarity: float = 0.80
    margin: float = 0.06
    max_chunks: int = 8
    per_revision: int = 2  # room for other sources, which may disagree
    # The first direct hits by fused rank that pass on the absolute floor
    # alone, outside the margin: one very close chunk (a FAQ's "90 hari")
    # then cannot push out the policy that says otherwise. Off by default:
    # measured at 3, IDK-MRC contexts grew by a third and the evidence
    # model separated worse (README, Asking).
    leading: int = 0

    @classmethod
    def from_settings(cls) -> ContextPolicy:
        return cls(**settings.NALARKU_CONTEXT)


def passes_bar(hit: Hit, *, best_similarity: float | None, question_facts: set[str], policy: ContextPolicy) -> bool:
    if hit.rerank_score is not None:
        return True
    if (
        hit.semantic_score is not None
        and best_similarity is not None
        and (hit.semantic_score >= max(policy.min_similarity, best_similarity - policy.margin))
    ):
        return True
    exact = [f for f in question_facts if any(c.isalpha() for c in f) and any(c.isdigit() or c in "_-" for c in f)]
    return hit.lexical_rank is not None and any(fact_present(f, hit.text) for f in exact)


def context_select(
    hits: list[Hit], *, question: str, newest_first: bool = False, policy: ContextPolicy | None = None
) -> list[Hit]:
    """The chunks to send, strongest first (newest first for questions about
    the present), within the token budget."""
    policy = policy or ContextPolicy.from_settings()
    scored = [h.semantic_score for h in hits if h.semantic_score is not None and not h.via_graph]
    best = max(scored) if scored else None
    question_facts = facts(question)
    direct = [h for h in hits if not h.via_graph]
    leading = {
        h.chunk_id
        for h in direct[: policy.leading]
        if h.semantic_score is not None and h.semantic_score >= policy.min_similarity
    }
    kept = [
        h
        for h in hits
        if h.chunk_id in leading or passes_bar(h, best_similarity=best, question_facts=question_facts, policy=policy)
    ]
    if newest_first:
        # Questions about the present: official sources first, then the
        # newest (stable sorts: within a date, relevance order stays).
        kept.sort(key=lambda h: h.document_date or "", reverse=True)
        # Authority is the admin-managed rank of the source type (official
        # documentation before an article quoting it).
        kept.sort(key=lambda h: source_types.authority(h.source_type))
    kept.sort(key=lambda h: h.via_graph)  # graph neighbours after the direct hits
    chosen, used, per_source, held_back = set(), 0, Counter(), []
    for n, hit in enumerate(kept):
        if len(chosen) >= policy.max_chunks:
            break
        source = (hit.document, hit.revision)
        cost = token_count(hit.text) + 40  # the evidence header
        if per_source[source] >= policy.per_revision:
            held_back.append((n, cost))
            continue
        if used + cost > policy.budget_tokens:
            continue  # a shorter chunk, or another source, further down may still fit
        chosen.add(n)
        used += cost
        per_source[source] += 1
    # The cap per revision makes room for other sources; room that no other
    # source took goes to the held-back chunks, strongest first (an as-of
    # question filtered down to the one revision then in force, a long
    # table), rather than staying empty while the answer is left out.
    for n, cost in held_back:
        if len(chosen) >= policy.max_chunks:
            break
        if used + cost <= policy.budget_tokens:
            chosen.add(n)
            used += cost
    return [hit for n, hit in enumerate(kept) if n in chosen]


def _attr(value: object) -> str:
    return str(value).replace('"', "'").replace("<", "‹").replace(">", "›")


def context_render(chunks: list[Hit]) -> str:
    """Evidence blocks for a prompt: each chunk's answer units, one per line
    with its id (``D12:r3:p4#2``, the chunk's evidence id and the unit's
    number), the same units the answerer engine scores. The text inside
    is data: any tag that could close the block early is defused."""
    from answering.answerer import hit_units

    blocks = []
    for hit in chunks:
        header = (
            f'<evidence id="{hit.evidence_id}" document="{hit.document}" revision="{hit.revision}" '
            f'title="{_attr(hit.title)}" heading="{_attr(hit.heading_path)}" '
            f'date="{hit.document_date or "tidak diketahui"}" '
            f'source_type="{hit.source_type}" superseded="{str(hit.superseded).lower()}" '
            f'url="{_attr(hit.url)}">'
        )
        units = hit_units(hit)
        text = "\n".join(f"[{hit.evidence_id}#{n}] {u.text}" for n, u in enumerate(units, 1)) or hit.text
        body = text.replace("<evidence", "‹evidence").replace("</evidence", "‹/evidence")
        blocks.append(f"{header}\n{body}\n</evidence>")
    return "\n\n".join(blocks)
