"""How a question is asked: its frame words (*berapa lama*, *apa saja*), the
date it is asked as of, its language, questions about the present, and the
words a near miss gets wrong (names, identifiers, numbers)."""

from __future__ import annotations

import re

_PRESENT = re.compile(r"\b(sekarang|saat ini|kini|terkini|terbaru|masih|sudah|currently|now|latest|still)\b", re.I)


def asks_about_present(question: str) -> bool:
    return _PRESENT.search(question) is not None


# Question frames: the words that say what kind of answer is asked for
# (*berapa lama* a duration, *apa saja* a list, *bagaimana cara* a
# procedure), not what the answer is about. The evidence answers "berapa
# lama …" with "berlaku 12 bulan", never with ‘lama’. Closed-class grammar
# of Indonesian and English interrogatives, not a list of failures.
# Degree words only: a unit ("berapa tahun", "berapa GB") is what the answer
# must be given in, and stays a term (see ``asked_measure``).
_DEGREE = "lama|banyak|besar|jauh|kali|tinggi|luas|mahal|cepat|sering|panjang|berat|lebar|dalam|murah|kecil|usia|umur"

_FRAME = re.compile(
    rf"\bberapa\s+(?P<degree>{_DEGREE})\b"
    r"|\b(?:siapa|apa|mana|kapan|berapa|di\s?mana|ke\s?mana)\s+(?P<list>saja)\b"
    r"|\bbagaimana\s+(?P<way>cara(?:nya)?)\b"
    r"|\b(?P<like>seperti)\s+apa\b"
    r"|\b(?P<since>sejak|sampai|hingga|mulai)\s+kapan\b"
    r"|\b(?P<english>how\s+(?:long|many|much|often|far|big|large|old)|what\s+(?:kind|type|sort)\s+of)\b",
    re.I,
)

# The date a question is asked "as of" ("Per awal Oktober 2025, …",
# "tepatnya 20 Maret 2026"): it chooses the revisions in force, and no
# sentence of theirs need repeat it.
_AS_OF_DATE = re.compile(
    r"\b(?:(?:per|pada|tepatnya|tanggal|sejak|hingga|sampai|waktu|saat|as\s+of|on)\s+)?"
    r"(?:(?:awal|akhir|pertengahan|medio|early|late|mid)\s+)?(?:\d{1,2}\s+)?"
    r"(?:januari|februari|maret|april|mei|juni|juli|agustus|september|oktober|november|desember|"
    r"january|february|march|may|june|july|august|october|december)\s+\d{4}\b|\b\d{4}-\d{2}-\d{2}\b",
    re.I,
)


def frame_free(question: str, *, as_of: bool = False) -> str:
    """``question`` with its frame words blanked (same length, so offsets
    hold) and, for a question asked as of a date, its date expressions."""
    out = list(question)
    for match in _FRAME.finditer(question):
        for name, value in match.groupdict().items():
            if value:
                start, end = match.span(name)
                out[start:end] = " " * (end - start)
    for match in _AS_OF_DATE.finditer(question) if as_of else ():
        out[match.start() : match.end()] = " " * (match.end() - match.start())
    return "".join(out)


# Function words of each language; a question whose own function words are
# English, asked of an Indonesian archive, shares no terms with it even when
# it asks exactly what a sentence there says.
_ENGLISH = frozenset(
    """the a an of to for in on at by with from and or is are was were be been being what when who
    whom which how why does do did can could will would should shall may might must there this that these those
    it its my our your their his her has have had get gets got each every any some many much long not no than
    then if about into after before during per""".split()
)

_INDONESIAN = frozenset(
    """yang dan di ke dari untuk pada dengan atau ini itu adalah ialah apa apakah siapa kapan
    mengapa kenapa bagaimana berapa mana sudah belum sekarang masih akan bisa dapat ada tidak bukan juga oleh
    dalam bahwa karena jika kalau saja kah lah nya sejak hingga sampai berapa tersebut para sebagai""".split()
)

_LATIN_WORD = re.compile(r"[A-Za-z]+")


def is_english(question: str) -> bool:
    """More English than Indonesian function words, and at least two."""
    words = [w.lower() for w in _LATIN_WORD.findall(question)]
    english = sum(w in _ENGLISH for w in words)
    return english >= 2 and english > sum(w in _INDONESIAN for w in words)


def inflects(a: str, b: str) -> bool:
    """Two stems are one word inflected or derived in a way the stemmer left
    (‘sinkron’ and ‘sinkronus’, ‘patch’ and ‘patching’): the shorter, four
    letters at least, begins the longer, which adds at most three letters
    (‘data’ and ‘database’ are two words)."""
    short, long_ = sorted((a, b), key=len)
    return (
        short != long_
        and len(short) >= 4
        and long_.startswith(short)
        and len(long_) - len(short) <= 3
        and short.isalpha()
        and long_.isalpha()
    )


def is_protected(word: str, position: int) -> bool:
    """A name, an identifier or a number: what a near miss gets wrong
    (another product, another year), so it must be found, not paraphrased.
    A capitalised word counts only past the question's first word."""
    if any(c.isdigit() for c in word) or (len(word) > 1 and word.isupper()):
        return True
    return position > 0 and word[:1].isupper() and not word.isupper() and len(word) > 1
