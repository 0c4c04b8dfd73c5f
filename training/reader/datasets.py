"""Where the reader's training data lies, what each source may be used for,
and its licence (copied into the artefact's card)."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings

DATA = Path(settings.BASE_DIR) / "data"  # every set in the repository (data/README.md)
IDK_MRC = DATA / "idk-mrc"
K8S = DATA / "k8s-id-editor"
CROSS_LINGUAL = DATA / "squad2-en-over-id" / "squad2-dev-en-over-id.json"
ARCHIVE = DATA / "archive-train"
K8S_MORE = (K8S / "more" / "part-c", K8S / "more" / "part-d")
PYDOCS = DATA / "pydocs-id-editor"


# Every training archive with its editor questions (and k8s dev, whose pages
# are dropped before anything is made): what the near misses are made from.
EDITOR_FILES = (
    K8S / "archive.jsonl",
    K8S / "train.jsonl",
    K8S / "dev.jsonl",
    *(f for part in K8S_MORE for f in (part / "archive.jsonl", part / "questions.jsonl")),
    PYDOCS / "archive.jsonl",
    PYDOCS / "questions.jsonl",
    ARCHIVE / "archive.jsonl",
    ARCHIVE / "questions.jsonl",
)


@dataclass(frozen=True)
class Source:
    name: str
    files: tuple[Path, ...]
    licence: str


SOURCES = {
    "idk-mrc": Source("idk-mrc", (IDK_MRC / "train.json",), "CC BY-SA 4.0 (IDK-MRC); TyDi QA: Apache-2.0"),
    "squad2-en-over-id": Source(
        "squad2-en-over-id", (CROSS_LINGUAL,), "CC BY-SA 4.0 (SQuAD 2.0; translated by Wikidepia/indonesian_datasets)"
    ),
    "k8s-train": Source(
        "k8s-train", (K8S / "archive.jsonl", K8S / "train.jsonl"), "CC BY 4.0 (Kubernetes documentation)"
    ),
    "archive-train": Source(
        "archive-train",
        (ARCHIVE / "archive.jsonl", ARCHIVE / "questions.jsonl"),
        "written for this project (data/archive-train/SOURCES.md)",
    ),
    "k8s-more": Source(
        "k8s-more",
        tuple(f for part in K8S_MORE for f in (part / "archive.jsonl", part / "questions.jsonl")),
        "CC BY 4.0 (Kubernetes documentation)",
    ),
    "pydocs": Source(
        "pydocs",
        (PYDOCS / "archive.jsonl", PYDOCS / "questions.jsonl"),
        "Python documentation (PSF licence); the translation contributed under CC0 (PEP 545 agreement; "
        "data/pydocs-id-editor/NOTES.md)",
    ),
    "structure": Source(
        "structure",
        (
            K8S / "archive.jsonl",
            K8S / "train.jsonl",
            K8S / "dev.jsonl",
            ARCHIVE / "archive.jsonl",
            *(part / "archive.jsonl" for part in K8S_MORE),
            PYDOCS / "archive.jsonl",
        ),
        "questions generated here from the training pages: k8s train and more/ (CC BY 4.0), pydocs (CC0), "
        "data/archive-train",
    ),
    "siblings": Source(
        "siblings",
        EDITOR_FILES,
        "near misses generated here from the training questions above: a term of the question swapped for a "
        "sibling term the passage does not hold",
    ),
    "directions": Source(
        "directions",
        EDITOR_FILES,
        "near misses generated here from the training questions and the structure questions above: a word of "
        "the question turned to its opposite (enable/disable, aktifkan/nonaktifkan, true/false), which the "
        "passage does not hold",
    ),
}


def card_path(path: Path) -> str:
    """A source file as a card names it: its path under ``data/`` (two parts
    of one set hold files of the same name)."""
    return str(Path(path).relative_to(DATA))


def sha256(path: Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def gold_documents(questions: Path) -> set[str]:
    """The documents a question file's questions are about."""
    documents = set()
    for line in Path(questions).read_text().splitlines():
        if line.strip():
            for gold in json.loads(line).get("gold") or []:
                documents.add(gold if isinstance(gold, str) else gold["document"])
    return documents
