"""The JSON API's request and response models: what the OpenAPI schema at
``/api/openapi.json`` describes and what every response is checked against.
Field descriptions are for integrators (a CMS plug-in, a newsroom script)."""

from __future__ import annotations

from typing import Annotated, Literal

from ninja import Schema
from pydantic import BeforeValidator, Field, StrictStr

from answering.contract import AnswerContract

_TRUE, _FALSE = ("1", "true", "ya", "yes"), ("0", "false", "tidak", "no")


def _flag(value: object) -> object:
    """1/0, true/false, ya/tidak, yes/no; empty: not given."""
    if isinstance(value, bool) or value is None:
        return value
    raw = str(value).strip().lower()
    if not raw:
        return None
    if raw in _TRUE:
        return True
    if raw in _FALSE:
        return False
    raise ValueError("harus 1/0 atau true/false")


def _blank_is_none(value: object) -> object:
    return None if isinstance(value, str) and not value.strip() else value


Flag = Annotated[bool | None, BeforeValidator(_flag)]
Count = Annotated[int | None, BeforeValidator(_blank_is_none)]


class Error(Schema):
    error: str = Field(description="Apa yang salah, dalam bahasa Indonesia; tidak pernah menyebut dokumen")


class SearchQuery(Schema):
    q: str = Field(description="Pertanyaan atau kata kunci (1–2000 karakter)")
    k: Count = Field(None, description="Jumlah hasil, 1–100 (bawaan 10)")
    pool: Count = Field(None, description="Kandidat per lengan sebelum fusi, k–1000 (bawaan max(50, k))")
    mode: str = Field("hybrid", description="hybrid, lexical atau vector")
    include_superseded: Flag = Field(None, description="Sertakan revisi yang sudah diganti (bawaan tidak)")
    rerank: Flag = Field(None, description="Urutkan ulang dengan reranker (bawaan: pengaturan server)")
    expand: Flag = Field(None, description="Ikuti relasi antardokumen (bawaan ya)")


class SearchHit(Schema):
    evidence_id: str = Field(description="Id bukti, mis. D12:r3:p4")
    document: str
    revision: int
    title: str
    heading_path: str
    text: str
    superseded: bool
    lexical_rank: int | None
    semantic_rank: int | None
    rrf_score: float
    semantic_score: float | None = Field(description="Kemiripan kosinus dengan pertanyaan")
    source_type: str
    document_date: str | None
    url: str
    rerank_score: float | None
    page: int | None = Field(description="Halaman PDF tempat potongan mulai")
    page_end: int | None
    ocr: bool = Field(description="Teksnya dibaca OCR dari pindaian (hasil OCR): periksa dengan pindaiannya")
    repeats: list[str] = Field(description="Potongan lain revisi yang sama dengan teks nyaris sama, ditampilkan sekali")
    repeat_pages: list[int] = Field(description="Halaman awal potongan-potongan itu: 'juga di hlm. 3, 11'")
    via_graph: bool
    relation: dict[str, str] | None


class SearchResult(Schema):
    query: str
    mode: str
    results: list[SearchHit]
    timings_ms: dict[str, float] = Field(description="Waktu tiap tahap (embed, sql, rerank, expand), ms")
    degraded: list[str] = Field(description="Bagian yang tidak tersedia dan dilewati, mis. reranker")


class AskBody(Schema):
    question: StrictStr = Field(description="Pertanyaan (1–2000 karakter)")
    as_of: StrictStr | None = Field(
        None,
        description="Jawab menurut arsip pada tanggal ini (YYYY-MM-DD), bukan di masa depan",
        json_schema_extra={"format": "date"},
    )


class ReviewBody(Schema):
    status: Literal["supported", "needs_review"]
    note: StrictStr = Field("", max_length=1000, description="Catatan editor (opsional)")
    confirm: bool = Field(
        False,
        description="Tetap nilai klaim yang bersandar pada revisi yang sudah diganti; tanpa ini jawabannya 409",
    )


class StoredAnswer(Schema):
    answer: int = Field(description="Id jawaban tersimpan")
    question: str
    contract: AnswerContract = Field(
        description="Kontrak jawaban seperti yang boleh Anda lihat sekarang; superseded/current_revision tiap "
        "bukti menurut revisi yang berlaku pada tanggal jawaban (sekarang, atau tanggal as_of pertanyaannya)"
    )
    newer_since: dict[str, int] = Field(
        default_factory=dict,
        description="Jawaban per tanggal: dokumen yang sejak tanggal itu punya revisi lebih baru (kunci → revisi "
        "yang berlaku sekarang); bukan kesalahan jawaban",
    )
    sources_changed: list[str] = Field(
        description="Bukti klaim yang revisinya diganti sejak jawaban dibuat (hanya dari dokumen yang boleh Anda baca)"
    )
    asked_again_from: int | None = Field(description="Jawaban lama tempat pertanyaan ini ditanyakan lagi")
    asked_again: list[int] = Field(description="Jawaban dari pertanyaan yang ditanyakan lagi dari jawaban ini")


class Reviewed(Schema):
    claim: int
    status: str = Field(description="Status tinjauan klaim setelah keputusan")
    note: str
    answer_status: str = Field(description="Status jawaban setelah keputusan (answered bila semua klaim didukung)")
