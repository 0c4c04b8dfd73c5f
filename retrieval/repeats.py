"""Near-identical chunks of one revision, shown once.

A PDF repeats its table header or its boilerplate on every page; a web page
repeats a notice under every section. Each copy is a chunk of its own, and
a search for the repeated words would fill its results with the same text.
``repeats_collapsed`` keeps the best-ranked copy of each and lists the other
copies on it (``Hit.repeats``, ``Hit.repeat_pages``: "juga di hlm. 3, 11,
12"), so the copies take one place in the results and one share of an
answer's context budget.

Near-identical: the word pairs (bigrams) of the two texts, lower-cased,
overlap by ``SIMILAR`` or more (Jaccard). Word pairs rather than words, so
that two rows of one table with the same words in another order stay
apart; chunks of different revisions or documents are never folded, since
which revision says something is what an editor checks.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .hits import Hit

SIMILAR = 0.9

_WORD = re.compile(r"\w+")


def word_pairs(text: str) -> frozenset[tuple[str, ...]]:
    """The text's adjacent word pairs (its one word, for a one-word text)."""
    words = _WORD.findall(text.lower())
    return frozenset(zip(words, words[1:], strict=False)) if len(words) > 1 else frozenset((w,) for w in words)


def similarity(a: frozenset, b: frozenset) -> float:
    """Jaccard overlap of two sets of word pairs; two empty texts are alike."""
    if not a and not b:
        return 1.0
    return len(a & b) / len(a | b)


def repeats_collapsed(hits: Iterable[Hit]) -> list[Hit]:
    """``hits`` in their order, each near-identical copy of an earlier hit of
    the same revision folded into that hit's ``repeats`` (evidence ids) and
    ``repeat_pages`` (the copies' first pages, sorted, without the kept hit's own)."""
    kept: list[Hit] = []
    seen: dict[tuple[str, int], list[tuple[Hit, frozenset]]] = {}
    for hit in hits:
        pairs = word_pairs(hit.text)
        same_revision = seen.setdefault((hit.document, hit.revision), [])
        twin = next((k for k, k_pairs in same_revision if similarity(pairs, k_pairs) >= SIMILAR), None)
        if twin is None:
            kept.append(hit)
            same_revision.append((hit, pairs))
            continue
        twin.repeats.append(hit.evidence_id)
        if hit.page is not None and hit.page != twin.page and hit.page not in twin.repeat_pages:
            twin.repeat_pages = sorted([*twin.repeat_pages, hit.page])
    return kept


def repeats_label(pages: list[int], repeats: list[str]) -> str:
    """What the kept copy says of the others: "juga di hlm. 3, 11, 12", or
    for a document without pages "juga di 2 potongan lain"."""
    if pages:
        return "juga di hlm. " + ", ".join(str(p) for p in pages)
    if repeats:
        return f"juga di {len(repeats)} potongan lain"
    return ""
