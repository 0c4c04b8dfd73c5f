"""What the answer scorer sees: for a question and the units of its evidence,
one row of numbers per unit, the same at training time (IDK-MRC paragraphs)
and when an editor asks (retrieved chunks).

The signals, each explainable to an editor:

- meaning: e5 cosine of question and unit, against the best unit of the
  evidence and of its chunk;
- terms: the IDF-weighted share of the question's content stems that the
  unit covers (alone, with its chunk's breadcrumb, with its whole chunk,
  with all the evidence), and how distinctive the most distinctive
  uncovered stem is — a question about "KR-230" or "cuti haji" that no
  evidence names cannot be answered by it;
- facts: the question's identifiers and numbers found in the unit;
- answer type: what the question word asks for (kapan → a date, berapa → a
  number, siapa → a name, di mana → a place, mengapa → a reason) and whether
  the unit holds one that the question does not already state;
- what the unit adds beyond the question's own words, and its length.

IDF is normalised by the IDF of a term no chunk holds, so archives of any
size share one scale.

The version, ``features-v4``, is named in the artefact trained on it
(answerer-v6). How its term signals came to be (earlier versions, retired
with answerer-v1 to v5, are in git's history):

- every content stem of the question had to be found exactly (v2).
  IDK-MRC's unanswerable questions were made by swapping or adding words,
  so there an uncovered word nearly always meant "no answer"; editors
  paraphrase, and ‘lama’ in *berapa lama* or ‘saja’ in *apa saja* was
  reported missing.
- So question frames (*berapa lama*, *apa saja*, *bagaimana cara*, *how
  long* …) are the answer type, not terms to find; a stem is covered by an
  inflection the stemmer missed (‘sinkron’ by ‘sinkronus’) and a
  hyphenated compound by its parts; names, identifiers and numbers are
  counted apart (``miss_protected_*``): those are what a near miss gets
  wrong. A question in another language than its evidence (English over
  Indonesian) has no comparable terms: its term signals are unknown (NaN,
  which the gradient-boosting models route as learned from training
  questions whose terms were hidden the same way) (v3).
- And the meaning measured from the question's own baseline: a unit's
  cosine less the question's cosine with the centroid of the training
  paragraphs' units. e5's space is anisotropic (every cosine sits in
  0.7–0.9) and an English question's cosines to Indonesian text all run
  lower (to that centroid 0.725 against 0.78 for the dev set's Indonesian
  questions), so its right unit looked like another question's wrong one.
  The raw cosine stays: measured alone, the centred one lifted English
  questions but separated the rest worse. The context model does not see
  the 384 columns of the best unit's embedding times the question's, which
  fitted IDK-MRC's topics (context AUC on the editor-style dev set 0.70
  with them, 0.79 without; README, issue 20) (v4).
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from answering.facts import fact_present, facts
from answering.question_form import is_english
from answering.units import Unit

FEATURES_VERSION = "features-v4"

QUESTION_WORDS = ("kapan", "berapa", "siapa", "dimana", "mengapa", "apakah", "apa", "bagaimana", "lain")
_QUESTION_WORD = [
    ("kapan", re.compile(r"\bkapan\b|\btahun berapa\b|\btanggal berapa\b|\bwhen\b", re.I)),
    ("berapa", re.compile(r"\bberapa\b|\bhow (?:many|much|long)\b", re.I)),
    ("siapa", re.compile(r"\bsiapa\b|\bwho\b", re.I)),
    ("dimana", re.compile(r"\bdi ?mana\b|\bke ?mana\b|\bdari ?mana\b|\bwhere\b", re.I)),
    ("mengapa", re.compile(r"\bmengapa\b|\bkenapa\b|\bwhy\b", re.I)),
    ("bagaimana", re.compile(r"\bbagaimana\b|\bhow\b", re.I)),
    ("apakah", re.compile(r"^\W*apakah\b|\bis it\b", re.I)),
    ("apa", re.compile(r"\bapa\b|\bapa saja\b|\bwhat\b|\bwhich\b", re.I)),
]

_YEAR = re.compile(r"(?<!\d)(1[0-9]{3}|20[0-9]{2})(?!\d)")
_MONTH = re.compile(
    r"\b(januari|februari|maret|april|mei|juni|juli|agustus|september|oktober|november|"
    r"desember|jan|feb|mar|apr|jun|jul|agu|agt|sep|okt|nov|des|abad)\b",
    re.I,
)
_NUMBER = re.compile(r"(?<![\w-])\d+(?:[.,]\d+)*(?![\w-])")
_NUMBER_WORD = re.compile(
    r"\b(satu|dua|tiga|empat|lima|enam|tujuh|delapan|sembilan|sepuluh|sebelas|puluh|"
    r"ratus|ribu|juta|miliar|triliun|setengah)\b",
    re.I,
)
_NAME = re.compile(r"(?<=[\w,;)] )[A-Z][\w'-]+")
_PLACE = re.compile(
    r"\b(di|ke|dari)\s+[A-Z]|\b(kota|provinsi|kabupaten|negara|pulau|desa|kecamatan|wilayah|"
    r"benua|ibu kota|daerah|kawasan|gedung|jalan)\b",
    re.I,
)
_REASON = re.compile(
    r"\b(karena|sebab|disebabkan|akibat|oleh karena|sehingga|agar|supaya|untuk|alasan|"
    r"because|due to)\b",
    re.I,
)


_ENGLISH_WH = re.compile(r"\b(when|how\s+(?:many|much|long|often|far)|who|where|why|how|is\s+it|which|what)\b", re.I)


def question_word(question: str) -> str:
    """What kind of answer the question asks for. An English question is
    read by its first wh-word ("How many codes … when 2FA is enabled?" asks
    for a number); an Indonesian one by the first kind found, in order."""
    english = _ENGLISH_WH.search(question)
    if english and is_english(question):
        return next(word for word, pattern in _QUESTION_WORD if pattern.search(english.group(0)))
    for word, pattern in _QUESTION_WORD:
        if pattern.search(question):
            return word
    return "lain"


@dataclass
class Question:
    text: str
    stems: set[str]
    idf: dict[str, float]  # normalised to [0, 1]: 1 for a stem no chunk holds
    vector: np.ndarray  # unit length
    word: str = ""
    facts: set[str] = field(default_factory=set)
    # The stems to find (less frame words and compounds whose
    # parts are there), those of names, identifiers and numbers, the
    # context's inflections of each stem, and whether the question is in
    # another language than the evidence (its terms are then not compared).
    content: set[str] = field(default_factory=set)
    protected: set[str] = field(default_factory=set)
    variants: dict[str, set[str]] = field(default_factory=dict)
    cross_lingual: bool = False
    # How rare each content stem is in general Indonesian (the training
    # paragraphs), 0 for the commonest, 1 for one never seen: an uncovered
    # everyday word (‘pakai’, ‘hilang’) is a paraphrase, an uncovered rare
    # noun is what the evidence is not about. Set from the artefact.
    rarity: dict[str, float] = field(default_factory=dict)
    # The question's cosine with the centroid of the training
    # units (set from the artefact), the level its meaning signals start at.
    baseline: float = 0.0

    def __post_init__(self) -> None:
        self.word = self.word or question_word(self.text)
        self.facts = self.facts or {f for f in facts(self.text) if len(f) > 1}
        self.content = self.content or set(self.stems)


@dataclass
class Passage:
    """One chunk of evidence as the scorer sees it. A unit is read with its
    chunk's breadcrumb (title and heading path): its stems include the
    breadcrumb's and its vector embeds both, so "Waktu pemutaran: 30 jam"
    under "Spesifikasi KR-220X > Baterai" is about the KR-220X's battery."""

    breadcrumb: str
    breadcrumb_stems: set[str]
    stems: set[str]  # of the whole chunk text
    units: list[Unit]
    unit_stems: list[set[str]]  # each unit's with the breadcrumb's
    unit_vectors: np.ndarray  # (len(units), dims), unit length, of the breadcrumb and the unit
    text: str = ""


