"""The answer scorer: for a question and its evidence chunks, the
probability that each unit answers the question and the calibrated
probability that the evidence answers it at all; the status band follows
from the latter.

The models are trained by ``python manage.py train_answerer`` (see
``training.py``) and committed as a versioned artefact beside this file:
``artefact/answerer-v6.pkl`` with ``answerer-v6.json`` (data checksums,
features, library versions, metrics, thresholds; v6 holds v5's models with
an ``answered`` bar measured end to end, see its ``thresholds_source``).
It is the baseline the reader (``reader/``) is measured against, and the
judge of the evidence when the reader cannot load. Loading is lazy and per
process, like the embedder: scikit-learn's gradient boosting predicts on
OpenMP threads, and a process that forks after using them leaves children
that can hang; so nothing is loaded at import, and a forked child loads its
own copy on first use.
"""

from __future__ import annotations

import json
import os
import pickle
import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from django.conf import settings
from threadpoolctl import threadpool_limits

from answering.facts import code_names, fact_present, identifiers
from answering.features import (
    FEATURES_VERSION,
    Passage,
    Question,
    baseline_of,
    context_features,
    idf_normalised,
    rarity_of,
    read_with,
    unit_features,
)
from answering.quantities import asked_measure, measure_words
from answering.question_form import frame_free, inflects, is_english, is_protected
from answering.units import Unit, units_of
from retrieval.embeddings import EmbeddingProvider, embed_passages_cached, provider_from_config
from retrieval.hits import Hit
from retrieval.lexical import STOPWORDS, stems, term_frequencies

ARTEFACT_DIR = Path(__file__).resolve().parent / "artefact"

ANSWERED, NEEDS_REVIEW, INSUFFICIENT = "answered", "needs_review", "insufficient_evidence"


class ArtefactError(RuntimeError):
    """The scorer's artefact is missing or was made by other library versions."""


@dataclass
class Artefact:
    unit_model: object
    context_model: object
    calibrator: object
    meta: dict
    rarity: dict | None = None  # stem document frequencies of general text
    centroid: np.ndarray | None = None  # features-v4: mean embedding of the training units


_lock = threading.Lock()
_loaded: dict[Path, Artefact] = {}
_loaded_pid: int | None = None
# An artefact chosen for the current context (eval_answers measures two
# side by side in one run); None: the one settings name.
_chosen: ContextVar[Path | None] = ContextVar("answerer_artefact", default=None)


def artefact_path(name: str) -> Path:
    """An artefact by name ("answerer-v1") in the artefact folder, or by path."""
    path = Path(name)
    return path if path.suffix == ".pkl" else ARTEFACT_DIR / f"{name}.pkl"


@contextmanager
def artefact_used(name: str) -> Iterator[None]:
    """Score with artefact ``name`` (its models and its bars) inside the block."""
    token = _chosen.set(artefact_path(name))
    try:
        yield
    finally:
        _chosen.reset(token)


def artefact() -> Artefact:
    """The process's own copy of the artefact, loaded on first use after any fork."""
    global _loaded_pid
    path = _chosen.get() or Path(settings.NALARKU_ANSWERER["artefact"])
    with _lock:
        if _loaded_pid != os.getpid():
            _loaded.clear()
            _loaded_pid = os.getpid()
        if path not in _loaded:
            _loaded[path] = artefact_read(path)
        return _loaded[path]


