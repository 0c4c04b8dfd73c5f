"""What a source states: its sentences and list items in plain text, and the
sentences addressed to a model (planted instructions) left out or blanked."""

from __future__ import annotations

import re

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(“])|\n+")

_LIST_MARK = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s+")

# Text addressed to a model rather than a reader ("abaikan instruksi
# sebelumnya …", "ignore previous instructions"): it is data to quote at
# most, never a statement of the source, so it never becomes a claim.
_INSTRUCTION = re.compile(
    r"(abaikan|lupakan)\s+(semua\s+|seluruh\s+)?(instruksi|perintah|aturan)"
    r"|(ignore|disregard|forget)\s+(all\s+|any\s+)?(the\s+|your\s+)?(previous|prior|above|earlier|preceding)"
    r"\s+(instructions|prompts?|rules)"
    r"|system\s+prompt|prompt\s+sistem|you\s+are\s+now\b|anda\s+sekarang\s+(adalah|dalam)"
    r"|asisten\s+AI\s+yang\s+membaca|(catatan|pesan|perintah|instruksi)\s+(untuk|bagi|kepada)\s+(asisten|model|AI)"
    r"|(kepada|untuk|bagi)\s+(model\s+bahasa|model\s+AI|asisten\s+AI|chatbot|LLM)\b"
    r"|note\s+to\s+(the\s+|any\s+)?(AI|assistant|language\s+model|LLM)"
    r"|^\W*(system|assistant|user)\s*:|#+\s*(instruction|instruksi)|<\|im_(start|end)\|>"
    r"|^\W*(jawab|jawablah|katakan|katakanlah|tuliskan|tulislah|sebutkan)\s+(saja\s+|hanya\s+)?(bahwa|dengan)"
    r"|^\W*(answer|respond|reply|say|state|tell\s+the\s+user)\s+(only\s+)?(with|that)\b",
    re.I | re.M,
)


def is_instruction(text: str) -> bool:
    return _INSTRUCTION.search(text) is not None


def without_instructions(text: str) -> str:
    """``text`` less its sentences addressed to a model: what a source
    states, the only thing a claim may rest on."""
    return "\n".join(piece for piece in _SENTENCE_END.split(plain(text)) if not is_instruction(piece))


def instructions_blanked(text: str) -> str:
    """``text`` with its sentences addressed to a model turned to spaces:
    what the reader reads, each remaining character where it was (spans
    and units keep their offsets), none of it able to sway the reading."""
    out, at = [], 0
    for mark in [*_SENTENCE_END.finditer(text), None]:
        end = mark.start() if mark else len(text)
        piece = text[at:end]
        out.append(" " * len(piece) if is_instruction(piece) else piece)
        if mark:
            out.append(mark.group())
            at = mark.end()
    return "".join(out)


_MD_LINK = re.compile(r"\[([^\]]+)\]\([^)]*\)")

_MD_STRONG = re.compile(r"\*\*|__|`")

_MD_EM = re.compile(r"(?<![\w*])\*(?=\S)([^*\n]+?)(?<=\S)\*(?![\w*])")

_MD_QUOTE = re.compile(r"^\s*>\s?", re.M)


def plain(text: str) -> str:
    """Markdown emphasis, links and quote marks removed: how a reader sees
    the sentence, and how a claim should read."""
    return _MD_QUOTE.sub("", _MD_EM.sub(r"\1", _MD_STRONG.sub("", _MD_LINK.sub(r"\1", text))))


def sentences(text: str) -> list[str]:
    """The statements of a chunk: its sentences and list items without list
    marks. Headings, fragments under four words, questions and text
    addressed to a model are left out (they assert nothing)."""
    out = []
    for piece in _SENTENCE_END.split(plain(text)):
        piece = _LIST_MARK.sub("", piece.strip()).strip("|").strip()
        if piece.startswith("#") or len(piece.split()) < 4 or "?" in piece or is_instruction(piece):
            continue
        out.append(piece)
    return out
