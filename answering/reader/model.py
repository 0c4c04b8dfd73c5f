"""The reader at run time: the fine-tuned weights (``reader-vN.npz``) over
the wheel's, on ONNX Runtime; no PyTorch.

``Reader.read`` reads a question with each passage, every window of every
passage in one batch, and gives per passage its best span (SQuAD 2.0
decoding: the best start and end, end not before start, at most
``MAX_ANSWER_TOKENS`` tokens, over the passage's tokens only) and its
no-answer score (start and end at <s>, the lowest over its windows, as
SQuAD readers take it). A span's margin over no answer is scored on its
own, never normalised over the passages, so spans of different chunks
compare; the card's calibrator turns the margin and the answerability
head into a probability.
"""

from __future__ import annotations

import json
import math
import os
import threading
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from answering.encoder.runtime import forward, session_build
from answering.encoder.tokenizer import WheelTokenizer, ids_array, tokenizer
from answering.encoder.wheel import WheelError
from answering.reader.windows import MAX_TOKENS, windows_of

MAX_ANSWER_TOKENS = 40
TOP = 20


# Until bars are chosen for an artefact (bench/reader_bars.py writes them
# into its card): refuse below an even chance, answer at 0.8.
DEFAULT_BARS = {"refuse_below": 0.5, "answer_at": 0.8, "support_min": 0.3}


class ReaderUnavailable(RuntimeError):
    """The reader's artefact or runtime cannot be loaded."""


@dataclass(frozen=True)
class Reading:
    """What the reader found in one passage."""

    start: int  # the best span, [start, end) in the passage
    end: int
    span: float  # its start + end logit
    null: float  # the no-answer score
    answerable: float  # the answerability head's logit (highest over windows)
    probability: float  # calibrated: this passage answers, with this span
    # Each window's (start, end) logits over its passage tokens, with the
    # tokens' [start, end) in the passage: a part's own best span is decoded
    # from them (``span_within``) without reading again.
    logits: tuple = field(default=(), compare=False, repr=False)

    @property
    def margin(self) -> float:
        return self.span - self.null

    def span_within(self, start: int, end: int) -> float:
        """The best span score over the tokens wholly inside passage
        characters [start, end), over every window; -inf where none is."""
        best = -math.inf
        for offsets, logits in self.logits:
            inside = np.flatnonzero((offsets[:, 0] >= start) & (offsets[:, 1] <= end))
            if len(inside):
                best = max(best, _best_span(logits, int(inside[0]), int(inside[-1]) + 1)[2])
        return best