def artefact_read(path: Path) -> Artefact:
    import sklearn

    meta_path = path.with_suffix(".json")
    if not path.is_file() or not meta_path.is_file():
        raise ArtefactError(f"artefak penilai jawaban tidak ada: {path} (jalankan manage.py train_answerer)")
    meta = json.loads(meta_path.read_text(encoding="utf-8"))
    trained_with = meta["libraries"]["scikit-learn"]
    if trained_with.split(".")[:2] != sklearn.__version__.split(".")[:2]:
        raise ArtefactError(
            f"artefak {path.name} dilatih dengan scikit-learn {trained_with}, terpasang "
            f"{sklearn.__version__}: latih ulang dengan manage.py train_answerer"
        )
    if meta.get("features_version") != FEATURES_VERSION:
        raise ArtefactError(
            f"artefak {path.name} membaca fitur {meta.get('features_version', 'versi lama')}, penilai ini "
            f"{FEATURES_VERSION}: latih ulang dengan manage.py train_answerer"
        )
    with path.open("rb") as handle:
        # The artefact is the project's own file, committed beside this module.
        models = pickle.load(handle)  # noqa: S301
    return Artefact(
        models["unit_model"],
        models["context_model"],
        models["calibrator"],
        meta,
        models.get("rarity"),
        models.get("centroid"),
    )


@dataclass
class ScoredUnit:
    hit: Hit
    unit: Unit
    probability: float
    vector: np.ndarray = field(repr=False)


# The units a claim could have been made of, by one judgement: its most
# probable, each near enough the best (``Scored.candidates``).
CANDIDATES = 5
CANDIDATE_RATIO = 0.15


@dataclass
class Scored:
    """The evidence of one question, scored."""

    units: list[ScoredUnit]  # most probable first
    answerable: float  # calibrated P(the evidence answers the question)
    question_word: str
    missing_terms: list[str]  # distinctive question words no evidence holds
    # Identifiers of the question (KR-230, CVE-2026-1235), or the unit of
    # measure it asks in ("berapa meter"), that no evidence contains: the
    # evidence is about something else, whatever the models say (IDK-MRC has
    # few such codes, so the models cannot learn this).
    absent_identifiers: list[str] = field(default_factory=list)
    vector: np.ndarray = field(repr=False, default_factory=lambda: np.empty(0))  # the question's, unit length
    # Names and numbers of the question (their stems) that no evidence holds,
    # as they are or inflected: the evidence may be about a sibling thing.
    protected_missing: list[str] = field(default_factory=list)
    # The pattern of a number in the unit the question asks in ("berapa
    # jam": 24 jam), None when it asks in none.
    asked_unit: re.Pattern | None = None
    reading: float | None = None  # the reader's best margin over "no answer", when the reader judged
    # The status bars these probabilities are read against: None for the
    # scorer's artefact (``thresholds()``); the reader's own when it scored.
    bars: dict[str, float] | None = None
    judged_by: str = ""  # the reader that scored the units, "" for the scorer's artefact
    # The scorer's own judgement of the same units, when the reader re-scored them.
    prior: Scored | None = field(default=None, repr=False)

    @property
    def best(self) -> float:
        return self.units[0].probability if self.units else 0.0

    def candidates(self) -> set[tuple[str, int, int]]:
        """The units a claim could be made of, by this judgement: its
        ``CANDIDATES`` most probable, each at least ``CANDIDATE_RATIO`` × the
        best (evidence id, start, end)."""
        bar = self.best * CANDIDATE_RATIO
        return {(s.hit.evidence_id, s.unit.start, s.unit.end) for s in self.units[:CANDIDATES] if s.probability >= bar}

    def seconded(self, evidence_id: str, span: list[int] | None) -> bool:
        """The scorer's judgement (``prior``) counts the unit at ``span`` of
        ``evidence_id`` among its candidates too. The reader reads each
        chunk on its own: its probabilities say how surely a chunk answers,
        not whether two chunks speak of one subject, so an off-subject span
        reads as surely as the answer (trash kept "90 hari" at 0.81 under a
        question on object versions' default, answered "60 hari" at 0.95).
        The scorer weighs every unit against the question's words together.
        With no prior (the scorer judged alone) every unit is seconded."""
        if self.prior is None:
            return True
        return span is not None and (evidence_id, *span) in self.prior.candidates()

    def claim_order(self, meaning_weight: float = 0.0) -> list[ScoredUnit]:
        """The units in the order claims are drawn from them: by the log-odds
        of their probability plus ``meaning_weight`` × their e5 cosine to the
        question. The unit model learned from IDK-MRC, where a unit sharing
        the question's words nearly always answers it; in an archive where
        every unit of a product's page shares them, meaning ranks the
        answering unit first more often (bench/claim_order.py). The
        probabilities and the band are the models' own, whatever the order.
        A question asking in a unit ("berapa jam") is answered by a number in
        it: by the scorer's judgement, units that give one come first
        ("Waktu bicara — Nilai: 24 jam" before the datasheet's date line that
        shares more of its words). The reader's order is its own: it reads
        the unit asked for, and this rule changed none of its figures on any
        evaluation set (label ``s56-nounit`` against ``s53``)."""
        order = list(self.units)
        if meaning_weight and len(self.vector):
            order.sort(
                key=lambda s: -(float(log_odds(s.probability)[0, 0]) + meaning_weight * float(s.vector @ self.vector))
            )
        if self.asked_unit is not None and not self.judged_by:
            order.sort(key=lambda s: self.asked_unit.search(s.unit.text) is None)  # stable: the order above within
        return order

    def thresholds(self) -> dict[str, float]:
        return self.bars if self.bars is not None else thresholds()

    def band(self) -> str:
        bars = self.thresholds()
        if not self.units or self.absent_identifiers or self.answerable < bars["refuse_below"]:
            return INSUFFICIENT
        return ANSWERED if self.answerable >= bars["answer_at"] else NEEDS_REVIEW

    def unit_for(self, evidence_id: str, text: str) -> ScoredUnit | None:
        """The unit of ``evidence_id`` that ``text`` restates best (most
        shared words), for claims a model wrote."""
        words = set(_WORD.findall(text.lower()))
        candidates = [s for s in self.units if s.hit.evidence_id == evidence_id]
        if not candidates:
            return None
        return max(candidates, key=lambda s: (len(words & set(_WORD.findall(s.unit.text.lower()))), s.probability))


