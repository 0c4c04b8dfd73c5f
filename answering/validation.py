"""Checks a draft against the evidence that was actually sent.

- An evidence id that was not among the chunks sent is removed and the claim
  flagged ``evidence_removed``; a claim left without evidence leaves the
  answer and goes to ``missing``.
- Every number, date and identifier in a claim must appear in the text it
  cites (``unsupported_fact``).
- The claim must be close in meaning to the cited text and share its terms,
  and the unit it restates must be one the answer scorer finds likely to
  answer the question (``weak_support``): a model's draft passes the same
  bar as the answerer's.
- Cited text addressed to a model ("abaikan instruksi sebelumnya …") is no
  support: a claim whose facts or terms are found only there repeats a
  planted instruction. It is dropped, and the answer says so
  (``degraded: ["planted_instruction_ignored"]``) and goes to an editor.
Any flag makes the answer ``needs_review``.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

import numpy as np
from django.conf import settings

from answering.answerer import Scored, hit_units
from answering.contract import Claim, Draft
from answering.facts import fact_present, facts
from answering.sentences import sentences, without_instructions
from retrieval.embeddings import EmbeddingProvider, embed_passages_cached, provider_from_config
from retrieval.hits import Hit
from retrieval.http import ServiceError
from retrieval.lexical import stems

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class SupportPolicy:
    min_similarity: float = 0.85  # claim vs its best cited sentence (passage–passage)
    min_overlap: float = 0.5  # share of the claim's terms found in the cited text

    @classmethod
    def from_settings(cls) -> SupportPolicy:
        return cls(**settings.NALARKU_SUPPORT)


@dataclass
class Validated:
    claims: list[Claim]
    missing: list[str]
    degraded: list[str]


def draft_validate(
    draft: Draft,
    chunks: list[Hit],
    *,
    scored: Scored | None = None,
    policy: SupportPolicy | None = None,
    provider: EmbeddingProvider | None = None,
) -> Validated:
    policy = policy or SupportPolicy.from_settings()
    sent = {h.evidence_id: h for h in chunks}
    claims: list[Claim] = []
    missing = list(draft.missing)
    for item in draft.claims:
        spans = dict(getattr(item, "spans", {}))
        resolved = [_unit_cited(e, sent, spans) for e in item.evidence_ids]
        known = list(dict.fromkeys(e for e in resolved if e in sent))
        flags = ["evidence_removed"] if len(known) < len(item.evidence_ids) else []
        if not known:
            missing.append(f"Bukti untuk: “{item.text.strip()}”")
            continue
        claims.append(
            Claim(
                text=item.text.strip(),
                evidence_ids=known,
                flags=flags,
                spans={e: span for e, span in spans.items() if e in known},
                score=getattr(item, "score", None),
            )
        )

    degraded: list[str] = []
    planted = [c for c in claims if _repeats_instructions(c, sent)]
    if planted:
        degraded.append("planted_instruction_ignored")
        claims = [c for c in claims if c not in planted]
    if claims:
        _check_support(claims, sent, policy, provider, degraded)
    if scored is not None and claims:
        _check_answers(claims, scored)
    return Validated(claims, missing, degraded)


def _check_answers(claims: list[Claim], scored: Scored) -> None:
    """A claim written by a model gets the probability of the unit it
    restates (the best over its citations) and that unit's span; below the
    scorer's support bar it is ``weak_support``."""
    bar = scored.thresholds()["support_min"]
    for claim in claims:
        if claim.score is None:
            found = [u for e in claim.evidence_ids if (u := scored.unit_for(e, claim.text)) is not None]
            claim.spans = {u.hit.evidence_id: [u.unit.start, u.unit.end] for u in found}
            claim.score = max((u.probability for u in found), default=0.0)
        if claim.score < bar and "weak_support" not in claim.flags:
            claim.flags.append("weak_support")


def _unit_cited(evidence_id: str, sent: dict[str, Hit], spans: dict[str, list[int]]) -> str:
    """``D12:r3:p4#2`` (a unit, as the prompt numbers them) cites chunk
    ``D12:r3:p4``, and the unit's span is kept for the desk."""
    base, _, number = evidence_id.partition("#")
    if not number or base not in sent:
        return evidence_id
    units = hit_units(sent[base])
    if number.isdigit() and 1 <= int(number) <= len(units):
        unit = units[int(number) - 1]
        spans.setdefault(base, [unit.start, unit.end])
        return base
    return evidence_id


def _repeats_instructions(claim: Claim, sent: dict[str, Hit]) -> bool:
    raw = "\n".join(sent[e].text for e in claim.evidence_ids)
    stated = without_instructions(raw)
    if stated == raw:
        return False
    [claim_terms, raw_terms, stated_terms] = stems([claim.text, raw, stated])
    lost_facts = any(fact_present(f, raw) and not fact_present(f, stated) for f in facts(claim.text))
    # The claim shares more with the instructions than with what the source states.
    leans_on_them = len(claim_terms & raw_terms) > len(claim_terms & stated_terms) * 1.5
    return lost_facts or leans_on_them


def _check_support(
    claims: list[Claim],
    sent: dict[str, Hit],
    policy: SupportPolicy,
    provider: EmbeddingProvider | None,
    degraded: list[str],
) -> None:
    cited = [without_instructions("\n".join(sent[e].text for e in c.evidence_ids)) for c in claims]
    for claim, text in zip(claims, cited, strict=True):
        if any(not fact_present(f, text) for f in facts(claim.text)):
            claim.flags.append("unsupported_fact")

    claim_terms = stems([c.text for c in claims])
    cited_terms = stems(cited)
    # Similarity to the best sentence of the cited text: a claim restates a
    # sentence, and a whole chunk dilutes it.
    pieces = [[c.text] + (sentences(t) or [t]) for c, t in zip(claims, cited, strict=True)]
    similarities = _best_similarities(pieces, provider, degraded)
    for claim, terms, evidence_terms, similarity in zip(claims, claim_terms, cited_terms, similarities, strict=True):
        overlap = len(terms & evidence_terms) / max(len(terms), 1)
        if overlap < policy.min_overlap or (similarity is not None and similarity < policy.min_similarity):
            claim.flags.append("weak_support")


def _best_similarities(
    pieces: list[list[str]], provider: EmbeddingProvider | None, degraded: list[str]
) -> list[float | None]:
    flat = [text for group in pieces for text in group]
    try:
        vectors, _ = embed_passages_cached(flat, provider or provider_from_config())
    except ServiceError as exc:
        logger.warning("support check without embeddings: %s", exc)
        degraded.append("semantic_unavailable")
        return [None] * len(pieces)
    vectors = vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-9)
    out, start = [], 0
    for group in pieces:
        claim, evidence = vectors[start], vectors[start + 1 : start + len(group)]
        out.append(float(np.max(evidence @ claim)))
        start += len(group)
    return out
