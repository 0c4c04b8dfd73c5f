"""The answer contract (docs/design.md), as pydantic models.

``Draft`` is the part a generator writes — status, claims with the evidence
ids they cite, what is missing — and its JSON Schema is exactly what LLM
generators are asked to produce. ``AnswerContract`` is what Nalarku returns:
the draft after validation, plus conflicts, the evidence each id stands for
and the degraded flags, all filled in by the pipeline, never by a model.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from review.models import AnswerStatus

StatusLiteral = Literal["answered", "needs_review", "insufficient_evidence"]


class ClaimDraft(BaseModel):
    model_config = ConfigDict(extra="forbid")

    text: str = Field(min_length=1, max_length=2000, description="Satu pernyataan, dalam bahasa pertanyaan")
    evidence_ids: list[str] = Field(description="Id bukti (mis. D12:r3:p4) yang mendukung pernyataan ini")


class Draft(BaseModel):
    """What a generator returns."""

    model_config = ConfigDict(extra="forbid")

    status: StatusLiteral = Field(description="insufficient_evidence bila bukti tidak cukup untuk menjawab")
    claims: list[ClaimDraft] = Field(description="Pernyataan jawaban, masing-masing dengan buktinya")
    missing: list[str] = Field(description="Bukti yang masih dibutuhkan untuk menjawab dengan yakin")


def draft_schema() -> dict[str, Any]:
    """The JSON Schema sent to LLM generators."""
    return Draft.model_json_schema()


class Claim(ClaimDraft):
    model_config = ConfigDict(extra="forbid")

    flags: list[str] = Field(
        default_factory=list,
        description=("evidence_removed, unsupported_fact, weak_support, superseded_evidence, conflict, via_graph"),
    )
    # The unit each evidence id's text was quoted from, [start, end) in the
    # chunk, for the desk to highlight; and the scorer's probability that the
    # claim answers the question.
    spans: dict[str, list[int]] = Field(default_factory=dict)
    score: float | None = None
    # The page label ("2", "1–2") of what the claim quotes from each cited
    # evidence id that has pages (a PDF): a chunk may run over a page break
    # while the quoted sentence lies on one page.
    pages: dict[str, str] = Field(default_factory=dict)


class Conflict(BaseModel):
    evidence_ids: list[str]
    kind: str  # status | number | date | meaning
    note: str
    # The evidence ids grouped by the side they take, newest side first, and
    # what each says (the stage, the value with its unit, the definition).
    sides: list[list[str]] = Field(default_factory=list)
    values: dict[str, str] = Field(default_factory=dict)
    # Each side's label (what it says), its best source type's authority
    # rank (1 the most authoritative), which side is newer (None: the
    # newest sources of the sides bear the same date) and which is more
    # authoritative (None: they rank alike), and that weighing in words.
    labels: list[str] = Field(default_factory=list)
    ranks: list[int] = Field(default_factory=list)
    newer: int | None = None
    authoritative: int | None = None
    weighing: str = ""


class Evidence(BaseModel):
    document: str
    revision: int
    title: str
    heading_path: str = ""
    page: int | None = None  # "hlm. 3": the page of a PDF the evidence starts on
    page_end: int | None = None  # and the last page it covers: "hlm. 3–4"
    ocr: bool = False  # its text was read by OCR from a scan: "hasil OCR", to be checked against the scan
    # Near-identical chunks of the same revision shown as this one, and their
    # first pages ("juga di hlm. 3, 11"): one source, said once.
    repeats: list[str] = Field(default_factory=list)
    repeat_pages: list[int] = Field(default_factory=list)
    document_date: str | None = None
    indexed_at: str | None = None
    source_type: str
    superseded: bool = False
    current_revision: int | None = None  # the revision serving now, when this one is superseded
    url: str = ""
    via_graph: bool = False
    relation: dict[str, str] | None = None
    semantic_score: float | None = None
    rerank_score: float | None = None


class AnswerContract(BaseModel):
    question_id: str
    status: AnswerStatus
    claims: list[Claim]
    missing: list[str]
    conflicts: list[Conflict]
    evidence: dict[str, Evidence]
    degraded: list[str]