_WORD = re.compile(r"\w+")


def log_odds(p: np.ndarray) -> np.ndarray:
    clipped = np.clip(np.asarray(p, dtype=float), 1e-6, 1 - 1e-6)
    return np.log(clipped / (1 - clipped)).reshape(-1, 1)


def calibrated_probability(calibrator: object, raw: np.ndarray) -> np.ndarray:
    """The context model's probability, Platt-scaled on the validation split."""
    return calibrator.predict_proba(log_odds(raw))[:, 1]


def thresholds() -> dict[str, float]:
    """The status bars: settings when given, else the artefact's measured ones."""
    measured = artefact().meta["thresholds"]
    config = settings.NALARKU_ANSWERER
    return {
        key: float(config[key]) if config.get(key) is not None else float(measured[key])
        for key in ("refuse_below", "answer_at", "support_min")
    }


@dataclass
class Prepared:
    """A question and its evidence as the models see them."""

    question: Question
    chunks: list[Hit]
    passages: list[Passage]
    vectors: np.ndarray  # every unit's, in order
    missing_terms: list[str]
    absent_identifiers: list[str]
    protected_missing: list[str] = field(default_factory=list)
    asked_unit: re.Pattern | None = None  # see Scored.asked_unit


def breadcrumb(hit: Hit) -> str:
    """The chunk's title and heading path, each part once (a document
    without headings has its title as its heading path)."""
    parts = [hit.title, *hit.heading_path.split(" > ")]
    return " > ".join(dict.fromkeys(p.strip() for p in parts if p and p.strip()))


def hit_units(hit: Hit) -> list[Unit]:
    """The units of a retrieved chunk, its title and headings never among
    them. Every caller that numbers units (the prompt's ``#2``, validation
    resolving it, the scorer) reads them through here, so the numbers agree."""
    return units_of(hit.text, breadcrumb=breadcrumb(hit))


