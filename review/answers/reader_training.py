"""Training the reader (``reading.py``) and attaching it to an artefact.

``reader_examples`` reads each question of a SQuAD 2.0 file with the unit
of its own paragraph closest to it; ``reader_fit`` chooses the logistic
regression's regularisation on IDK-MRC valid; ``reader_attach`` keeps a
base artefact's unit and context models and fits the calibrator that
combines the context model's log-odds with the reader's score
(``manage.py train_reader``; ``bench/reader_mix.py`` compares training mixes).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from retrieval.embeddings import EmbeddingProvider, embed_passages_cached

from .features import baseline_of, rarity_of
from .reading import closest, evidence_reading, pair_features, pair_text, unit_length
from .scorer import calibrated_probability, log_odds
from .training import Trained, _auc, _score_split, decision_metrics, squad_read, thresholds_choose_joint
from .units import units_of


@dataclass
class Examples:
    """Reader training rows: a question with its closest unit, and its label."""

    x: np.ndarray
    y: np.ndarray


def reader_examples(
    path: Path,
    *,
    provider: EmbeddingProvider,
    embed_query: Callable[[str], np.ndarray],
    question_field: str = "question",
    limit: int | None = None,
    progress: Callable[[str], None] = lambda message: None,
) -> Examples:
    """Each question of a SQuAD 2.0 file with the unit of its own paragraph
    closest to it in meaning, read together; labelled answerable or not
    (the first ``limit`` paragraphs only, when given). Units and pairs go
    through the embedding cache, so a second run is quick."""
    rows, labels = [], []
    paragraphs = squad_read(path)[:limit] if limit else squad_read(path)
    for count, paragraph in enumerate(paragraphs, 1):
        units = [u.text for u in units_of(paragraph["context"])]
        questions = [qa for qa in paragraph["qas"] if qa.get(question_field)]
        if not units or not questions:
            continue
        vectors = unit_length(embed_passages_cached(units, provider)[0])
        asked = [(qa, unit_length(embed_query(qa[question_field]))[0]) for qa in questions]
        picked = [closest(vector, vectors) for _, vector in asked]
        pairs, _ = embed_passages_cached(
            [pair_text(qa[question_field], units[i]) for (qa, _), i in zip(asked, picked, strict=True)], provider
        )
        pairs = unit_length(pairs)
        for (qa, vector), i, pair in zip(asked, picked, pairs, strict=True):
            rows.append(pair_features(pair, vectors[i], vector)[0])
            labels.append(0.0 if qa.get("is_impossible") else 1.0)
        if count % 200 == 0:
            progress(f"{count}/{len(paragraphs)} paragraf {path.name} dibaca")
    return Examples(np.asarray(rows, dtype=np.float32), np.asarray(labels))


def reader_fit(train: Examples, valid: Examples, *, strengths: tuple[float, ...] = (0.3, 1.0, 3.0)) -> tuple:
    """The logistic regression (trained on ``train``) with the inverse
    regularisation strength that ranks IDK-MRC valid best (AUC), and each
    strength's valid AUC."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.metrics import roc_auc_score

    models, aucs = {}, {}
    for c in strengths:
        models[c] = LogisticRegression(C=c, max_iter=5000).fit(train.x, train.y)
        aucs[c] = round(float(roc_auc_score(valid.y, models[c].decision_function(valid.x))), 4)
    return models[max(aucs, key=lambda c: aucs[c])], aucs


def reader_attach(
    base: object,
    reader: object,
    *,
    valid_items: list,
    dev_items: list | None,
    provider: EmbeddingProvider,
    progress: Callable[[str], None] = lambda message: None,
) -> object:
    """A new artefact (``training.Trained``): the unit and context models
    of ``base`` (a loaded ``scorer.Artefact``) unchanged, the reader beside
    them, and a calibrator that combines the context model's log-odds with
    the reader's score, fitted on IDK-MRC valid. The bars are chosen again
    the way ``train_answerer`` chooses them (valid and the editor-style dev
    set together); the support bar is the base's (the unit model is)."""
    from sklearn.linear_model import LogisticRegression

    version = base.meta.get("features_version", "features-v2")
    splits = {"valid": valid_items, **({"dev": dev_items} if dev_items else {})}
    for item in [i for items in splits.values() for i in items]:
        item.question.rarity = rarity_of(item.question.content, base.rarity)
        item.question.baseline = baseline_of(item.question.vector, base.centroid)
    scored, readings = {}, {}
    for name, items in splits.items():
        scored[name] = _score_split(items, base.unit_model, base.context_model, version)
        # Each item read as the scorer reads an editor's evidence.
        readings[name] = np.asarray([evidence_reading(reader, i.question, i.passages, provider) for i in items])
        progress(f"{len(items)} pertanyaan {name} dinilai dan dibaca")
    valid = scored["valid"]
    calibrator = LogisticRegression(C=1e6).fit(
        np.hstack([log_odds(valid.raw), readings["valid"][:, None]]), valid.answered
    )
    calibrated = {n: calibrated_probability(calibrator, scored[n].raw, readings[n]) for n in scored}
    thresholds = thresholds_choose_joint([(calibrated[n], scored[n].answerable, scored[n].holds) for n in scored])
    thresholds["support_min"] = float(base.meta["thresholds"]["support_min"])
    metrics = {}
    for name, split in scored.items():
        metrics[name] = {
            "questions": len(split.items),
            "context_auc_without_reader": _auc(split.answered, split.raw),
            "reader_auc": _auc(split.answered, readings[name]),
            "context_auc": _auc(split.answered, calibrated[name]),
            **decision_metrics(calibrated[name], split.answerable, split.holds, thresholds),
        }
    return Trained(
        base.unit_model,
        base.context_model,
        calibrator,
        metrics,
        thresholds,
        base.rarity,
        base.centroid,
        reader=reader,
        base=base.meta["name"],
    )
