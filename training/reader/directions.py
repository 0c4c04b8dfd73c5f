"""Direction near misses: an answered question with one of its words turned
to its opposite, asked of a passage that never says the opposite.

"Bagaimana cara menonaktifkan local API?" over the passage that only says
how to *enable* it, ``--cascade=true`` asked of a page that gives
``false``: the passage shares every word of the question but one, and a
reader that never saw such a pair answers with the other direction.

An opposite is made by the morphology both languages use for it, not by a
list of words: a negating prefix added or taken away (*non*-, *un*-,
*dis*-; *en*- against *dis*-), inside an Indonesian verb's own
prefix (*mengaktifkan* against *menonaktifkan*, *diaktifkan* against
*dinonaktifkan*), and the two boolean literals. A made word counts only
where the training pages use it (so *play* never turns into a *display*
nobody wrote), and the passage must hold the question's word and not its
opposite, so the made question is unanswered there by construction.
"""

from __future__ import annotations

import random
import re

from training.reader.examples import Example

_WORD = re.compile(r"[^\W\d_]{4,}")
_NEGATING = ("non", "un", "dis")
_SWAPPED = (("en", "dis"), ("true", "false"))
# An Indonesian verb's own prefix comes before the negation: meng-aktif-kan, me-non-aktif-kan.
_VERBAL = (("meng", "me"), ("di", "di"))


def _candidates(word: str) -> set[str]:
    """Words that would say the opposite of ``word`` (lower case), attested or not."""
    out = set()
    for prefix in _NEGATING:
        out.add(prefix + word)
        if word.startswith(prefix) and len(word) - len(prefix) >= 4:
            out.add(word[len(prefix) :])
    for a, b in _SWAPPED:
        for x, y in ((a, b), (b, a)):
            if word.startswith(x):
                out.add(y + word[len(x) :])
    for plain, negated in _VERBAL:
        if word.startswith(negated + "non"):
            out.add(plain + word[len(negated) + 3 :])
        elif word.startswith(plain):
            out.add(negated + "non" + word[len(plain) :])
    out.discard(word)
    return out


def opposites(word: str, vocabulary: set[str]) -> list[str]:
    """The opposites of ``word`` that the training pages use."""
    return sorted(c for c in _candidates(word.casefold()) if c in vocabulary)


def _cased(like: str, word: str) -> str:
    if like.isupper():
        return word.upper()
    return word[:1].upper() + word[1:] if like[:1].isupper() else word


def direction_examples(
    answered: list[Example], passages: list[str], source: str, *, seed: int = 0, weight: float = 1.0
) -> list[Example]:
    """For each answered example whose question holds a word its passage
    holds and whose opposite it does not, that question turned, unanswered."""
    rng = random.Random(seed)
    vocabulary = {w.casefold() for passage in passages for w in _WORD.findall(passage)}
    vocabulary |= {"true", "false"}
    out = []
    for example in answered:
        said = set(_WORD.findall(example.passage.casefold()))
        turns = []
        for match in re.finditer(r"[^\W\d_]+", example.question):
            word = match.group()
            if word.casefold() not in said:
                continue
            others = [o for o in opposites(word, vocabulary) if o not in said]
            turns += [(match, o) for o in others]
        if not turns:
            continue
        match, other = rng.choice(turns)
        question = example.question[: match.start()] + _cased(match.group(), other) + example.question[match.end() :]
        out.append(Example(question, example.passage, None, source, weight))
    return out
