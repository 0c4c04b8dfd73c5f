"""Training the answer scorer on a SQuAD 2.0-format dataset (IDK-MRC).

The scorer learns from what it will see: each split's paragraphs are loaded
as a public collection of their own, and every question is searched there
and given the context the pipeline would give it (``context_select``), so
the evidence holds its own paragraph and the others retrieval found on the
topic. A unit is positive when it belongs to the question's own paragraph
and holds a gold answer text; every unit of an unanswerable question is
negative. Two models from scikit-learn:

- the unit model: P(this unit answers the question);
- the context model: P(the evidence answers the question at all), from the
  unit probabilities (out-of-fold on the training split, so it learns from
  scores like those it will see) and what the evidence as a whole covers.

The validation split calibrates the context model (Platt scaling) and sets the
status thresholds, together with an editor-style dev set over the demo
archive (``demo/editor-dev.jsonl``: paraphrases, frames, English, exact
strings, tables, near misses) when it is loaded; the test split is not here.

IDK-MRC alone teaches the wrong lesson about wording: its unanswerable
questions were made by swapping or adding words, so there an uncovered word
means "no answer". The training split is therefore augmented with what it
lacks (``augment``), each copy keeping its question's labels:

- a search-box rendering of some questions — content words only, no
  question or function words ("rating proteksi LDX200P-32-1T");
- some questions with their term signals hidden, as for a question in
  another language than its evidence: the models learn to decide from
  meaning, names, numbers and answer types alone.

Those hidden copies still carry an Indonesian question's cosines, which run
higher than an English question's over the same Indonesian text. The
training split therefore also takes real English questions over Indonesian
paragraphs (``data/squad2-en-over-id``: SQuAD 2.0 dev's English questions,
its paragraphs machine-translated, answerable and unanswerable alike).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import logging
import platform
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from django.conf import settings

from answering.answer_keys import normalise_answer
from answering.answerer import calibrated_probability, log_odds
from answering.features import (
    CONTEXT_NAMES,
    FEATURES_VERSION,
    NAMES,
    Passage,
    Question,
    baseline_of,
    context_features,
    rarity_of,
    rarity_table,
    unit_features,
)
from answering.units import UNITS_VERSION
from retrieval.beir import squad_passages, squad_read
from retrieval.embeddings import provider_from_config

logger = logging.getLogger(__name__)


@dataclass
class Item:
    """A question with the evidence the pipeline gives the scorer for it."""

    question: Question
    passages: list[Passage]
    labels: np.ndarray  # per unit: holds the gold answer
    answerable: bool  # the question has an answer (in its own paragraph)
    answers: list[str]
    group: str = ""  # the original question: its augmented copies stay in its fold
    # How much the models weigh it: the archive questions (``items_from_archive``)
    # are few beside IDK-MRC's thousands and would otherwise teach nothing.
    weight: float = 1.0

    @property
    def answered_by_evidence(self) -> bool:
        """The evidence holds the answer: what the context model learns."""
        return bool(self.labels.any())


def sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


@dataclass
class _CachedQueries:
    """An embedding provider whose query vectors come from a file cache
    (e5 embeds queries with their own prefix, so the passage cache has none)."""

    inner: object
    cache: Path
    known: dict

    @classmethod
    def open(cls, cache: Path) -> _CachedQueries:
        known: dict[str, np.ndarray] = {}
        if cache.exists():
            with np.load(cache) as stored:
                known = dict(zip(stored["keys"].tolist(), stored["vectors"], strict=True))
        return cls(provider_from_config(), cache, known)

    def __getattr__(self, name: str) -> object:
        return getattr(self.inner, name)

    def _key(self, text: str) -> str:
        return hashlib.sha256(f"{self.inner.model}\x1f{self.inner.version}\x1f{text}".encode()).hexdigest()

    def embed_query(self, text: str) -> np.ndarray:
        key = self._key(text)
        if key not in self.known:
            self.known[key] = self.inner.embed_query(text)
        return self.known[key]

    def embed_passages(self, texts):  # noqa: ANN001, ANN201
        return self.inner.embed_passages(texts)

    def save(self) -> None:
        self.cache.parent.mkdir(parents=True, exist_ok=True)
        np.savez(
            self.cache,
            keys=np.asarray(list(self.known)),
            vectors=np.asarray(list(self.known.values()), dtype=np.float32),
        )


def items_build(
    path: Path,
    *,
    cache_dir: Path,
    limit: int | None = None,
    augment: bool = False,
    question_field: str = "question",
    progress: Callable[[str], None] = lambda message: None,
) -> list[Item]:
    """Every question of the file with the evidence the pipeline would
    score for it: the paragraphs are loaded as their own public collection
    (``squad-<file>``, as ``eval_import --squad`` does), each question is
    searched there and its context selected as for an editor, and its units
    prepared by the scorer's own code. ``augment`` adds the copies the
    module docstring describes (for the training split only).
    ``question_field`` names the question's wording to ask (the
    cross-lingual file's ``question_id`` is its Indonesian translation);
    questions without that field are left out, and the count says so."""
    from retrieval.beir import document_key, load_passages

    paragraphs = squad_read(path)[:limit] if limit else squad_read(path)
    collection = f"squad-{path.stem}" + (f"-{limit}" if limit else "")
    progress(f"{len(paragraphs)} paragraf ke koleksi {collection} (yang sudah terindeks dilewati) …")
    stored = squad_passages(paragraphs)
    loaded = load_passages(passages=stored, collection=collection, id_as_title=False)
    progress(f"{loaded.indexed} paragraf baru diindeks ({loaded.embedded} embedding baru)")
    own = {document_key(collection, p.id): n for n, p in enumerate(stored)}
    questions = [(n, qa) for n, p in enumerate(paragraphs) for qa in p["qas"] if qa.get(question_field)]
    if question_field != "question":
        asked = sum(len(p["qas"]) for p in paragraphs)
        progress(f"{len(questions)} dari {asked} pertanyaan punya {question_field!r}")
    provider = _CachedQueries.open(cache_dir / f"queries-{path.stem}.npz")
    items = []
    for count, (n, qa) in enumerate(questions, 1):
        answers = [] if qa.get("is_impossible") else [a["text"] for a in qa.get("answers", [])]
        keys = [normalise_answer(a) for a in answers if normalise_answer(a)]
        texts = [qa[question_field]]
        if augment and _chosen(qa["id"], "keywords", 0.2) and (query := keyword_query(texts[0])):
            texts.append(query)
        for text in texts:
            item = _item(
                text,
                collection=collection,
                provider=provider,
                answers=answers,
                group=qa["id"],
                holds=lambda hit, unit, n=n, keys=keys: own.get(hit.document) == n and _holds(unit.text, keys),
            )
            items.append(item)
            if augment and _chosen(f"{qa['id']}|{text}", "hidden", 0.15):
                items.append(dataclasses.replace(item, question=dataclasses.replace(item.question, cross_lingual=True)))
        if count % 1000 == 0:
            progress(f"{count}/{len(questions)} pertanyaan dicari dan disiapkan")
    provider.save()
    return items


def items_cached(
    cache_dir: Path, name: str, reuse: bool, progress: Callable[[str], None], build: Callable[[], list[Item]]
) -> list[Item]:
    """``build()``'s items, kept in ``cache_dir`` for the next run; with
    ``reuse``, the kept ones (the searching and preparing is most of a run)."""
    import pickle

    path = cache_dir / f"items-{name}-{UNITS_VERSION}.pkl"
    if reuse and path.is_file():
        with path.open("rb") as handle:
            items = pickle.load(handle)  # noqa: S301 - written by this command on this machine
        progress(f"{len(items)} pertanyaan {name} dipakai ulang dari {path}")
        return items
    items = build()
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as handle:
        pickle.dump(items, handle, protocol=5)
    return items


def _item(
    question: str,
    *,
    collection: str,
    provider: object,
    answers: list[str],
    group: str,
    holds: Callable,
    user: object = None,
    as_of: object = None,
) -> Item:
    """One question searched as ``user`` would, its context selected and its
    units prepared by the pipeline's own code; ``holds(hit, unit)`` labels a unit."""
    from answering.answerer import evidence_prepare
    from answering.context import context_select
    from answering.question_form import asks_about_present
    from retrieval.in_force import hits_as_of
    from retrieval.search import search

    response = search(
        question,
        user,
        k=settings.NALARKU_ANSWER_SEARCH_K,
        collection=collection,
        expand=False,
        provider=provider,
        include_superseded=as_of is not None,
    )
    hits = hits_as_of(response.results, as_of) if as_of else response.results
    chunks = context_select(hits, question=response.query, newest_first=as_of is None and asks_about_present(question))
    prepared = evidence_prepare(
        response.query,
        chunks,
        vector=response.vector,
        collection=collection,
        provider=getattr(provider, "inner", provider),
        as_of=as_of is not None,
    )
    labels = [
        float(holds(hit, u)) for hit, passage in zip(chunks, prepared.passages, strict=True) for u in passage.units
    ]
    return Item(prepared.question, prepared.passages, np.asarray(labels), bool(answers), answers, group=group)


