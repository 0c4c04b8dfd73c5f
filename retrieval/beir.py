"""Public retrieval datasets in BEIR format, loaded as their own collection.

A BEIR directory holds ``corpus.jsonl`` (``_id``, ``title``, ``text``),
``queries.jsonl`` (``_id``, ``text``) and ``qrels/<split>.tsv`` (a header
``query-id corpus-id score``, then one judged pair per line). Each passage
becomes a public document in a collection of its own (``beir-scifact``), so
editorial search never sees it and evaluation never sees editorial data. It
goes through the same services as any document (``revision_submit``, then
``revision_index`` in this process), so what is measured is what editors get,
and a re-run reuses the embedding cache and skips passages already indexed.

Caveat: the lexical statistics (document frequencies, average length) are
kept per database, not per collection, so a BEIR collection loaded next to
the editorial archive shifts the IDF both see. Benchmarks load each dataset
into a database of its own (``bench/beir_quality.py``).
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from auditlog.context import disable_auditlog
from django.db import transaction
from django.db.models import Count

from .ingestion import RevisionGone, RevisionInput, content_hash, revision_index, revision_submit
from .lexical import weights_refresh
from .models import Chunk, Document, Revision, RevisionStatus

T = TypeVar("T")
# Wraps an iterable to show progress, e.g. ``lambda items, desc, total: tqdm(items, desc=desc, total=total)``.
Progress = Callable[[Iterable[T], str, int], Iterable[T]]

KEY_MAX = 64  # Document.key
EDITORIAL = "editorial"


class BeirFormatError(ValueError):
    """A BEIR file is missing or malformed; the message names the file and line."""


@dataclass(frozen=True)
class Passage:
    id: str
    title: str
    text: str


# --- reading ------------------------------------------------------------------------


def _lines(path: Path) -> Iterator[tuple[str, str]]:
    """(where, line) for each non-blank line of a UTF-8 file."""
    if not path.is_file():
        raise BeirFormatError(f"file tidak ditemukan: {path}")
    with path.open("rb") as handle:
        for number, raw in enumerate(handle, start=1):
            where = f"{path.name} baris {number}"
            try:
                line = raw.decode("utf-8-sig" if number == 1 else "utf-8")
            except UnicodeDecodeError as exc:
                raise BeirFormatError(
                    f"{where}: bukan UTF-8 yang valid (byte 0x{raw[exc.start]:02x} di kolom {exc.start + 1})"
                ) from None
            if line.strip():
                yield where, line


def _objects(path: Path) -> Iterator[tuple[str, dict[str, Any]]]:
    for where, line in _lines(path):
        try:
            payload = json.loads(line)
        except json.JSONDecodeError as exc:
            raise BeirFormatError(f"{where}: JSON tidak valid: {exc.msg} (kolom {exc.colno})") from None
        if not isinstance(payload, dict):
            raise BeirFormatError(f"{where}: setiap baris harus berupa objek JSON")
        yield where, payload


def _field(payload: dict[str, Any], name: str, where: str, *, required: bool = True) -> str:
    value = payload.get(name)
    if value is None and not required:
        return ""
    if isinstance(value, int) and not isinstance(value, bool) and name == "_id":
        return str(value)  # some BEIR exports write numeric ids
    if not isinstance(value, str):
        problem = "wajib diisi" if value is None else f"harus berupa teks, bukan {type(value).__name__}"
        raise BeirFormatError(f"{where}: {name}: {problem}")
    if name == "_id" and not value.strip():
        raise BeirFormatError(f"{where}: _id kosong")
    return value.strip() if name == "_id" else value


def read_corpus(directory: Path, *, limit: int | None = None) -> list[Passage]:
    """The passages of ``corpus.jsonl`` in file order (the first ``limit`` only
    if given). A passage with no text keeps its title as its text."""
    passages: list[Passage] = []
    seen: dict[str, str] = {}
    for where, payload in _objects(Path(directory) / "corpus.jsonl"):
        if limit is not None and len(passages) >= limit:
            break
        passage_id = _field(payload, "_id", where)
        title = _field(payload, "title", where, required=False).strip()
        text = _field(payload, "text", where).strip() or title
        if not text:
            raise BeirFormatError(f"{where}: passage {passage_id!r} tanpa judul dan tanpa teks")
        if "\x00" in text:
            raise BeirFormatError(f"{where}: teks berisi byte NUL")
        if passage_id in seen:
            raise BeirFormatError(f"{where}: _id {passage_id!r} sudah dipakai di {seen[passage_id]}")
        seen[passage_id] = where
        passages.append(Passage(passage_id, title, text))
    if not passages:
        raise BeirFormatError(f"{Path(directory) / 'corpus.jsonl'}: tidak ada passage")
    return passages


def read_queries(directory: Path) -> dict[str, str]:
    """Query id → text, from ``queries.jsonl``."""
    queries: dict[str, str] = {}
    for where, payload in _objects(Path(directory) / "queries.jsonl"):
        query_id = _field(payload, "_id", where)
        text = _field(payload, "text", where).strip()
        if not text:
            raise BeirFormatError(f"{where}: query {query_id!r} tanpa teks")
        queries[query_id] = text
    return queries


def read_qrels(directory: Path, split: str) -> dict[str, dict[str, int]]:
    """Judgments of ``qrels/<split>.tsv``: query id → {passage id: relevance}."""
    path = Path(directory) / "qrels" / f"{split}.tsv"
    qrels: dict[str, dict[str, int]] = {}
    lines = _lines(path)
    first = next(lines, None)
    if first is None:
        raise BeirFormatError(
            f"{path.name}: file kosong (baris judul 'query-id<TAB>corpus-id<TAB>score' pun tidak ada)"
        )
    where, line = first
    header = line.strip().split("\t") if "\t" in line else line.split()
    if [h.strip().lower() for h in header] != ["query-id", "corpus-id", "score"]:
        raise BeirFormatError(
            f"{where}: baris judul harus 'query-id<TAB>corpus-id<TAB>score', bukan {line.strip()[:80]!r}"
        )
    for where, line in lines:
        parts = [p.strip() for p in (line.rstrip("\r\n").split("\t") if "\t" in line else line.split())]
        if len(parts) != 3 or not parts[0] or not parts[1]:
            raise BeirFormatError(f"{where}: harus 3 kolom (query-id, corpus-id, score), ada {len(parts)}")
        try:
            score = int(parts[2])
        except ValueError:
            raise BeirFormatError(f"{where}: score harus bilangan bulat, bukan {parts[2]!r}") from None
        qrels.setdefault(parts[0], {})[parts[1]] = score
    return qrels


def splits(directory: Path) -> list[str]:
    """The qrels splits present, e.g. ``["test", "train"]``."""
    return sorted(p.stem for p in (Path(directory) / "qrels").glob("*.tsv"))


def judged_subset(
    queries: dict[str, str], qrels: dict[str, dict[str, int]], passage_ids: Iterable[str]
) -> tuple[dict[str, str], dict[str, dict[str, int]]]:
    """Queries and judgments restricted to the loaded passages (after
    ``--limit``): judgments of passages not loaded are dropped, and so are
    queries left without a relevant loaded passage, which no system could
    answer."""
    loaded = set(passage_ids)
    kept = {q: {p: s for p, s in judged.items() if p in loaded} for q, judged in qrels.items()}
    kept = {q: judged for q, judged in kept.items() if q in queries and any(s > 0 for s in judged.values())}
    return {q: queries[q] for q in kept}, kept


# --- loading ------------------------------------------------------------------------


def document_key(collection: str, passage_id: str) -> str:
    """``{collection}:{_id}``; a key longer than Document.key allows keeps its
    start and ends with a hash of the whole, so it stays unique and stable."""
    key = f"{collection}:{passage_id}"
    if len(key) <= KEY_MAX:
        return key
    digest = hashlib.sha256(key.encode("utf-8")).hexdigest()[:12]
    return f"{key[: KEY_MAX - len(digest) - 1]}~{digest}"


def passage_input(
    passage: Passage, *, collection: str, source_type: str = "article", id_as_title: bool = True
) -> RevisionInput:
    """What a passage is stored as: a public plain-text document, titled by
    its title (by its id when the dataset gives none, unless ``id_as_title``
    is off: reading-comprehension paragraphs have no title, and an id would
    only add noise to what is embedded and scored)."""
    title = passage.title or (passage.id if id_as_title else "")
    return RevisionInput(
        key=document_key(collection, passage.id),
        title=title[:500],
        content=passage.text,
        format="text",
        source_type=source_type,
        public=True,
        collection=collection,
    )


@dataclass
class LoadResult:
    collection: str
    passages: int = 0
    documents_created: int = 0
    revisions_new: int = 0
    unchanged: int = 0  # identical content already indexed: nothing done
    indexed: int = 0  # revisions indexed by this run (new ones and earlier unfinished ones)
    chunks: int = 0
    embedded: int = 0  # chunks embedded now, not taken from the cache
    weights_refreshed: bool = False
    seconds: float = 0.0
    failed: list[tuple[str, str]] = field(default_factory=list)  # (passage id, error)
    keys: dict[str, str] = field(default_factory=dict)  # document key → passage id


def _passthrough(items: Iterable[T], desc: str, total: int) -> Iterable[T]:
    return items


def load_corpus(
    *,
    directory: Path,
    collection: str,
    limit: int | None = None,
    source_type: str = "article",
    progress: Progress | None = None,
) -> LoadResult:
    """Load the BEIR corpus in ``directory`` into ``collection`` and index it
    in this process. Idempotent: passages whose serving revision already has
    the same content and metadata are skipped without a query each; a passage
    left unindexed by an interrupted run is indexed now. Raises
    ``BeirFormatError`` before writing anything if the corpus is malformed."""
    return load_passages(
        passages=read_corpus(directory, limit=limit), collection=collection, source_type=source_type, progress=progress
    )


def load_passages(
    *,
    passages: list[Passage],
    collection: str,
    source_type: str = "article",
    id_as_title: bool = True,
    progress: Progress | None = None,
) -> LoadResult:
    """Load ``passages`` (from a BEIR corpus or any public dataset) into
    ``collection`` and index them in this process, idempotently."""
    if not collection or collection == EDITORIAL:
        raise ValueError("dataset publik harus dimuat ke koleksinya sendiri, bukan 'editorial'")
    progress = progress or _passthrough
    started = time.perf_counter()
    result = LoadResult(collection, passages=len(passages))
    inputs = [
        passage_input(p, collection=collection, source_type=source_type, id_as_title=id_as_title) for p in passages
    ]
    result.keys = {data.key: p.id for data, p in zip(inputs, passages, strict=True)}

    # One query tells which passages already serve exactly this content.
    serving = {
        key: (content_hash_, title, public, kind, coll)
        for key, content_hash_, title, public, kind, coll in Document.objects.filter(
            key__in=list(result.keys),
            current_revision__status=RevisionStatus.ACTIVE,
        ).values_list("key", "current_revision__content_hash", "title", "public", "source_type", "collection")
    }
    to_index: list[tuple[str, int]] = []
    for data in progress(inputs, "menyimpan", len(inputs)):
        if serving.get(data.key) == (content_hash(data.content), data.title, True, data.source_type, collection):
            result.unchanged += 1
            continue
        with disable_auditlog():  # public evaluation data: no permission change to account for
            submitted = revision_submit(data=data)
        result.documents_created += submitted.document_created
        if submitted.revision is not None:
            result.revisions_new += 1
            to_index.append((data.key, submitted.revision.pk))
            continue
        result.unchanged += 1
        latest = submitted.document.revisions.order_by("-number").first()
        if latest is not None and latest.status not in (RevisionStatus.ACTIVE, RevisionStatus.SUPERSEDED):
            to_index.append((data.key, latest.pk))  # left pending/failed by an earlier run

    for key, revision_id in progress(to_index, "mengindeks", len(to_index)):
        try:
            indexed = revision_index(revision_id=revision_id)
        except RevisionGone:
            continue
        if indexed.status == RevisionStatus.FAILED:
            error = Revision.objects.filter(pk=revision_id).values_list("error", flat=True).first() or "gagal"
            result.failed.append((result.keys[key], error))
            continue
        result.indexed += 1
        result.chunks += indexed.chunks
        result.embedded += indexed.embedded
    if to_index:
        # Posting weights were computed with the running average length while
        # the corpus grew; recompute them all so BM25 is exact for this corpus.
        result.weights_refreshed = bool(weights_refresh(drift=0))
    result.seconds = time.perf_counter() - started
    return result


@dataclass
class DropResult:
    collection: str
    documents: int
    revisions: int
    chunks: int
    weights_refreshed: bool


@transaction.atomic
def drop_collection(*, collection: str) -> DropResult:
    """Delete every document of ``collection`` (revisions, chunks, postings and
    embeddings go with them), then rebuild the lexical statistics from what
    is left and recompute the posting weights. The embedding cache is kept:
    loading the collection again costs no embedding."""
    documents = Document.objects.filter(collection=collection)
    counts = documents.aggregate(documents=Count("pk", distinct=True), revisions=Count("revisions", distinct=True))
    chunks = Chunk.objects.filter(document__collection=collection).count()
    if counts["documents"]:
        # current_revision points back into the rows being deleted.
        documents.update(current_revision=None)
        documents.delete()
    refreshed = bool(weights_refresh(drift=0)) if counts["documents"] else False
    return DropResult(collection, counts["documents"], counts["revisions"], chunks, refreshed)


# --- SQuAD 2.0 files (IDK-MRC): reading comprehension, loaded as passages ----------


def squad_read(path: Path) -> list[dict]:
    """Paragraphs ``{context, qas}`` of a SQuAD 2.0 file, whether it is the
    official ``{"data": [{"paragraphs": …}]}`` shape or IDK-MRC's flat list."""
    raw = json.loads(path.read_text(encoding="utf-8"))
    if isinstance(raw, dict):
        return [p for article in raw["data"] for p in article["paragraphs"]]
    return raw


def squad_passages(paragraphs: list[dict]) -> list[Passage]:
    """A SQuAD file's paragraphs as passages to load like a BEIR corpus's."""
    return [Passage(id=f"p{n:05d}", title="", text=p["context"]) for n, p in enumerate(paragraphs)]
