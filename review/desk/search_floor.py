"""Whether a search found anything that matches well. The nearest
neighbours of a query about nothing in the archive are still its nearest
neighbours, and a lexical match on one everyday word is still a match: ten
such hits look like an answer. When even the best hit's cosine similarity to
the query stays below the floor (``NALARKU_SEARCH_FLOOR``, measured by
``bench/search_floor.py`` on the demo archive's two question sets against
off-topic queries), the search desk says nothing matched well and shows the
hits only on request. Lexical mode is exact word matching and has no floor.
The answer engine does not use this: it weighs the evidence itself.

The floor never hides an exact match. A hit that holds, verbatim, an
identifier of the query (a word with digits or code punctuation:
``CVE-2026-1234``, ``ERR_SYNC_CONFLICT``, ``foo.bar=baz``) or a
word of the query that few chunks the reader may see hold at all and the
embedding model's vocabulary does not hold whole (a rare term:
``crypto-shredding``) is what the editor typed, found; a short
embedding of a bare term is often far from every chunk that holds it
(measured in ``bench/search_exact.py``). Such hits are shown first, the
floor's message for the rest after them, in semantic mode too (there the
lexical arm is asked for them).

Nor does it hide what the editor typed, as typed: a hit holding the whole
query verbatim — one word or a phrase, a common word too (``langganan``,
``generally available``) — is shown, except in a semantic-only search the
editor chose, which asks for meaning, not words. A longer question's
everyday words alone do not count: "siapa presiden" is not found in a chunk
that says "presiden"."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from django.conf import settings
from django.contrib.auth.base_user import AbstractBaseUser
from django.contrib.auth.models import AnonymousUser

from retrieval.embeddings import token_count
from retrieval.hits import Hit, SearchResponse
from retrieval.search import search, visible_chunk_counts

# A word of the query: letters and digits, joined by the punctuation of
# identifiers and paths (``cni-conf-dir``, ``/tmp/nginx.key``, ``foo.bar=baz``).
_WORD = re.compile(r"\w(?:[\w./:=@-]*\w)?")
# Punctuation that does not occur in Indonesian words, only in identifiers
# (a hyphen does: ``kata-kata``, ``me-restart``; those count only when rare).
_CODE_MARKS = set("_./:=@")
# A word is rare when at most this many chunks the reader may see hold it
# (bench/search_exact.py prints hits shown and off-topic queries kept quiet
# for 1, 3, 5 and 10).
RARE_CHUNKS = 3


def best_similarity(hits: list[Hit]) -> float:
    return max((h.semantic_score or 0.0 for h in hits), default=0.0)


def matched_well(hits: list[Hit], floor: float | None = None) -> bool:
    floor = settings.NALARKU_SEARCH_FLOOR if floor is None else floor
    return best_similarity(hits) >= floor


def identifier(word: str) -> bool:
    """A word only code is written in: a digit next to letters, or code punctuation."""
    has_digit = any(ch.isdigit() for ch in word)
    return bool(_CODE_MARKS & set(word)) or (has_digit and not word.isdigit())


def whole_in_vocabulary(word: str) -> bool:
    """Whether the embedding model's vocabulary holds the word as one piece.
    Everyday words do (``siapa``, ``sistem``, ``pasar``); a term it must
    spell out in pieces (``crypto-shredding``, ``idempotensi``) is one its
    embedding represents poorly, which is when a low similarity means the
    least. Measured in bench/search_exact.py: without this, everyday words
    that happen to be rare in a small archive let a quarter of off-topic
    questions past the floor."""
    # The empty query is the prefix, the specials and a lone "▁", which a
    # one-piece word takes the place of.
    return token_count(word) <= token_count("")


def query_words(query: str) -> list[str]:
    return list(dict.fromkeys(_WORD.findall(query)))


def typed_phrase(query: str) -> str:
    """The query as typed, without the quotes or the question mark around it."""
    return " ".join(query.split()).strip(" \"'“”‘’?!.,;:")


def holds_verbatim(hit: Hit, word: str) -> bool:
    """The word or phrase as typed (case aside, any spacing between its
    words), not inside a longer word."""
    typed = r"\s+".join(re.escape(part) for part in word.split())
    pattern = rf"(?<![\w-]){typed}(?![\w-]|[./:=@]\w)"
    return re.search(pattern, f"{hit.heading_path}\n{hit.text}", flags=re.IGNORECASE) is not None


Reader = AbstractBaseUser | AnonymousUser | None


def exact_words(
    query: str,
    reader: Reader,
    *,
    collection: str = "editorial",
    include_superseded: bool = False,
    rare: int | None = None,
    as_typed: bool = True,
) -> list[str]:
    """The query's identifiers and its words rare in what ``reader`` may
    see; with ``as_typed``, the whole query as typed first."""
    rare = RARE_CHUNKS if rare is None else rare
    words = query_words(query)
    phrase = typed_phrase(query)
    found = [phrase] if as_typed and phrase and phrase not in words else []
    found += [w for w in words if identifier(w) or (as_typed and w == phrase)]
    plain = [w for w in words if not identifier(w) and len(w) >= 3 and not whole_in_vocabulary(w)]
    counts = visible_chunk_counts(
        plain, reader, cap=rare + 1, collection=collection, include_superseded=include_superseded
    )
    # A word no visible chunk holds (count 0) finds nothing to show anyway.
    found += [w for w in plain if 0 < counts.get(w, rare + 1) <= rare]
    return list(dict.fromkeys(found))


def exact_hits(hits: list[Hit], words: list[str]) -> list[Hit]:
    return [h for h in hits if any(holds_verbatim(h, w) for w in words)]


def figures(best: float, floor: float) -> tuple[str, str]:
    """The best similarity and the floor as the page writes them (decimal
    comma), with as many digits as it takes for the first to read lower
    than the second: 0,8396 under 0,8400, never 0,84 under 0,84. Rounding
    never lifts a lower figure above a higher one, so more digits only ever
    separate them; equal to six digits, the best reads "" (the page says
    "sama dengan ambang")."""
    # The floor itself is never rounded: 0,999 stays 0,999, not 1,00.
    least = next((d for d in range(2, 6) if round(floor, d) == round(floor, 6)), 6)
    for digits in range(least, 7):
        if round(best, digits) < round(floor, digits):
            return _comma(best, digits), _comma(floor, digits)
    return "", _comma(floor, least)


def _comma(value: float, digits: int) -> str:
    return f"{value:.{digits}f}".replace(".", ",")


@dataclass
class Weak:
    """A search whose best similarity is under the floor: the figures for
    the message and the hits shown anyway, each holding a word of the query
    verbatim."""

    best: str  # "" when it reads the same as the floor to six digits
    floor: str
    exact: list[Hit] = field(default_factory=list)
    words: list[str] = field(default_factory=list)
    others: bool = True  # results besides the exact matches (the figures are theirs)


def floor_check(
    response: SearchResponse,
    shown: list[Hit],
    *,
    reader: Reader,
    first: int = 0,
    include_superseded: bool = False,
    collection: str = "editorial",
    floor: float | None = None,
    rare: int | None = None,
) -> Weak | None:
    """None when the search matched well (or is lexical: no floor); else
    what the desk says and shows. ``shown`` is the page of results, from
    result ``first`` on."""
    floor = settings.NALARKU_SEARCH_FLOOR if floor is None else floor
    if response.mode == "lexical" or not response.results or matched_well(response.results, floor):
        return None
    words = exact_words(
        response.query,
        reader,
        collection=collection,
        include_superseded=include_superseded,
        rare=rare,
        as_typed=response.mode != "vector",
    )
    # The message speaks of the results not shown: the exact matches (on any
    # page) are shown whatever their similarity, so the figure is the best of the rest.
    shown_anyway = {h.evidence_id for h in exact_hits(response.results, words)} if words else set()
    others = [h for h in response.results if h.evidence_id not in shown_anyway]
    best, floor_text = figures(best_similarity(others or response.results), floor)
    exact = exact_hits(shown, words) if words else []
    if words and response.mode == "vector":
        # The semantic arm alone may not reach them: ask the lexical one for
        # the same page (the same permissions and revisions).
        lexical = search(
            response.query,
            reader,
            k=first + len(shown) if shown else first + 10,
            mode="lexical",
            include_superseded=include_superseded,
            collection=collection,
            expand=False,
        ).results[first:]
        seen = {h.evidence_id for h in exact}
        exact += [h for h in exact_hits(lexical, words) if h.evidence_id not in seen]
    used = [w for w in words if any(holds_verbatim(h, w) for h in exact)]
    return Weak(best=best, floor=floor_text, exact=exact, words=used, others=bool(others))