def _holds(text: str, keys: list[str]) -> bool:
    return any(f" {k} " in f" {normalise_answer(text)} " for k in keys)


def _chosen(key: str, purpose: str, share: float) -> bool:
    """A stable choice of ``share`` of the questions for one augmentation."""
    digest = hashlib.sha256(f"{purpose}\x1f{key}".encode()).digest()
    return int.from_bytes(digest[:4], "big") / 2**32 < share


def keyword_query(question: str) -> str | None:
    """``question`` as typed into a search box: its content words in their
    order, without question and function words; None when fewer than two remain."""
    from answering.question_form import frame_free
    from retrieval.lexical import STOPWORDS

    words = [
        w
        for w in re.findall(r"[\w][\w./-]*[\w]|\w", frame_free(question))
        if w.lower() not in STOPWORDS and w.lower() not in _FUNCTION_WORDS
    ]
    return " ".join(words) if len(words) >= 2 and len(words) < len(question.split()) else None


# Question and function words a search-box query leaves out, beyond the stopwords.
_FUNCTION_WORDS = frozenset("saja nama merupakan termasuk disebut berdasarkan".split())


def items_from_evalset(name: str, *, progress: Callable[[str], None] = lambda message: None) -> list[Item]:
    """The cases of an evaluation set over an archive (the editor-style dev
    set), each searched as its user, as of its date, with the context the
    pipeline gives: a unit holds the answer when it contains an answer key
    (and comes from a gold document, when the case names some)."""
    from django.contrib.auth import get_user_model

    from retrieval.embeddings import provider_from_config
    from review.models import AnswerStatus, EvalSet

    eval_set = EvalSet.objects.get(name=name)
    users = {u.username: u for u in get_user_model().objects.all()}
    provider = provider_from_config()
    items = []
    for case in eval_set.cases.order_by("case_id"):
        gold = {g.get("document") for g in case.gold if g.get("document")}
        keys = [normalise_answer(a) for a in case.answers if normalise_answer(a)]
        answerable = case.expected_status != AnswerStatus.INSUFFICIENT_EVIDENCE
        item = _item(
            case.question,
            collection=eval_set.collection,
            provider=provider,
            answers=list(case.answers) if answerable else [],
            group=case.case_id,
            user=users.get(case.username),
            as_of=case.as_of,
            holds=lambda hit, unit, keys=keys, gold=gold: (
                (not gold or hit.document in gold) and _holds(unit.text, keys)
            ),
        )
        items.append(dataclasses.replace(item, answerable=answerable))
    progress(f"{len(items)} kasus set {name} disiapkan")
    return items


