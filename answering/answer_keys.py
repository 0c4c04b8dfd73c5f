"""Answer keys compared with what an answer says: shared by the evaluation
(is the key in the claims?) and by training (which units hold the key?), so
that both read "30 jam." and "30 Jam" as one answer."""

from __future__ import annotations

import re
import unicodedata


def normalise_answer(text: str) -> str:
    """Lower case, punctuation and extra spaces removed (SQuAD's normalisation,
    articles aside): "30 jam." and "30 Jam" match."""
    text = unicodedata.normalize("NFKC", text).lower()
    text = re.sub(r"[^\w\s]", " ", text)
    return " ".join(text.split())


def answer_in_claims(answers: list[str], claims: list[str]) -> bool:
    """Any answer key occurs in any claim, as whole words."""
    texts = [f" {normalise_answer(c)} " for c in claims]
    keys = [normalise_answer(a) for a in answers if normalise_answer(a)]
    return any(f" {k} " in t for k in keys for t in texts)