def read_with(crumb: str, text: str) -> str:
    """A unit as it is embedded and scored: under its breadcrumb, in the
    shape chunks are embedded (``retrieval.ingestion.embedding_text``)."""
    return f"{crumb}\n\n{text}" if crumb else text


def idf_normalised(df: dict[str, int], chunks: int, terms: set[str]) -> dict[str, float]:
    """BM25 IDF of each term over ``chunks`` chunks, divided by the IDF of a
    term that none of them holds."""
    top = math.log(1 + (chunks + 0.5) / 0.5)
    return {t: math.log(1 + (chunks - df.get(t, 0) + 0.5) / (df.get(t, 0) + 0.5)) / top for t in terms}


def _matched(question: Question, terms: set[str]) -> set[str]:
    """The question's content stems that ``terms`` hold, as they are or inflected."""
    return {t for t in question.content if t in terms or question.variants.get(t, set()) & terms}


def _coverage(question: Question, terms: set[str]) -> float:
    total = sum(question.idf.get(t, 0.0) for t in question.content)
    return sum(question.idf.get(t, 0.0) for t in _matched(question, terms)) / total if total else 0.0


def _missing(question: Question, terms: set[str], among: set[str] | None = None) -> float:
    wanted = question.content if among is None else question.content & among
    return max((question.idf.get(t, 0.0) for t in wanted - _matched(question, terms)), default=0.0)


