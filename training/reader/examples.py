"""Reading-comprehension examples for the reader, from every source it is
trained on: SQuAD 2.0-style files (IDK-MRC, English questions over
Indonesian paragraphs), archives with editor-style questions
(``k8s-id-editor`` train, ``data/archive-train``) and questions made from
an archive's own structure (``structure.py``).

An example is a question, a passage (``windows.passage_of``: breadcrumb
then chunk text, as the pipeline gives it) and the answer's character span
in the passage, or None when the passage does not answer. Archive pages
are cut by the project's own chunker, so the reader trains on the chunks
it will read."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from answering.reader.windows import passage_of
from retrieval.chunking import ChunkDraft, chunk_document

_WORD = re.compile(r"\w{3,}")


@dataclass(frozen=True)
class Example:
    question: str
    passage: str
    answer: tuple[int, int] | None  # [start, end) in the passage; None: not answered here
    source: str
    weight: float = 1.0


def squad_examples(path: Path, source: str) -> list[Example]:
    """A SQuAD 2.0 file (``{"data": [{"title", "paragraphs"}]}``) or
    IDK-MRC's list of paragraphs."""
    data = json.loads(Path(path).read_text())
    articles = data["data"] if isinstance(data, dict) else [{"title": "", "paragraphs": data}]
    out = []
    for article in articles:
        for paragraph in article["paragraphs"]:
            passage, at = passage_of(article.get("title", ""), "", paragraph["context"])
            for qa in paragraph["qas"]:
                span = None
                if not qa.get("is_impossible") and qa.get("answers"):
                    answer = qa["answers"][0]
                    start = _locate(paragraph["context"], answer["text"], answer.get("answer_start"))
                    if start is None:
                        continue  # an answer its paragraph does not hold: left out, not guessed
                    span = (at + start, at + start + len(answer["text"]))
                out.append(Example(qa["question"], passage, span, source))
    return out


def _locate(context: str, text: str, hint: int | None) -> int | None:
    if hint is not None and context[hint : hint + len(text)] == text:
        return hint
    found = context.find(text)
    return None if found < 0 else found


@dataclass(frozen=True)
class Page:
    document: str
    revision: int
    title: str
    chunks: list[ChunkDraft]
    passages: list[str]  # each chunk as the reader reads it


def archive_pages(path: Path, *, count, max_tokens: int) -> list[Page]:
    """Every revision of a manifest (``ingest --manifest`` lines; a
    document's revisions in order, older first), chunked as ingestion does."""
    pages, seen = [], {}
    for line in Path(path).read_text().splitlines():
        if not line.strip():
            continue
        row = json.loads(line)
        seen[row["doc_id"]] = seen.get(row["doc_id"], 0) + 1
        chunks = chunk_document(
            row["content"], row.get("format", "markdown"), count=count, max_tokens=max_tokens, title=row["title"]
        )
        passages = [passage_of(row["title"], c.breadcrumb, c.text)[0] for c in chunks]
        pages.append(Page(row["doc_id"], seen[row["doc_id"]], row["title"], chunks, passages))
    return pages


def archive_examples(
    pages: list[Page], questions: Path, source: str, *, negatives: int = 2, weight: float = 1.0
) -> list[Example]:
    """Editor-style questions over an archive: each chunk of the gold
    revision that holds an answer string is an answered example, the gold
    revision's chunks closest in words that hold none are unanswered ones,
    and a near miss (no gold) is unanswered over the archive's closest
    chunks of its newest revisions."""
    newest = {}
    for page in pages:
        newest[page.document] = page
    by_revision = {(p.document, p.revision): p for p in pages}
    out = []
    for line in Path(questions).read_text().splitlines():
        if not line.strip():
            continue
        q = json.loads(line)
        gold = [_gold_page(g, newest, by_revision) for g in q.get("gold") or []]
        gold = [g for g in gold if g is not None]
        answers = [a for a in q.get("answers") or [] if a.strip()]
        if not gold or not answers:
            candidates = [(p, c) for p in newest.values() for c in range(len(p.chunks))]
            for page, index in _closest(q["question"], candidates, negatives + 1):
                out.append(Example(q["question"], page.passages[index], None, source, weight))
            continue
        for page in gold:
            passages = page.passages
            holding = []
            for index, passage in enumerate(passages):
                span = _answer_span(passage, answers)
                if span is not None:
                    holding.append(index)
                    out.append(Example(q["question"], passage, span, source, weight))
            others = [(page, i) for i in range(len(passages)) if i not in holding]
            for _, index in _closest(q["question"], others, negatives):
                out.append(Example(q["question"], passages[index], None, source, weight))
    return out


def _gold_page(gold, newest: dict, by_revision: dict) -> Page | None:
    if isinstance(gold, str):
        return newest.get(gold)
    return by_revision.get((gold["document"], gold.get("revision"))) or newest.get(gold["document"])


def _answer_span(passage: str, answers: Iterable[str]) -> tuple[int, int] | None:
    folded = passage.casefold()
    for answer in answers:
        at = folded.find(answer.casefold())
        if at >= 0 and len(answer.casefold()) == len(answer):
            return at, at + len(answer)
    return None


def _closest(question: str, candidates: list[tuple[Page, int]], n: int) -> list[tuple[Page, int]]:
    """The ``n`` chunks sharing most of the question's words (3+ letters)."""
    words = set(_WORD.findall(question.casefold()))

    def shared(candidate: tuple[Page, int]) -> int:
        page, index = candidate
        return len(words & set(_WORD.findall(page.passages[index].casefold())))

    return sorted(candidates, key=shared, reverse=True)[:n]