# The training archive's own collection: never the editorial archive, so no
# editor's search and no evaluation set ever meets its documents.
ARCHIVE_COLLECTION = "latih-arsip"


def items_from_archive(
    folder: Path, *, weight: float = 1.0, progress: Callable[[str], None] = lambda message: None
) -> list[Item]:
    """Questions over a documentation archive written for training
    (``data/archive-train``: ``archive.jsonl``, a manifest as ``ingest`` reads
    it, and ``questions.jsonl``): tables, commands, error codes, release
    notes and policies, what IDK-MRC's Wikipedia paragraphs never hold. The
    archive is ingested into its own collection (idempotent: unchanged
    revisions are not indexed again) and each question searched there as the
    pipeline would; a unit holds the answer when it contains a key and comes
    from the question's gold document. A question without answers is a near
    miss: the archive does not answer it."""
    import io

    from django.core.management import call_command

    call_command(
        "ingest", manifest=folder / "archive.jsonl", collection=ARCHIVE_COLLECTION, sync=True, stdout=io.StringIO()
    )
    provider = provider_from_config()
    cases = [json.loads(line) for line in (folder / "questions.jsonl").read_text(encoding="utf-8").splitlines() if line]
    items = []
    for case in cases:
        keys = [normalise_answer(a) for a in case["answers"] if normalise_answer(a)]
        gold = set(case["gold"])
        item = _item(
            case["question"],
            collection=ARCHIVE_COLLECTION,
            provider=provider,
            answers=list(case["answers"]),
            group=case["id"],
            holds=lambda hit, unit, keys=keys, gold=gold: hit.document in gold and _holds(unit.text, keys),
        )
        items.append(dataclasses.replace(item, weight=weight))
    progress(f"{len(items)} pertanyaan arsip latih {folder} disiapkan (bobot {weight:g})")
    return items


