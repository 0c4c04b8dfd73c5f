"""The words an editor reads instead of internal codes (statuses, flags,
degraded states, stages, modes), for the desk's pages and the reports alike."""

from __future__ import annotations

LABELS = {
    # answer statuses
    "answered": "Terjawab",
    "needs_review": "Perlu ditinjau",
    "insufficient_evidence": "Bukti tidak cukup",
    # claim review
    "pending": "Belum ditinjau",
    "supported": "Didukung",
    # claim flags
    "evidence_removed": "ID bukti tak dikenal dibuang",
    "unsupported_fact": "Angka/ID tidak ada di bukti",
    "weak_support": "Dukungan lemah",
    "superseded_evidence": "Bukti dari revisi lama",
    "conflict": "Sumber bertentangan",
    "via_graph": "Bukti lewat relasi",
    # degraded states
    "semantic_unavailable": "Pencarian semantik tidak tersedia — hanya leksikal",
    "reranker_unavailable": "Pengurut ulang tidak tersedia — urutan gabungan pencarian",
    "generator_unavailable": "Model bahasa tidak tersedia — jawaban berupa kutipan dari sumber",
    "generator_repaired": "Keluaran model diperbaiki sekali",
    "generator_invalid_output": "Keluaran model tidak valid",
    "planted_instruction_ignored": "Klaim yang mengulang instruksi tersembunyi di sumber dibuang",
    # conflict kinds
    "status": "status",
    "number": "angka",
    "date": "tanggal",
    # relations
    "cites": "mengutip",
    "supersedes": "menggantikan",
    "contradicts": "bertentangan dengan",
    "motivates": "mendasari",
    "rejects": "menolak",
    "related": "terkait",
    # search stages (their timings on the search desk)
    "embed": "membaca makna pertanyaan",
    "sql": "mencari di arsip",
    "expand": "relasi",
    "rerank": "urut ulang",
    # answer stages (the report's latency table)
    "context": "konteks",
    "generate": "menyusun klaim",
    "validate": "validasi",
    "persist": "menyimpan",
    # search modes
    "hybrid": "hibrida",
    "lexical": "leksikal",
    "vector": "semantik",
    # chunk kinds
    "paragraph": "paragraf",
    "list": "daftar",
    "table": "tabel",
    "code": "kode",
    "mixed": "campuran",
    "heading": "judul",
}


def label(code: object) -> str:
    return LABELS.get(str(code), str(code))
