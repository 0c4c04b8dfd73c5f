"""Whether a search found anything that matches well. The nearest
neighbours of a query about nothing in the archive are still its nearest
neighbours, and a lexical match on one everyday word is still a match: ten
such hits look like an answer. When even the best hit's cosine similarity to
the query stays below the floor (``NALARKU_SEARCH_FLOOR``, measured by
``bench/search_floor.py`` on the demo archive's two question sets against
off-topic queries), the search desk says nothing matched well and shows the
hits only on request. Lexical mode is exact word matching and has no floor.
The answer engine does not use this: it weighs the evidence itself."""

from __future__ import annotations

from django.conf import settings

from retrieval.search import Hit


def best_similarity(hits: list[Hit]) -> float:
    return max((h.semantic_score or 0.0 for h in hits), default=0.0)


def matched_well(hits: list[Hit], floor: float | None = None) -> bool:
    floor = settings.NALARKU_SEARCH_FLOOR if floor is None else floor
    return best_similarity(hits) >= floor