def item_rows(items: list[Item]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Unit rows, labels and the index of each row's item."""
    rows, labels, groups = [], [], []
    for n, item in enumerate(items):
        x = unit_features(item.question, item.passages)
        rows.append(x)
        labels.append(item.labels[: len(x)])
        groups.append(np.full(len(x), n))
    return np.vstack(rows), np.concatenate(labels), np.concatenate(groups)


def units_centroid(items: list[Item]) -> np.ndarray:
    """The mean embedding of the units of the training paragraphs (each
    paragraph once): where e5's space is centred, the features-v4 baseline."""
    paragraphs = {passage.text: passage for item in items for passage in item.passages}
    vectors = [passage.unit_vectors for passage in paragraphs.values() if len(passage.units)]
    return np.vstack(vectors).mean(axis=0).astype(np.float32)


def _unit_model():  # noqa: ANN202
    from sklearn.ensemble import HistGradientBoostingClassifier

    return HistGradientBoostingClassifier(
        max_iter=300, learning_rate=0.06, max_leaf_nodes=31, min_samples_leaf=40, l2_regularization=1.0, random_state=0
    )


def _context_model():  # noqa: ANN202
    from sklearn.ensemble import HistGradientBoostingClassifier

    # Chosen on IDK-MRC valid among four settings (their decision accuracies
    # at the operating point spread over 0.69–0.72).
    return HistGradientBoostingClassifier(
        max_iter=300, learning_rate=0.05, max_leaf_nodes=31, min_samples_leaf=100, l2_regularization=1.0, random_state=0
    )


def context_rows(items: list[Item], x: np.ndarray, groups: np.ndarray, p: np.ndarray) -> np.ndarray:
    return np.vstack([context_features(item.question, x[groups == n], p[groups == n]) for n, item in enumerate(items)])


@dataclass
class Trained:
    unit_model: object
    context_model: object
    calibrator: object
    metrics: dict
    thresholds: dict
    rarity: dict | None = None
    centroid: np.ndarray | None = None


@dataclass
class _Scored:
    """A split scored by the trained models, for calibration and the bars."""

    items: list[Item]
    unit_p: np.ndarray
    unit_y: np.ndarray
    groups: np.ndarray
    raw: np.ndarray  # the context model's uncalibrated probability

    @property
    def answerable(self) -> np.ndarray:
        return np.asarray([item.answerable for item in self.items], dtype=float)

    @property
    def answered(self) -> np.ndarray:
        return np.asarray([item.answered_by_evidence for item in self.items], dtype=float)

    @property
    def holds(self) -> np.ndarray:
        return _top_holds_answer(self.items, self.unit_p, self.groups)


def _score_split(items: list[Item], unit_model: object, context_model: object) -> _Scored:
    x, y, groups = item_rows(items)
    p = unit_model.predict_proba(x)[:, 1]
    raw = context_model.predict_proba(context_rows(items, x, groups, p))[:, 1]
    return _Scored(items, p, y, groups, raw)


def train(
    train_items: list[Item],
    valid_items: list[Item],
    *,
    dev_items: list[Item] | None = None,
    progress: Callable[[str], None] = lambda message: None,
) -> Trained:
    """The two models on ``train_items``; Platt calibration on ``valid_items``;
    the status bars chosen on the validation split and, when given, the
    editor-style ``dev_items`` together (each weighs the same)."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.metrics import roc_auc_score
    from sklearn.model_selection import GroupKFold

    # General-language rarity from the training paragraphs (each once), for
    # every split alike: the scorer reads the same table from the artefact.
    paragraphs = {passage.text: passage.stems for item in train_items for passage in item.passages}
    rarity = rarity_table(list(paragraphs.values()))
    centroid = units_centroid(train_items)
    for item in [*train_items, *valid_items, *(dev_items or [])]:
        item.question.rarity = rarity_of(item.question.content, rarity)
        item.question.baseline = baseline_of(item.question.vector, centroid)
    x, y, groups = item_rows(train_items)
    # (Items pickled before ``weight`` existed read the dataclass's default.)
    item_weight = np.asarray([item.weight for item in train_items])
    w = item_weight[groups]
    progress(f"model unit: {len(x)} baris, {int(y.sum())} positif, {len(train_items)} pertanyaan")
    # Folds by original question: an augmented copy never scores its original.
    question_of = np.asarray([item.group or str(n) for n, item in enumerate(train_items)])[groups]
    out_of_fold = np.zeros(len(x))
    for fit, held in GroupKFold(n_splits=4).split(x, y, question_of):
        model = _unit_model().fit(x[fit], y[fit], sample_weight=w[fit])
        out_of_fold[held] = model.predict_proba(x[held])[:, 1]
    unit_model = _unit_model().fit(x, y, sample_weight=w)
    context_x = context_rows(train_items, x, groups, out_of_fold)
    context_y = np.asarray([item.answered_by_evidence for item in train_items], dtype=float)
    context_model = _context_model().fit(context_x, context_y, sample_weight=item_weight)
    progress("model konteks dilatih; kalibrasi dan ambang …")

    valid = _score_split(valid_items, unit_model, context_model)
    # Platt scaling on the log-odds: monotone (the ranking stays the model's)
    # and smooth, so the bars can sit anywhere — isotonic steps were too coarse.
    calibrator = LogisticRegression(C=1e6).fit(log_odds(valid.raw), valid.answered)
    sets = {"valid": valid}
    if dev_items:
        sets["dev"] = _score_split(dev_items, unit_model, context_model)
    calibrated = {name: calibrated_probability(calibrator, split.raw) for name, split in sets.items()}
    thresholds = thresholds_choose_joint([(calibrated[n], sets[n].answerable, sets[n].holds) for n in sets])
    thresholds["support_min"] = support_bar(valid.unit_p, valid.unit_y)
    metrics = {
        "train": {
            "questions": len(train_items),
            "unit_rows": len(x),
            "unit_positives": int(y.sum()),
            "unit_auc_out_of_fold": round(float(roc_auc_score(y, out_of_fold)), 4),
        },
    }
    for name, split in sets.items():
        metrics[name] = {
            "questions": len(split.items),
            "unit_rows": len(split.unit_p),
            "unit_auc": _auc(split.unit_y, split.unit_p),
            "context_auc": _auc(split.answered, split.raw),
            **decision_metrics(calibrated[name], split.answerable, split.holds, thresholds),
        }
    return Trained(unit_model, context_model, calibrator, metrics, thresholds, rarity, centroid)


def _auc(y: np.ndarray, p: np.ndarray) -> float | None:
    from sklearn.metrics import roc_auc_score

    return round(float(roc_auc_score(y, p)), 4) if 0 < y.sum() < len(y) else None


def _top_holds_answer(items: list[Item], p: np.ndarray, groups: np.ndarray, claims: int = 3) -> np.ndarray:
    """Per question: one of its top units (the claims it would get) holds the answer."""
    return np.asarray(
        [
            bool(item.labels[np.argsort(-p[groups == n])[:claims]].any()) if len(item.labels) else False
            for n, item in enumerate(items)
        ],
        dtype=bool,
    )


def decision_metrics(p: np.ndarray, answerable: np.ndarray, holds: np.ndarray, thresholds: dict) -> dict:
    refused = p < thresholds["refuse_below"]
    answered = p >= thresholds["answer_at"]
    yes, no = answerable == 1, answerable == 0
    correct = np.where(yes, holds & ~refused, refused)
    return {
        "decision_accuracy": round(float(correct.mean()), 4),
        "answer_in_claims": round(float((holds & ~refused)[yes].mean()), 4),
        "unanswerable_refused": round(float(refused[no].mean()), 4),
        "unanswerable_answered": round(float(answered[no].mean()), 4),
        "answerable_refused": round(float(refused[yes].mean()), 4),
    }


# What the product asks of the operating point (the editors' issues 12 and
# 20): an answer exists → it is shown for at least 78 % of answerable
# questions; no more than 8 % of unanswerable questions come back ``answered``.
MIN_ANSWER_IN_CLAIMS = 0.78
MAX_UNANSWERABLE_ANSWERED = 0.08


def thresholds_choose(
    p: np.ndarray,
    answerable: np.ndarray,
    holds: np.ndarray,
    max_unanswerable_answered: float = MAX_UNANSWERABLE_ANSWERED,
    min_answer_in_claims: float = MIN_ANSWER_IN_CLAIMS,
) -> dict:
    """``refuse_below``: the bar with the best decision accuracy among those
    that still show the answer for ``min_answer_in_claims`` of answerable
    questions (the best bar overall if none does); ``answer_at``: the lowest
    bar at which at most ``max_unanswerable_answered`` of unanswerable
    questions would be ``answered`` (never below the refusal bar)."""
    grid = np.unique(np.round(p, 4))
    yes = answerable == 1
    scored = [
        (float(np.where(yes, holds & (p >= t), p < t).mean()), float((holds & (p >= t))[yes].mean()), float(t))
        for t in grid
    ]
    allowed = [s for s in scored if s[1] >= min_answer_in_claims] or scored
    refuse = max(allowed, key=lambda s: (s[0], -s[2]))[2] if allowed else 0.5
    answer = 1.0
    for t in sorted(grid):
        if float((p[answerable == 0] >= t).mean()) <= max_unanswerable_answered:
            answer = float(t)
            break
    return {"refuse_below": round(refuse, 4), "answer_at": round(max(answer, refuse), 4)}


def thresholds_choose_joint(
    sets: list[tuple[np.ndarray, np.ndarray, np.ndarray]],
    max_unanswerable_answered: float = MAX_UNANSWERABLE_ANSWERED,
    *,
    resamples: int = 200,
) -> dict:
    """The bars of ``thresholds_choose`` over several sets at once, each set
    (calibrated probability, answerable, top units hold the answer) weighing
    the same. ``refuse_below``: the lowest bar whose mean balanced decision
    accuracy (answerable answered with the answer in the claims, and
    unanswerable refused, half each) is within one standard error of the
    best bar's, the error from resampling each set's questions (the
    one-standard-error rule: bars the sets cannot tell apart, and the lowest
    of them shows the most answers). ``answer_at``: the lowest bar that keeps
    ``answered`` for unanswerable questions within the limit in every set.

    No minimum share of answers is imposed: on a model that ranks well the
    product's 78 % (``MIN_ANSWER_IN_CLAIMS``) was met only far down the
    curve, where most near misses are no longer refused."""
    if len(sets) == 1:
        return thresholds_choose(*sets[0], max_unanswerable_answered)
    grid = np.unique(np.round(np.concatenate([p for p, _, _ in sets]), 4))

    def balanced(p: np.ndarray, answerable: np.ndarray, holds: np.ndarray, bars: np.ndarray) -> np.ndarray:
        # Balanced within each set: answering the answerable and refusing the
        # rest weigh the same whatever a set's mix (the dev set is mostly answerable).
        shown = p[None, :] >= bars[:, None]
        yes, no = answerable == 1, answerable == 0
        answered_right = (shown & holds[None, :])[:, yes].mean(axis=1) if yes.any() else np.ones(len(bars))
        refused_right = (~shown)[:, no].mean(axis=1) if no.any() else np.ones(len(bars))
        return (answered_right + refused_right) / 2

    accuracy = np.mean([balanced(*s, grid) for s in sets], axis=0)
    best = int(np.argmax(accuracy))
    rng = np.random.default_rng(0)  # the same bars from the same scores
    again = []
    for _ in range(resamples):
        drawn = [rng.integers(0, len(p), len(p)) for p, _, _ in sets]
        again.append(
            np.mean(
                [balanced(p[d], a[d], h[d], grid[best : best + 1])[0] for (p, a, h), d in zip(sets, drawn, strict=True)]
            )
        )
    error = float(np.std(again))
    refuse = float(grid[accuracy >= accuracy[best] - error].min())
    answer = 1.0
    for t in grid:
        if all(
            float((p[answerable == 0] >= t).mean()) <= max_unanswerable_answered
            for p, answerable, _ in sets
            if (answerable == 0).any()
        ):
            answer = float(t)
            break
    return {"refuse_below": round(refuse, 4), "answer_at": round(max(answer, refuse), 4)}


def support_bar(p: np.ndarray, y: np.ndarray) -> float:
    """The unit probability that best separates units holding the answer
    from the rest (highest F1 on the validation split): below it a claim's
    unit is weak support."""
    from sklearn.metrics import precision_recall_curve

    precision, recall, bars = precision_recall_curve(y, p)
    f1 = 2 * precision[:-1] * recall[:-1] / np.maximum(precision[:-1] + recall[:-1], 1e-9)
    return round(float(bars[int(np.argmax(f1))]), 4)


def artefact_write(trained: Trained, directory: Path, *, data: dict[str, Path], name: str) -> Path:
    """``{name}.pkl`` (the models) and ``{name}.json`` (what they are and how
    they measured) side by side."""
    import pickle

    import sklearn

    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{name}.pkl"
    with path.open("wb") as handle:
        pickle.dump(
            {
                "unit_model": trained.unit_model,
                "context_model": trained.context_model,
                "calibrator": trained.calibrator,
                "rarity": trained.rarity,
                "centroid": trained.centroid,
            },
            handle,
            protocol=5,
        )
    provider = provider_from_config()
    meta = {
        "name": name,
        "created": time.strftime("%Y-%m-%d"),
        "data": {label: {"file": file.name, "sha256": sha256(file)} for label, file in data.items()},
        "features": list(NAMES),
        "context_features": list(CONTEXT_NAMES),
        "features_version": FEATURES_VERSION,
        "units_version": UNITS_VERSION,
        "embedding": {"provider": provider.provider, "model": provider.model, "version": provider.version},
        "libraries": {
            "scikit-learn": sklearn.__version__,
            "numpy": np.__version__,
            "python": platform.python_version(),
        },
        "models": {
            "unit": repr(trained.unit_model),
            "context": repr(trained.context_model),
            "calibration": "Platt (logistic on the log-odds) on the validation split",
        },
        "contexts": "search + context_select over each split loaded as its own collection",
        "thresholds": trained.thresholds,
        "metrics": trained.metrics,
        "sha256": sha256(path),
    }
    (directory / f"{name}.json").write_text(json.dumps(meta, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    return path


def default_cache_dir() -> Path:
    return Path(settings.DATA_DIR) / "answerer"
