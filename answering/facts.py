"""Facts a claim must not invent: numbers, dates and identifiers (codes, model
numbers, versions), product names a code starts, and whether a fact occurs
in a text as a whole token."""

from __future__ import annotations

import re

# Anything with a digit (numbers, versions, dates, CVE ids, prices) and
# upper-case identifiers joined by _ or - (ERR_CONN_RESET).
_FACT = re.compile(r"(?<![\w])(?:[A-Za-z]*\d[\w.,:/%-]*|[A-Z]{2,}(?:[_-][A-Z0-9]+)+(?![\w]))")

# A compound of a code and a plain lower-case word ("S3-compatible",
# "2FA-nya") names a kind of thing, not one thing: it is a word, not an
# identifier that must appear verbatim.
_WORD_PART = re.compile(r"(?:^|[_-])[a-z]{4,}(?:$|[_-])")


def facts(text: str) -> set[str]:
    return {m.group(0).rstrip(".,:;-/").lower() for m in _FACT.finditer(text)} - {""}


# A lower-case code of short letter groups ending in a number (the region
# id-mks-1, the zone ap-se-3): ``_FACT`` sees only its final digit. Two
# letter groups at least, so an ordinal ("abad ke-19") is no code.
_LOWER_CODE = re.compile(r"(?<![\w-])[a-z]{2,3}(?:-[a-z]{2,3})+-\d+[a-z]?(?![\w-])")


def identifiers(text: str) -> set[str]:
    """Codes and model numbers: letters with digits, ``_`` or ``-`` (KR-220X,
    ERR_CONN_RESET, v4.2.1, id-mks-1), lower-cased; not a code joined to a word."""
    found = {m.group(0) for m in _LOWER_CODE.finditer(text)}
    for match in _FACT.finditer(text):
        raw = match.group(0).rstrip(".,:;-/")
        fact = raw.lower()
        if (
            any(c.isalpha() for c in fact)
            and any(c.isdigit() or c in "_-" for c in fact)
            and not _WORD_PART.search(raw)
        ):
            found.add(fact)
    return found


_NAME_TOKEN = re.compile(r"[^\s()\[\],;:?!]+")


def code_names(text: str) -> dict[str, set[str]]:
    """Product names a code starts and capitalised words finish ("LD-Edge
    X200 Pro", "KR-H7 Ultra"): each name from its last code on, lower-cased,
    with the codes of its run ({"x200 pro": {"x200"}}; "LD-Edge" is a word
    joined to a code, not a code). The
    variant is a thing of its own: what the evidence says of "X200" is not
    said of the "X200 Pro"."""
    codes = identifiers(text)
    names: dict[str, set[str]] = {}
    run: list[str] = []

    def close() -> None:
        last = max((i for i, t in enumerate(run) if t.lower() in codes), default=None)
        if last is not None and last < len(run) - 1:
            names[" ".join(run[last:]).lower()] = {t.lower() for t in run if t.lower() in codes}
        run.clear()

    for match in _NAME_TOKEN.finditer(text):
        token = match.group(0).rstrip(".")
        if token.lower() in codes or (token[:1].isupper() and token.isalpha()):
            run.append(token)
        else:
            close()
        if match.group(0).endswith("."):
            close()  # a name does not run on into the next sentence
    close()
    return names


def fact_present(fact: str, text: str) -> bool:
    """``fact`` occurs in ``text`` as a whole token (30 is not in 300 or 3.0)."""
    return re.search(rf"(?<![\w.,]){re.escape(fact)}(?![\w]|[.,]\d)", text.lower()) is not None


_NUMBER = re.compile(r"(?<![\w-])\d+(?:[.,]\d+)*(?![\w-])")


def has_number(text: str) -> bool:
    """A standalone number (26, 1.500, 99,5), not a digit inside LX-700BT."""
    return _NUMBER.search(text) is not None
