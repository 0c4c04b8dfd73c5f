"""The reader measured on a SQuAD 2.0 file, each question with its own
paragraph (IDK-MRC valid): how well its margin and its answerability head
separate answerable questions from unanswerable ones (AUC), how often its
span is the answer, and the calibrator fitted on those readings."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from answering.reader.model import Reader
from training.reader.examples import squad_examples

_SPACE = re.compile(r"\W+")


def _norm(text: str) -> str:
    return _SPACE.sub(" ", text.casefold()).strip()


@dataclass
class Readings:
    margins: np.ndarray
    heads: np.ndarray
    labels: np.ndarray  # 1: answerable
    exact: np.ndarray  # the span is the answer (normalised), answerable questions
    overlap: np.ndarray  # the span and the answer share a token position range

    def figures(self, probability: Callable[[float, float], float]) -> dict:
        p = np.array([probability(m, h) for m, h in zip(self.margins, self.heads, strict=True)])
        answerable = self.labels == 1
        return {
            "questions": int(len(self.labels)),
            "auc_margin": round(auc(self.margins, self.labels), 4),
            "auc_head": round(auc(self.heads, self.labels), 4),
            "auc_calibrated": round(auc(p, self.labels), 4),
            "span_exact": round(float(self.exact[answerable].mean()), 4),
            "span_overlaps_answer": round(float(self.overlap[answerable].mean()), 4),
        }


def squad_reading(reader: Reader, path: Path, *, limit: int = 0) -> Readings:
    examples = squad_examples(path, "eval")
    if limit:
        examples = examples[:limit]
    margins, heads, labels, exact, overlap = [], [], [], [], []
    for example in examples:
        (reading,) = reader.read(example.question, [example.passage])
        margins.append(reading.margin)
        heads.append(reading.answerable)
        labels.append(int(example.answer is not None))
        if example.answer is None:
            exact.append(False)
            overlap.append(False)
            continue
        start, end = example.answer
        exact.append(_norm(example.passage[reading.start : reading.end]) == _norm(example.passage[start:end]))
        overlap.append(reading.start < end and start < reading.end)
    return Readings(np.array(margins), np.array(heads), np.array(labels), np.array(exact), np.array(overlap))


def calibrator_fit(readings: Readings) -> dict:
    """Logistic regression of "answerable" on the margin and the head."""
    from sklearn.linear_model import LogisticRegression

    x = np.column_stack([readings.margins, readings.heads])
    model = LogisticRegression(C=1.0).fit(x, readings.labels)
    return {
        "margin": float(model.coef_[0][0]),
        "answerable": float(model.coef_[0][1]),
        "bias": float(model.intercept_[0]),
        "fitted_on": "IDK-MRC valid, each question with its own paragraph",
    }


def auc(scores, labels) -> float:
    """Area under the ROC curve (ties counted half)."""
    scores, labels = np.asarray(scores, float), np.asarray(labels)
    order = np.argsort(scores, kind="mergesort")
    ranks = np.empty(len(scores))
    sorted_scores = scores[order]
    i = 0
    while i < len(scores):
        j = i
        while j + 1 < len(scores) and sorted_scores[j + 1] == sorted_scores[i]:
            j += 1
        ranks[order[i : j + 1]] = (i + j) / 2 + 1
        i = j + 1
    positives = labels == 1
    n_pos, n_neg = positives.sum(), (~positives).sum()
    if n_pos == 0 or n_neg == 0:
        return float("nan")
    return float((ranks[positives].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg))