def _distinct_missing(question: Question, terms: set[str]) -> float:
    return float(sum(question.idf.get(t, 0.0) > 0.5 for t in question.content - _matched(question, terms)))


def _rarest_missing(question: Question, terms: set[str]) -> float:
    """How rare in general the rarest uncovered word (not a name or number) is."""
    wanted = question.content - question.protected - _matched(question, terms)
    return max((question.rarity.get(t, 1.0) for t in wanted), default=0.0)


def rarity_table(documents: Sequence[set[str]]) -> dict:
    """Document frequencies of stems over ``documents`` (general text)."""
    df: dict[str, int] = {}
    for stems_ in documents:
        for stem in stems_:
            df[stem] = df.get(stem, 0) + 1
    return {"documents": len(documents), "df": df}


def rarity_of(terms: set[str], table: dict | None) -> dict[str, float]:
    """Each term's normalised IDF over the table's documents (1: never seen)."""
    if not table:
        return {}
    return idf_normalised(table["df"], table["documents"], terms)


def baseline_of(vector: np.ndarray, centroid: np.ndarray | None) -> float:
    """The question's cosine with the training units' centroid (0 for an
    artefact without one)."""
    return float(vector @ centroid) if centroid is not None else 0.0


def _answer_types(text: str, question: Question) -> dict[str, float]:
    """The kinds of answer the unit holds that the question does not already state."""
    asked = question.text.lower()
    years = [y for y in _YEAR.findall(text) if y not in asked]
    months = [m for m in _MONTH.findall(text) if m.lower() not in asked]
    numbers = [n for n in _NUMBER.findall(text) if not fact_present(n.lower(), asked)]
    names = [n for n in _NAME.findall(text) if n.lower() not in asked]
    return {
        "has_date": float(bool(years or months)),
        "has_number": float(bool(numbers or _NUMBER_WORD.search(text))),
        "has_name": min(len(names), 3) / 3,
        "has_place": float(bool(_PLACE.search(text))),
        "has_reason": float(bool(_REASON.search(text))),
    }


_FIT = {
    "kapan": ("has_date",),
    "berapa": ("has_number",),
    "siapa": ("has_name",),
    "dimana": ("has_place", "has_name"),
    "mengapa": ("has_reason",),
}

NAMES = (
    "cos",
    "cos_gap",
    "cos_rank",
    "cos_chunk_gap",
    "cov_unit",
    "cov_chunk",
    "cov_context",
    "cov_gap",
    "miss_unit",
    "miss_chunk",
    "miss_context",
    "miss_context_count",
    "question_facts",
    "facts_unit",
    "facts_chunk",
    "has_date",
    "has_number",
    "has_name",
    "has_place",
    "has_reason",
    "fit",
    "novelty",
    "length",
    "position",
    *(f"q_{w}" for w in QUESTION_WORDS),
    # Names, identifiers and numbers no unit (or no evidence) holds; whether
    # the question's terms could be compared with the evidence's at all.
    "miss_protected_unit",
    "miss_protected_context",
    "cross_lingual",
    "miss_rarity_unit",
    "miss_rarity_context",
    # The cosine less the question's baseline.
    "cos_centred",
)
# The term columns that are unknown (NaN) when the question's terms cannot
# be compared with the evidence's.
_TERM_COLUMNS = (
    "cov_unit",
    "cov_chunk",
    "cov_context",
    "cov_gap",
    "miss_unit",
    "miss_chunk",
    "miss_context",
    "miss_context_count",
    "novelty",
    "miss_rarity_unit",
    "miss_rarity_context",
)