def evidence_prepare(
    question: str,
    chunks: list[Hit],
    *,
    vector: np.ndarray,
    collection: str,
    provider: EmbeddingProvider,
    as_of: bool = False,
    rarity: dict | None = None,
    centroid: np.ndarray | None = None,
) -> Prepared:
    """Units, stems (one round trip), IDF and unit embeddings (through the
    cache) of ``chunks`` for ``question``: the same path at training time
    and when an editor asks."""
    vector = vector / max(float(np.linalg.norm(vector)), 1e-9)
    units = [hit_units(hit) for hit in chunks]
    breadcrumbs = [breadcrumb(hit) for hit in chunks]
    flat = [read_with(crumb, u.text) for crumb, group in zip(breadcrumbs, units, strict=True) for u in group]
    words = _question_words(question)
    all_stems = stems(
        [question, frame_free(question, as_of=as_of), *words, *breadcrumbs, *(h.text for h in chunks), *flat]
    )
    question_stems, unframed_stems, word_stems = all_stems[0], all_stems[1], all_stems[2 : 2 + len(words)]
    rest = all_stems[2 + len(words) :]
    breadcrumb_stems = rest[: len(chunks)]
    # A number's unit is held as its word however it is written ("99,9%"
    # holds ‘persen’), as the question names it.
    chunk_stems = [s | measure_words(h.text) for s, h in zip(rest[len(chunks) : 2 * len(chunks)], chunks, strict=True)]
    unit_stems = [s | measure_words(u) for s, u in zip(rest[2 * len(chunks) :], flat, strict=True)]  # with breadcrumb
    protected = set().union(*(s for n, (w, s) in enumerate(zip(words, word_stems, strict=True)) if is_protected(w, n)))
    # A hyphenated word ("di-patch", "response-nya") is found through its
    # parts, which the parser gives as stems of their own; an identifier
    # (LD-4031) stays whole.
    content = {s for s in unframed_stems if "-" not in s or s in protected}
    vocabulary = set().union(*breadcrumb_stems, *chunk_stems) if chunks else set()
    asked = Question(
        question,
        question_stems,
        _idf(question_stems | content, collection),
        vector,
        content=content,
        protected=protected & content,
        variants=_variants(content, vocabulary),
        cross_lingual=is_english(question),
    )
    asked.rarity = rarity_of(asked.content, rarity)
    asked.baseline = baseline_of(vector, centroid)
    if flat:
        vectors, _ = embed_passages_cached(flat, provider)
        vectors = vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-9)
    else:
        vectors = np.empty((0, len(vector)), dtype=np.float32)
    passages, start = [], 0
    for hit, group, b_stems, c_stems in zip(chunks, units, breadcrumb_stems, chunk_stems, strict=True):
        passages.append(
            Passage(
                breadcrumbs[len(passages)],
                b_stems,
                c_stems,
                group,
                unit_stems[start : start + len(group)],
                vectors[start : start + len(group)],
                hit.text,
            )
        )
        start += len(group)
    missing = _missing_terms(question, words, word_stems, asked, chunks, breadcrumb_stems, chunk_stems, as_of=as_of)
    texts = [f"{h.title} {h.heading_path} {h.text}" for h in chunks]
    absent = sorted(f for f in identifiers(question) if not any(fact_present(f, t) for t in texts))
    unheld = sorted(t for t in asked.protected if t not in vocabulary and not asked.variants.get(t, set()) & vocabulary)
    measure = asked_measure(question)
    if measure and not any(measure[1].search(t) for t in texts):
        absent.append(measure[0])  # "berapa meter" and no length in meters anywhere
        if not any(measure[0] in m.lower() for m in missing):
            missing = [measure[0], *missing][:3]  # named even where the unit is an everyday word
    elif measure and (unmeasured := _unmeasured_subject(question, _subjects(question, absent, texts), flat, measure)):
        absent.append(unmeasured)
        missing = [unmeasured, *missing][:3]
    elif measure and unheld and not absent:
        # A number asked in a unit of a thing named as no evidence names it
        # ("uptime Enterprise Plus berapa persen" where only Enterprise has
        # one): whatever number is there belongs to something else.
        absent.extend(unheld)
    return Prepared(asked, chunks, passages, vectors, missing, absent, unheld, measure[1] if measure else None)