class Reader:
    def __init__(self, path: Path, *, threads: int = 0, quantise: bool = False):
        self.path = Path(path)
        try:
            self.card = json.loads(self.path.with_suffix(".json").read_text())
            with np.load(self.path.with_suffix(".npz")) as saved:
                weights = {n: saved[n].astype(np.float32) for n in saved.files}
            self.session = session_build(weights, heads=True, threads=threads, quantise=quantise)
        except (OSError, ValueError, KeyError, WheelError) as exc:
            raise ReaderUnavailable(f"pembaca tidak dapat dimuat dari {self.path}: {exc}") from exc
        except Exception as exc:  # noqa: BLE001 - ONNX Runtime raises its own kinds for a bad graph
            raise ReaderUnavailable(f"pembaca tidak dapat dijalankan: {exc}") from exc
        self.tokenizer: WheelTokenizer = tokenizer()
        self.max_tokens = int(self.card.get("recipe", {}).get("max_tokens", MAX_TOKENS))
        self.calibrator = self.card.get("calibrator") or {"margin": 1.0, "answerable": 0.0, "bias": 0.0}
        self.bars = {**DEFAULT_BARS, **(self.card.get("bars") or {})}
        self.combiner = self.card.get("combiner")  # see scoring.combined

    @property
    def name(self) -> str:
        return self.card.get("name", self.path.stem)

    def probability(self, margin: float, answerable: float) -> float:
        c = self.calibrator
        z = c["margin"] * margin + c["answerable"] * answerable + c["bias"]
        return 1.0 / (1.0 + math.exp(-max(min(z, 50.0), -50.0)))

    def probability_within(self, reading: Reading, start: int, end: int) -> float:
        """The calibrated probability that passage characters [start, end)
        answer, from their own best span against the passage's no-answer
        score (0 where no token lies wholly inside)."""
        span = reading.span_within(start, end)
        return 0.0 if span == -math.inf else self.probability(span - reading.null, reading.answerable)

    def read(self, question: str, passages: list[str]) -> list[Reading]:
        if not passages:
            return []
        q = self.tokenizer.encode(question)
        windows = []  # (passage index, window)
        for index, passage in enumerate(passages):
            for window in windows_of(self.tokenizer, q, self.tokenizer.encode(passage), max_tokens=self.max_tokens):
                windows.append((index, window))
        # One window per call: with int8 products ONNX Runtime scales the
        # activations per call, so a window read beside others reads
        # otherwise than alone (a reading moved by up to 0.04) and adding a
        # page to the context could change another page's reading. Alone,
        # no padding either: as fast as batches of like length, or faster.
        spans: list = []
        answers: list = []
        for _, window in windows:
            ids, mask = ids_array([window.ids], pad=self.tokenizer.pad)
            out = forward(self.session, ids, mask)
            spans.append(out["span"][0])
            answers.append(out["answerable"][0, 0])
        best: dict[int, list] = {}
        logits: dict[int, list] = {}
        for (index, window), span, answerable in zip(windows, spans, answers, strict=True):
            null = float(span[0, 0] + span[0, 1])
            own = span[window.first : window.first + len(window.offsets)]
            logits.setdefault(index, []).append((np.array(window.offsets, dtype=np.int64).reshape(-1, 2), own))
            start, end, score = _best_span(span, window.first, window.first + len(window.offsets))
            found = best.setdefault(index, [None, None, -math.inf, math.inf, -math.inf])
            if score > found[2]:
                found[:3] = window.offsets[start - window.first][0], window.offsets[end - window.first][1], score
            found[3] = min(found[3], null)
            found[4] = max(found[4], float(answerable))
        readings = []
        for index in range(len(passages)):
            start, end, span, null, answerable = best[index]
            if start is None:  # a passage with no tokens
                readings.append(Reading(0, 0, -math.inf, null, answerable, 0.0))
                continue
            probability = self.probability(span - null, answerable)
            readings.append(Reading(start, end, span, null, answerable, probability, tuple(logits[index])))
        return readings


def _best_span(span: np.ndarray, first: int, last: int) -> tuple[int, int, float]:
    """The best [start, end] (inclusive token positions) in first..last-1."""
    starts, ends = span[first:last, 0], span[first:last, 1]
    if len(starts) == 0:
        return first, first, -math.inf
    top_s = np.argsort(-starts)[:TOP]
    top_e = np.argsort(-ends)[:TOP]
    best = (int(top_s[0]), int(top_s[0]), -math.inf)
    for s in top_s:
        for e in top_e:
            if s <= e < s + MAX_ANSWER_TOKENS:
                score = float(starts[s] + ends[e])
                if score > best[2]:
                    best = (int(s), int(e), score)
    if best[2] == -math.inf:
        s = int(top_s[0])
        best = (s, s, float(starts[s] + ends[s]))
    return first + best[0], first + best[1], best[2]


_loaded: dict[tuple, Reader] = {}
_loaded_pid = 0
_lock = threading.Lock()


def reader_load(path: Path, *, threads: int = 0, quantise: bool = False) -> Reader:
    """The reader of ``path``, loaded once per process (lazily, so a
    forked worker loads its own after the fork, as the embedder does)."""
    global _loaded_pid
    key = (str(path), threads, quantise)
    with _lock:
        if _loaded_pid != os.getpid():
            _loaded.clear()
            _loaded_pid = os.getpid()
        if key not in _loaded:
            _loaded[key] = Reader(path, threads=threads, quantise=quantise)
        return _loaded[key]