def unit_features(question: Question, passages: Sequence[Passage]) -> np.ndarray:
    """One row per unit of ``passages`` (in order), columns ``NAMES``."""
    rows: list[list[float]] = []
    if not any(p.units for p in passages):
        return np.empty((0, len(NAMES)), dtype=np.float32)
    cosines = [p.unit_vectors @ question.vector if p.units else np.empty(0) for p in passages]
    flat = np.concatenate(cosines)
    best, order = float(flat.max()), np.argsort(-flat)
    rank = np.empty(len(flat), dtype=np.int64)
    rank[order] = np.arange(1, len(flat) + 1)
    context_terms = set().union(*(p.stems | p.breadcrumb_stems for p in passages))
    coverages = [[_coverage(question, s) for s in p.unit_stems] for p in passages]
    best_coverage = max(c for group in coverages for c in group)
    miss_context = _missing(question, context_terms)
    miss_context_count = _distinct_missing(question, context_terms)
    cov_context = _coverage(question, context_terms)
    protected_context = _missing(question, context_terms, question.protected)
    rarest_context = _rarest_missing(question, context_terms)
    words = [float(question.word == w) for w in QUESTION_WORDS]
    n = 0
    for passage, unit_cosines, unit_coverages in zip(passages, cosines, coverages, strict=True):
        chunk_terms = passage.stems | passage.breadcrumb_stems
        chunk_best = float(unit_cosines.max()) if len(unit_cosines) else 0.0
        facts_chunk = _share_present(question.facts, f"{passage.breadcrumb} {passage.text}")
        for i, (unit, stems) in enumerate(zip(passage.units, passage.unit_stems, strict=True)):
            types = _answer_types(unit.text, question)
            fit = max((types[t] for t in _FIT.get(question.word, ())), default=1.0)
            content = stems - question.stems - passage.breadcrumb_stems
            row = [
                float(unit_cosines[i]),
                float(unit_cosines[i]) - best,
                1.0 / rank[n],
                float(unit_cosines[i]) - chunk_best,
                unit_coverages[i],
                _coverage(question, chunk_terms),
                cov_context,
                unit_coverages[i] - best_coverage,
                _missing(question, stems),
                _missing(question, chunk_terms),
                miss_context,
                miss_context_count,
                float(bool(question.facts)),
                _share_present(question.facts, f"{passage.breadcrumb} {unit.text}"),
                facts_chunk,
                types["has_date"],
                types["has_number"],
                types["has_name"],
                types["has_place"],
                types["has_reason"],
                fit,
                len(content) / max(len(stems), 1),
                math.log1p(len(unit.text.split())),
                i / max(len(passage.units) - 1, 1),
                *words,
                _missing(question, stems, question.protected),
                protected_context,
                float(question.cross_lingual),
                _rarest_missing(question, stems),
                rarest_context,
                float(unit_cosines[i]) - question.baseline,
            ]
            rows.append(row)
            n += 1
    out = np.asarray(rows, dtype=np.float32)
    if question.cross_lingual:
        out[:, [NAMES.index(c) for c in _TERM_COLUMNS]] = np.nan
    return out


def _share_present(wanted: set[str], text: str) -> float:
    if not wanted:
        return 0.0
    return sum(fact_present(f, text) for f in wanted) / len(wanted)


CONTEXT_NAMES = (
    "p1",
    "p2",
    "p3_mean",
    "p_sum",
    "cov_context",
    "miss_context",
    "miss_context_count",
    "cos_best",
    "facts_best",
    *(f"q_{w}" for w in QUESTION_WORDS),
    *(f"top_{name}" for name in NAMES),
)


def context_features(question: Question, unit_rows: np.ndarray, probabilities: np.ndarray) -> np.ndarray:
    """One row for the question and its whole evidence, columns
    ``CONTEXT_NAMES``: how its units score (the best ones' probabilities),
    what the evidence as a whole covers, and the most probable unit's own
    row."""
    top = np.sort(probabilities)[::-1] if len(probabilities) else np.zeros(1)
    padded = np.concatenate([top, np.zeros(3)])
    col = {name: i for i, name in enumerate(NAMES)}
    if len(unit_rows):
        shared = unit_rows[0]
        cov, miss, count = shared[col["cov_context"]], shared[col["miss_context"]], shared[col["miss_context_count"]]
        cos_best, facts_best = unit_rows[:, col["cos"]].max(), unit_rows[:, col["facts_unit"]].max()
        best = int(np.argmax(probabilities))
        top_row = unit_rows[best]
    else:
        cov, miss, count = 0.0, max(question.idf.values(), default=1.0), float(len(question.stems))
        cos_best = facts_best = 0.0
        top_row = np.zeros(len(NAMES))
    words = [float(question.word == w) for w in QUESTION_WORDS]
    return np.asarray(
        [
            [
                padded[0],
                padded[1],
                padded[:3].mean(),
                min(float(top.sum()), 5.0),
                cov,
                miss,
                count,
                cos_best,
                facts_best,
                *words,
                *top_row,
            ]
        ],
        dtype=np.float32,
    )