def _subjects(question: str, absent: list[str], texts: list[str]) -> set[str]:
    """The codes of the question the evidence holds, each as the name the
    question gives it where the evidence knows that name too: asked of the
    "X200 Pro" over evidence naming both, a value must be the X200 Pro's,
    not the X200's (a name the evidence never uses is left to ``unheld``)."""
    subjects = set(identifiers(question)) - set(absent)
    for name, codes in code_names(question).items():
        if codes <= subjects and any(fact_present(name, t) for t in texts):
            subjects = (subjects - codes) | {name}
    return subjects


def _unmeasured_subject(
    question: str, subjects: set[str], units: list[str], measure: tuple[str, re.Pattern]
) -> str | None:
    """A code asked in a unit ("Berapa mAh baterai LX-500BT?") over evidence
    where only the LX-700BT's row gives mAh: the value in the asked unit is stated of a sibling, not of
    the code the question names. None when some unit (read with its
    breadcrumb) gives a number in that unit together with one of the
    question's codes the evidence holds, or when the question names none;
    else what is missing, as the question writes it ("mAh LX-500BT")."""
    if not subjects or any(measure[1].search(u) and any(fact_present(s, u) for s in subjects) for u in units):
        return None
    unit = re.search(rf"\b{re.escape(measure[0])}\b", question, re.I)
    codes = sorted(question[m.start() : m.end()] for s in subjects if (m := re.search(re.escape(s), question, re.I)))
    return " ".join([unit.group(0) if unit else measure[0], *codes])


def _variants(content: set[str], vocabulary: set[str]) -> dict[str, set[str]]:
    """For each stem of the question, the evidence's stems that inflect it."""
    by_prefix: dict[str, list[str]] = {}
    for term in vocabulary:
        by_prefix.setdefault(term[:4], []).append(term)
    return {t: {u for u in by_prefix.get(t[:4], ()) if inflects(t, u)} for t in content}


def evidence_score(
    question: str,
    chunks: list[Hit],
    *,
    vector: np.ndarray | None = None,
    collection: str = "editorial",
    provider: EmbeddingProvider | None = None,
    as_of: bool = False,
) -> Scored:
    """Score every unit of ``chunks`` for ``question``. ``vector`` is the
    question's embedding from search (the question is embedded once per ask)."""
    provider = provider or provider_from_config()
    if vector is None:
        vector = provider.embed_query(question)
    loaded = artefact()
    prepared = evidence_prepare(
        question,
        chunks,
        vector=vector,
        collection=collection,
        provider=provider,
        as_of=as_of,
        rarity=loaded.rarity,
        centroid=loaded.centroid,
    )
    asked, vectors = prepared.question, prepared.vectors
    if not len(vectors):
        return Scored(
            [],
            0.0,
            asked.word,
            prepared.missing_terms,
            vector=asked.vector,
            absent_identifiers=prepared.absent_identifiers,
            protected_missing=prepared.protected_missing,
        )
    rows = unit_features(asked, prepared.passages)
    # One OpenMP thread: a few dozen rows gain nothing from a team of them,
    # and a process that never starts one stays safe to fork.
    with threadpool_limits(limits=1, user_api="openmp"):
        probabilities = loaded.unit_model.predict_proba(rows)[:, 1]
        raw = loaded.context_model.predict_proba(context_features(asked, rows, probabilities))[:, 1]
    answerable = float(calibrated_probability(loaded.calibrator, raw)[0])
    scored, n = [], 0
    for hit, passage in zip(chunks, prepared.passages, strict=True):
        for unit in passage.units:
            scored.append(ScoredUnit(hit, unit, round(float(probabilities[n]), 4), vectors[n]))
            n += 1
    scored.sort(key=lambda s: -s.probability)
    return Scored(
        scored,
        round(answerable, 4),
        asked.word,
        prepared.missing_terms,
        vector=asked.vector,
        absent_identifiers=prepared.absent_identifiers,
        protected_missing=prepared.protected_missing,
        asked_unit=prepared.asked_unit,
    )


