"""Availability stages (private preview, public preview, GA): which one a text
asserts, and whether a question asks about it."""

from __future__ import annotations

import re

STATUS_STAGES = {"private_preview": 1, "public_preview": 2, "generally_available": 3}

STATUS_LABELS = {
    "private_preview": "private preview",
    "public_preview": "public preview (beta)",
    "generally_available": "tersedia untuk semua pelanggan (GA)",
}

_STATUS = {
    "private_preview": re.compile(r"private preview|pratinjau privat", re.I),
    "public_preview": re.compile(r"public preview|pratinjau publik|\bbeta\b", re.I),
    "generally_available": re.compile(
        r"tersedia untuk semua pelanggan|generally available|\bGA\b|"
        r"tersedia secara umum|ketersediaan umum",
        re.I,
    ),
}

# Negated or not-yet mentions ("belum tersedia untuk semua pelanggan", "GA
# ditargetkan paruh kedua 2026") assert no status.
_NEGATION = re.compile(
    r"\b(belum|tidak|bukan|tak|tanpa|not|yet|sebelum|without|akan|rencana\w*|direncanakan|"
    r"target\w*|ditargetkan|diharapkan|will|planned|expected)\b[\w\s]{0,25}$",
    re.I,
)


def availability(text: str) -> str | None:
    """The latest availability stage a text asserts (negated mentions such as
    "belum tersedia untuk semua pelanggan" do not count), or None."""
    found = []
    for status, pattern in _STATUS.items():
        for match in pattern.finditer(text):
            if not _NEGATION.search(text[max(0, match.start() - 30) : match.start()]):
                found.append(status)
                break
    return max(found, key=STATUS_STAGES.__getitem__) if found else None


_AVAILABILITY_QUESTION = re.compile(
    r"\b(tersedia|available|availability|GA|preview|pratinjau|beta|"
    r"terpilih|dicoba|diluncurkan|rilis)\b",
    re.I,
)

_NOT_AVAILABILITY = re.compile(r"\b(berapa|kapan|siapa|di\s?mana|mengapa|kenapa|how\s+(much|many)|when|who)\b", re.I)


def asks_availability(question: str) -> bool:
    """The question asks whether something is available, or at which stage
    ("Apakah Smart Sync sudah GA?"), not for a number or a date about it
    ("Kuota Smart Sync setelah GA berapa GB?")."""
    return bool(_AVAILABILITY_QUESTION.search(question)) and not _NOT_AVAILABILITY.search(question)
