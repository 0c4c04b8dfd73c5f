"""The reader: e5 reads the question and one unit of evidence together.

Every other signal of the scorer compares the question with a unit from
two embeddings made apart (their cosine) or from their words. Neither
reads them together, so a unit on the question's topic that answers
something else ("presiden pertama Indonesia" asked of the Philippines, the
list of leave kinds asked about pilgrimage leave) sits as close as the unit
that answers. Embedding ``question [SEP] unit`` as one passage lets e5's
attention run across both: what the pair's embedding gains over the unit's
own (their difference) and what it shares with the question (their
product, dimension by dimension) are 768 numbers a logistic regression
reads as "does this evidence answer the question". It reads one unit, the
one closest in meaning to the question, which costs one more embedding per
ask (never cached: the pair is as new as the question).

The regression is trained on IDK-MRC train, each question with the unit of
its own paragraph closest in meaning to it, labelled by whether the
question is answerable; English questions over Indonesian paragraphs
(``data/squad2-en-over-id``) are trained the same way. Its score joins the
context model's log-odds in the artefact's calibrator, which is fitted on
IDK-MRC valid (``train_reader``, ``reader_training.py``).

Measured before it was built (a probe on IDK-MRC, 3,351 training and 684
validation questions, each with the closest sentence of its own
paragraph): the AUC of "answerable" on valid was 0.725 from cosine and
word overlap (gradient boosting), 0.796 with the reader's score added.
Attached to answerer-v6's models (answerer-v7) it lifts IDK-MRC valid
(context AUC 0.813 → 0.845) but ranks the editor-style dev set backwards
(the reader alone 0.405; with it 0.821 → 0.764), whatever the mix of
training questions (``bench/reader_mix.py``), and its one embedding
doubles the answer stage: v7 is not the default (README, the reader).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from retrieval.embeddings import EmbeddingProvider

from .features import Passage, Question, read_with

SEPARATOR = " [SEP] "


def pair_text(question: str, unit: str) -> str:
    """The question and a unit (as it is embedded, under its breadcrumb) as one passage."""
    return f"{question}{SEPARATOR}{unit}"


def pair_features(pairs: np.ndarray, units: np.ndarray, question: np.ndarray) -> np.ndarray:
    """Per pair: its embedding less the unit's, and its product with the question's."""
    pairs, units = np.atleast_2d(pairs), np.atleast_2d(units)
    return np.hstack([pairs - units, pairs * question[None, :]]).astype(np.float32)


def unit_length(vectors: np.ndarray) -> np.ndarray:
    """Rows scaled to unit length (a provider may not normalise its embeddings)."""
    vectors = np.atleast_2d(np.asarray(vectors, dtype=np.float32))
    return vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-9)


def closest(question_vector: np.ndarray, unit_vectors: np.ndarray) -> int | None:
    """The unit closest in meaning to the question (None without units)."""
    return int(np.argmax(unit_vectors @ question_vector)) if len(unit_vectors) else None


def evidence_pair(question: Question, passages: Sequence[Passage], provider: EmbeddingProvider) -> np.ndarray | None:
    """The reader's features of the evidence: its unit closest in meaning to
    the question (as it is embedded, under its breadcrumb) read together
    with the question; None for evidence without units."""
    units = [read_with(p.breadcrumb, u.text) for p in passages for u in p.units]
    if not units:
        return None
    vectors = np.vstack([p.unit_vectors for p in passages if len(p.units)])
    nearest = closest(question.vector, vectors)
    pair = unit_length(provider.embed_passages([pair_text(question.text, units[nearest])]))
    return pair_features(pair, unit_length(vectors[nearest]), question.vector)


def evidence_reading(
    reader: object, question: Question, passages: Sequence[Passage], provider: EmbeddingProvider
) -> float:
    """The reader's log-odds that the evidence answers the question, for an
    editor's evidence (the scorer) and a training item alike; the reader's
    prior for evidence without units."""
    features = evidence_pair(question, passages, provider)
    if features is None:
        return float(reader.intercept_[0])
    return float(reader.decision_function(features)[0])
