"""Line diff between two revisions, as rows a template can show."""

from __future__ import annotations

import difflib
from dataclasses import dataclass


@dataclass(frozen=True)
class DiffLine:
    kind: str  # "same" | "add" | "del" | "gap"
    old: int | None
    new: int | None
    text: str


def line_diff(old: str, new: str, *, context: int = 3) -> list[DiffLine]:
    a, b = old.splitlines(), new.splitlines()
    out: list[DiffLine] = []
    for group in difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_grouped_opcodes(context):
        if out:
            out.append(DiffLine("gap", None, None, "…"))
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                out += [DiffLine("same", i + 1, j + 1, a[i]) for i, j in zip(range(i1, i2), range(j1, j2), strict=True)]
                continue
            out += [DiffLine("del", i + 1, None, a[i]) for i in range(i1, i2)]
            out += [DiffLine("add", None, j + 1, b[j]) for j in range(j1, j2)]
    return out