def _idf(terms: set[str], collection: str) -> dict[str, float]:
    df, chunks = term_frequencies(terms, collection)
    return idf_normalised(df, chunks, terms)


_TOKEN = re.compile(r"[\w][\w./-]*[\w]|\w")
# General-language rarity (normalised IDF over the training paragraphs) at or
# below which a word is everyday: ‘punya’ 0.37, ‘pakai’ 0.42, ‘hilang’ 0.48;
# ‘retensi’, ‘firewall’ and ‘kondensor’ are 1.0.
EVERYDAY = 0.5
_QUESTION_WORDS = {"berapa", "kapan", "siapa", "dimana", "mana", "mengapa", "kenapa", "bagaimana", "apakah", "apa"}


def _question_words(question: str) -> list[str]:
    return _TOKEN.findall(question)


def _missing_terms(
    question: str,
    words: list[str],
    word_stems: list[set[str]],
    asked: Question,
    chunks: list[Hit],
    breadcrumb_stems: list[set[str]],
    chunk_stems: list[set[str]],
    *,
    as_of: bool = False,
) -> list[str]:
    """Distinctive question words (with the content word before them, so
    "cuti haji", not "haji") that no evidence holds: identifiers absent from
    every chunk's text, and stems rare in the archive that no chunk uses,
    as they are or inflected. Frame words (‘lama’ of *berapa lama*) are not
    looked for, and neither are the words of a question in another language
    than the evidence, names and numbers apart."""
    held = set().union(*breadcrumb_stems, *chunk_stems) if chunks else set()
    texts = [f"{h.title} {h.heading_path} {h.text}" for h in chunks]
    exact = identifiers(question)
    framed = {w.lower() for w in words} - {w.lower() for w in _question_words(frame_free(question, as_of=as_of))}
    out: list[str] = []
    previous, previous_absent = "", False
    for position, (word, word_stem) in enumerate(zip(words, word_stems, strict=True)):
        lower = word.lower()
        content = {s for s in word_stem if s not in STOPWORDS and ("-" not in s or lower in exact)}
        looked_for = not asked.cross_lingual or is_protected(word, position)
        if lower in _QUESTION_WORDS or lower in framed or not content or not looked_for:
            previous, previous_absent = "", False
            continue
        if lower in exact:
            absent = not any(fact_present(lower, t) for t in texts)
        else:
            unheld = {s for s in content if s not in held and not asked.variants.get(s, set()) & held}
            # Rare in the archive, and (where the artefact knows general
            # Indonesian) not an everyday word: ‘punya’ or ‘pakai’ missing
            # says the source words it otherwise, not what it lacks.
            absent = any(
                asked.idf.get(s, 0.0) > 0.5 and (is_protected(word, position) or asked.rarity.get(s, 1.0) > EVERYDAY)
                for s in unheld
            )
        if absent and previous_absent:
            out[-1] = f"{out[-1]} {word}"
        elif absent:
            out.append(f"{previous} {word}" if previous and lower not in exact else word)
        previous, previous_absent = word, absent
    return list(dict.fromkeys(out))[:3]


def question_kind_label(word: str) -> str:
    """What kind of answer the question asks for, for ``missing``."""
    return {
        "kapan": "tanggal atau waktu",
        "berapa": "angka beserta satuannya",
        "siapa": "nama",
        "dimana": "tempat",
        "mengapa": "alasan",
        "bagaimana": "cara atau keterangan",
    }.get(word, "jawaban langsung")
