"""Sibling near misses: an answered question with one of its terms swapped
for a sibling the passage does not hold.

"Siapa CTO …?" over a page that names only a CPO, ``--enable-foo`` asked of
a page about ``--enable-bar``, version 1.27 of a feature the page dates at
1.25: the passage is about the question's topic and shares nearly all its
words, yet it does not answer. Nothing in the public sets teaches that, and
a reader that never saw it answers with the neighbour.

A term is a word that reads as a name rather than as language: an acronym,
a code-like word (``camelCase``, ``--flag``, ``a.b/c``, ``snake_case``) or a
word holding a digit. Its siblings are the terms of the same shape found in
the training pages; the swap takes one the passage does not hold anywhere,
so the made question is unanswered there by construction. No word list: the
shapes are typography, the same in every domain.
"""

from __future__ import annotations

import random
import re

from training.reader.examples import Example

_TERM = re.compile(
    r"(?<![\w.-])(?:"
    r"--?[a-z][\w-]+"  # a command-line flag
    r"|[A-Za-z][\w]*(?:[./:_-][\w]+)+"  # dotted, slashed or snake-cased
    r"|[a-z]+[A-Z]\w*"  # camelCase
    r"|[A-Z]{2,}[\w]*"  # an acronym
    r"|[A-Za-z]*\d[\w.]*"  # holds a digit: a version, a code, a size
    r")(?![\w-])"
)


def shape(term: str) -> tuple[bool, ...]:
    """What a sibling must share: flag, separators, digits, case pattern."""
    return (
        term.startswith("-"),
        any(c in term for c in "./:_-"),
        any(c.isdigit() for c in term),
        term.isupper(),
        term[:1].islower() and any(c.isupper() for c in term),
    )


def terms_of(text: str) -> list[str]:
    return [m.group() for m in _TERM.finditer(text) if len(m.group()) >= 2]


def sibling_examples(
    answered: list[Example], passages: list[str], source: str, *, seed: int = 0, weight: float = 1.0
) -> list[Example]:
    """For each answered example, one near miss: a term of its question
    that its passage holds, swapped for a sibling it does not hold."""
    rng = random.Random(seed)
    pool: dict[tuple[bool, ...], list[str]] = {}
    for passage in passages:
        for term in set(terms_of(passage)):
            pool.setdefault(shape(term), []).append(term)
    out = []
    for example in answered:
        folded = example.passage.casefold()
        held = [t for t in terms_of(example.question) if t.casefold() in folded]
        if not held:
            continue
        term = rng.choice(held)
        siblings = pool.get(shape(term), [])
        for _ in range(8):  # a few draws: most terms of a shape are absent from one passage
            if not siblings:
                break
            other = rng.choice(siblings)
            if other.casefold() != term.casefold() and other.casefold() not in folded:
                question = example.question.replace(term, other, 1)
                out.append(Example(question, example.passage, None, source, weight))
                break
    return out
