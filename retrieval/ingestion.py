"""Services that write the archive: submit a revision, index it, sweep.

A revision is saved ``pending``; whoever saved it hands it to the workers
after commit (``retrieval.tasks.index_after_commit``). Indexing chunks
and embeds it outside any transaction (slow), then in one transaction
replaces the revision's chunks and embeddings, activates it and supersedes
the previous active revision. Until that commit readers keep seeing the
previous revision; a failure leaves it serving and records the error.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import date, timedelta

from django.conf import settings
from django.contrib.auth.models import Group
from django.db import connection, transaction
from django.db.models import Max
from django.utils import timezone

from .chunking import CHUNKER_VERSION, ChunkDraft, ChunkingError, chunk_document
from .embeddings import EmbeddingProvider, embed_passages_cached, provider_from_config, token_count
from .http import ServiceError
from .lexical import postings_add, postings_remove
from .models import (
    Chunk,
    ChunkEmbedding,
    Document,
    EmbeddingSpace,
    Relation,
    Revision,
    RevisionScan,
    RevisionStatus,
    SourceType,
)
from .pages import last_page_of, page_of, pages_read_by_ocr
from .scans import scan_hash, scan_read

logger = logging.getLogger(__name__)


def content_hash(content: str) -> str:
    return hashlib.sha256(content.encode("utf-8")).hexdigest()


@dataclass
class RevisionInput:
    """What a manifest line, a file or the admin supplies for one revision."""

    key: str
    title: str
    content: str
    format: str = "markdown"
    source_type: str = "other"
    url: str = ""
    document_date: date | None = None
    groups: list[str] = field(default_factory=list)
    public: bool = False
    relations: list[tuple[str, str]] = field(default_factory=list)  # (type, target key)
    collection: str = "editorial"
    page_starts: list[int] = field(default_factory=list)  # a PDF's page offsets in ``content``
    ocr_pages: list[int] = field(default_factory=list)  # its pages read by OCR ("hasil OCR" on their evidence)
    # A scanned PDF as it came, to be read with OCR by the worker (``content`` empty).
    scan: bytes | None = None


def input_hash(data: RevisionInput) -> str:
    """The content hash a revision of ``data`` gets. A scan waiting for OCR
    has no text yet: the file's own bytes tell an unchanged upload, now and
    after the worker has read it."""
    return scan_hash(data.scan) if data.scan is not None else content_hash(data.content)


@dataclass
class SubmitResult:
    document: Document
    revision: Revision | None  # None: content unchanged, no new revision
    document_created: bool
    groups_created: list[str]
    source_type_created: bool = False  # data.source_type was new: made with the lowest authority


# --- submit ---------------------------------------------------------------------------


@transaction.atomic
def revision_submit(*, data: RevisionInput, update_unchanged: bool = True) -> SubmitResult:
    """Create or update the document ``data.key`` and add a pending revision
    unless the content equals the newest revision's. Metadata (title, groups,
    public flag …) is updated either way and takes effect at the next query —
    unless ``update_unchanged`` is False: then unchanged content leaves the
    document exactly as it was (the admin's revision form: a re-upload of the
    same file must not rename the document)."""
    digest = input_hash(data)
    source_type_created = SourceType.ensure(data.source_type)
    document, created = Document.objects.select_for_update().get_or_create(
        key=data.key,
        defaults={
            "title": data.title,
            "url": data.url,
            "source_type_id": data.source_type,
            "public": data.public,
            "collection": data.collection,
        },
    )
    latest = None if created else document.revisions.order_by("-number").first()
    unchanged = latest is not None and latest.content_hash == digest
    if unchanged and not update_unchanged:
        return SubmitResult(document, None, created, [], source_type_created)
    if not created:
        document.title, document.url = data.title, data.url
        document.source_type_id, document.public = data.source_type, data.public
        document.save(update_fields=["title", "url", "source_type", "public", "updated_at"])

    groups, groups_created = [], []
    for name in data.groups:
        group, new = Group.objects.get_or_create(name=name)
        groups.append(group)
        if new:
            groups_created.append(name)
    document.groups.set(groups)

    for relation_type, target_key in data.relations:
        Relation.objects.update_or_create(
            source=document,
            type=relation_type,
            target_key=target_key,
            defaults={"target": Document.objects.filter(key=target_key).first()},
        )
    if created:  # relations declared before this document existed
        Relation.objects.filter(target_key=document.key, target=None).update(target=document)

    if unchanged:
        return SubmitResult(document, None, created, groups_created, source_type_created)

    revision = Revision.objects.create(
        document=document,
        number=(latest.number + 1) if latest else 1,
        title=data.title,
        content=data.content,
        page_starts=data.page_starts,
        ocr_pages=data.ocr_pages,
        format=data.format,
        content_hash=digest,
        document_date=data.document_date,
    )
    if data.scan is not None:
        RevisionScan.objects.create(revision=revision, data=data.scan)
    return SubmitResult(document, revision, created, groups_created, source_type_created)


def revisions_to_sweep(
    *, pending_for: timedelta = timedelta(minutes=2), stuck_for: timedelta = timedelta(minutes=30)
) -> list[int]:
    """Revisions to hand to the workers again: left pending (the broker was
    down at save time) or stuck in indexing (a worker died). The sweep task
    and command enqueue them."""
    now = timezone.now()
    return list(
        Revision.objects.filter(status=RevisionStatus.PENDING, updated_at__lte=now - pending_for)
        .union(Revision.objects.filter(status=RevisionStatus.INDEXING, updated_at__lte=now - stuck_for))
        .values_list("pk", flat=True)
    )


# --- index ------------------------------------------------------------------------------


def indexing_spaces(provider: EmbeddingProvider) -> list[EmbeddingSpace]:
    """Spaces a new revision is embedded into: the active one (created for
    ``provider`` if the archive has none yet)."""
    space = EmbeddingSpace.objects.filter(is_active=True).first()
    if space is None:
        space = space_for(provider)
        EmbeddingSpace.objects.filter(pk=space.pk).update(is_active=True)
        space.is_active = True
    return [space]


def space_for(provider: EmbeddingProvider) -> EmbeddingSpace:
    """The space of ``provider`` (created, with its HNSW index, if new)."""
    space, created = EmbeddingSpace.objects.get_or_create(
        provider=provider.provider,
        model=provider.model,
        version=provider.version,
        dimensions=provider.dimensions,
    )
    if created:
        ensure_space_index(space)
    return space


def ensure_space_index(space: EmbeddingSpace) -> None:
    """A partial HNSW index for one space: pgvector indexes need a fixed
    dimension, and the column has none, so each space indexes its own cast.
    DDL takes no bind parameters; both values are integers from our own rows."""
    dims, space_id = int(space.dimensions), int(space.pk)
    with connection.cursor() as cursor:
        # Inside a transaction with deferred FK checks pending, PostgreSQL
        # refuses CREATE INDEX on the table; run those checks first.
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
        cursor.execute(
            f"CREATE INDEX IF NOT EXISTS chunk_embedding_hnsw_space_{space_id} "
            f"ON retrieval_chunkembedding USING hnsw ((embedding::vector({dims})) vector_cosine_ops) "
            f"WITH (m = 16, ef_construction = 200) WHERE space_id = {space_id}"
        )


def embedding_text(title: str, draft: ChunkDraft) -> str:
    """What is embedded: the breadcrumb gives the chunk its context."""
    crumb = draft.breadcrumb or title
    return f"{crumb}\n\n{draft.text}" if crumb else draft.text


class RevisionGone(Exception):
    """The revision was deleted before it could be indexed."""


@dataclass
class IndexResult:
    revision_id: int
    status: str
    chunks: int = 0
    tokens: int = 0
    embedded: int = 0  # computed now, not taken from the cache
    skipped: bool = False


def revision_index(
    *,
    revision_id: int,
    provider: EmbeddingProvider | None = None,
    max_tokens: int | None = None,
    breadcrumbs: bool = True,
    force: bool = False,
    progress: Callable[[str], None] | None = None,
) -> IndexResult:
    """Chunk, embed and index one revision, then activate it.

    Idempotent: an active or superseded revision is left alone unless
    ``force`` (re-index after a chunker change: its chunks are replaced in one
    transaction and it keeps serving meanwhile), and a re-run replaces the
    revision's chunks instead of adding to them. Raises
    ``ServiceError`` for failures worth retrying (the embedding server); other
    failures mark the revision failed and return. ``max_tokens`` and
    ``breadcrumbs`` are for chunking experiments (``eval_chunking``); without
    breadcrumbs a chunk carries no heading path and is embedded bare. A
    revision whose text is still a scan is read with OCR first
    (``retrieval/scans.py``); ``progress`` hears how far that got."""
    provider = provider or provider_from_config()
    max_tokens = max_tokens or settings.NALARKU_CHUNK_MAX_TOKENS
    with transaction.atomic():
        try:
            revision = Revision.objects.select_for_update().select_related("document").get(pk=revision_id)
        except Revision.DoesNotExist:
            raise RevisionGone(revision_id) from None
        serving = revision.status in (RevisionStatus.ACTIVE, RevisionStatus.SUPERSEDED)
        if serving and not force:
            return IndexResult(revision_id, revision.status, skipped=True)
        if not serving:
            revision.status = RevisionStatus.INDEXING
        revision.attempts += 1
        revision.save(update_fields=["status", "attempts", "updated_at"])

    document = revision.document
    # Only a revision still without text can be a scan waiting for OCR.
    if not revision.content and RevisionScan.objects.filter(revision_id=revision_id).exists():
        failure = scan_read(revision, progress=progress)
        if failure:
            _record_failure(revision_id, failure)
            return IndexResult(revision_id, RevisionStatus.FAILED)
    try:
        drafts = chunk_document(
            revision.content, revision.format, count=token_count, max_tokens=max_tokens, title=revision.title
        )
    except ChunkingError as exc:
        _record_failure(revision_id, str(exc))
        return IndexResult(revision_id, RevisionStatus.FAILED)

    if not breadcrumbs:
        drafts = [replace(d, heading_path=()) for d in drafts]
    spaces = indexing_spaces(provider)
    texts = [embedding_text(revision.title, d) if breadcrumbs else d.text for d in drafts]
    try:
        vectors, embedded = embed_passages_cached(texts, provider)
    except ServiceError as exc:
        _record_failure(revision_id, str(exc), final=not exc.transient)
        raise

    with transaction.atomic():
        revision = Revision.objects.select_for_update().get(pk=revision_id)
        expected = (RevisionStatus.ACTIVE, RevisionStatus.SUPERSEDED) if serving else (RevisionStatus.INDEXING,)
        if revision.status not in expected:  # another run finished first
            return IndexResult(revision_id, revision.status, skipped=True)
        postings_remove(revision_id=revision.pk)
        Chunk.objects.filter(revision=revision).delete()
        chunks = Chunk.objects.bulk_create(
            [
                Chunk(
                    revision=revision,
                    document=document,
                    position=d.position,
                    key=f"{document.key}:r{revision.number}:p{d.position}",
                    kind=d.kind,
                    heading_path=d.breadcrumb,
                    text=d.text,
                    token_count=d.token_count,
                    char_start=d.char_start,
                    char_end=d.char_end,
                    page=page_of(d.char_start, revision.page_starts),
                    page_end=last_page_of(d.char_start, d.char_end, revision.page_starts),
                    ocr=pages_read_by_ocr(d.char_start, d.char_end, revision.page_starts, revision.ocr_pages),
                )
                for d in drafts
            ]
        )
        ChunkEmbedding.objects.bulk_create(
            [
                ChunkEmbedding(chunk=chunk, space=space, embedding=vectors[n])
                for space in spaces
                for n, chunk in enumerate(chunks)
            ],
            batch_size=500,
        )
        postings_add(revision_id=revision.pk)
        revision.chunker_version = CHUNKER_VERSION
        revision.indexed_at = timezone.now()
        revision.error = ""
        if not serving:
            revision.status = _activate(revision)
        revision.save(update_fields=["chunker_version", "indexed_at", "error", "status", "updated_at"])
    return IndexResult(
        revision_id, revision.status, chunks=len(chunks), tokens=sum(d.token_count for d in drafts), embedded=embedded
    )


def _activate(revision: Revision) -> str:
    """Make ``revision`` its document's serving revision unless a newer one
    already serves (an older revision finishing late only joins history)."""
    document = Document.objects.select_for_update().get(pk=revision.document_id)
    newest_active = Revision.objects.filter(document=document, status=RevisionStatus.ACTIVE).aggregate(n=Max("number"))[
        "n"
    ]
    if newest_active is not None and newest_active > revision.number:
        return RevisionStatus.SUPERSEDED
    Revision.objects.filter(document=document, status=RevisionStatus.ACTIVE).update(
        status=RevisionStatus.SUPERSEDED, updated_at=timezone.now()
    )
    document.current_revision = revision
    document.save(update_fields=["current_revision", "updated_at"])
    return RevisionStatus.ACTIVE


def _record_failure(revision_id: int, message: str, *, final: bool = True) -> None:
    """Keep the error on the revision. A transient failure goes back to
    pending (the task retries, the sweep is the safety net)."""
    status = RevisionStatus.FAILED if final else RevisionStatus.PENDING
    now = timezone.now()
    Revision.objects.filter(pk=revision_id).update(error=message[:2000], updated_at=now)
    Revision.objects.filter(pk=revision_id, status=RevisionStatus.INDEXING).update(status=status)


def revision_reopen(*, revision_id: int) -> None:
    """Before indexing a revision again (admin action): a failed one goes
    back to pending; an active or superseded one is rebuilt while it keeps
    serving, so it is left as it is."""
    Revision.objects.filter(pk=revision_id, status=RevisionStatus.FAILED).update(
        status=RevisionStatus.PENDING, updated_at=timezone.now()
    )


def mark_failed(*, revision_id: int, message: str) -> None:
    """Give up on a revision after its last retry; the previous one keeps serving."""
    Revision.objects.filter(pk=revision_id).exclude(
        status__in=[RevisionStatus.ACTIVE, RevisionStatus.SUPERSEDED]
    ).update(status=RevisionStatus.FAILED, error=message[:2000], updated_at=timezone.now())


def space_fill(
    *,
    space: EmbeddingSpace,
    provider: EmbeddingProvider,
    batch: int = 256,
    progress: Callable[[int], None] | None = None,
) -> int:
    """Embed every chunk that has no vector in ``space`` yet (through the
    cache). Resumable: a re-run continues where it stopped. Returns how many
    chunks were embedded."""
    done = 0
    while True:
        chunks = list(Chunk.objects.exclude(embeddings__space=space).select_related("revision").order_by("pk")[:batch])
        if not chunks:
            return done
        texts = [embedding_text(c.revision.title, c.as_draft()) for c in chunks]
        vectors, _ = embed_passages_cached(texts, provider)
        ChunkEmbedding.objects.bulk_create(
            [ChunkEmbedding(chunk=c, space=space, embedding=vectors[n]) for n, c in enumerate(chunks)],
            ignore_conflicts=True,
        )
        done += len(chunks)
        if progress:
            progress(len(chunks))


@transaction.atomic
def space_activate(*, space: EmbeddingSpace) -> None:
    """Switch search to ``space``; refuse while chunks still lack a vector in it."""
    missing = Chunk.objects.exclude(embeddings__space=space).count()
    if missing:
        raise ValueError(f"{missing} potongan belum punya vektor di ruang ini; jalankan pengisian dulu")
    EmbeddingSpace.objects.select_for_update().filter(is_active=True).update(is_active=False)
    EmbeddingSpace.objects.filter(pk=space.pk).update(is_active=True)
