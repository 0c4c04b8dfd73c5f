"""BM25 postings: statistics stay exact through indexing, re-indexing and refresh."""

from __future__ import annotations

import math

import pytest
from django.db import connection

from retrieval.ingestion import revision_index
from retrieval.lexical import weights_refresh
from retrieval.models import Chunk, LexicalStats, Posting, TermStat

pytestmark = pytest.mark.django_db


def df(term: str) -> int:
    stat = TermStat.objects.filter(collection="editorial", term__lexeme=term).first()
    return stat.df if stat else 0


def test_postings_follow_chunks(make_revision):
    make_revision("# Baterai\n\nWaktu pemutaran baterai 30 jam.", key="S1")
    make_revision("# Galat\n\nKode ERR_CONN_RESET berarti koneksi diputus.", key="S2")
    stats = LexicalStats.objects.get(collection="editorial")
    assert stats.chunk_count == Chunk.objects.count() == 2
    assert stats.total_length == sum(Chunk.objects.values_list("lexeme_count", flat=True))
    assert df("putar") == 1 and df("err") == 1  # stemmed words and identifier parts
    assert Posting.objects.filter(term__lexeme="batera", chunk__document__key="S1").get().tf == 2

    revision = make_revision("# Baterai\n\nWaktu pemutaran kini 26 jam.", key="S1")
    stats.refresh_from_db()
    assert stats.chunk_count == 3  # the superseded revision keeps its chunks
    revision_index(revision_id=revision.pk, force=True)  # a rebuild leaves counts exact
    stats.refresh_from_db()
    assert stats.chunk_count == 3 and df("putar") == 2


def test_weights_are_bm25_without_idf(make_revision):
    make_revision("# A\n\nsinkronisasi berkas cepat", key="W1")
    make_revision("# B\n\nsinkronisasi sinkronisasi sinkronisasi folder besar sekali hari ini", key="W2")
    weights_refresh(drift=0)
    stats = LexicalStats.objects.get(collection="editorial")
    for posting in Posting.objects.select_related("chunk"):
        tf, length = posting.tf, posting.chunk.lexeme_count
        expected = tf * 2.2 / (tf + 1.2 * (1 - 0.75 + 0.75 * length / stats.avglen))
        assert math.isclose(posting.weight, expected, rel_tol=1e-6)  # a 4-byte float


def test_refresh_repairs_statistics_after_a_cascade_delete(make_revision):
    make_revision("# A\n\nkata unik zx100", key="R1")
    make_revision("# B\n\nkata unik zx200", key="R2")
    from retrieval.models import Document

    Document.objects.filter(key="R2").delete()
    assert not Posting.objects.filter(chunk__document__key="R2").exists()
    assert Posting.objects.filter(chunk__document__key="R1").exists()
    weights_refresh()
    assert LexicalStats.objects.get(collection="editorial").chunk_count == 1
    assert df("zx200") == 0 and df("zx100") == 1 and df("unik") == 1


def test_postings_are_narrow_rows_keyed_in_impact_order():
    """The primary key is the impact index (read backwards); nothing else
    but a BRIN index on the chunk is kept per posting."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'retrieval_posting'")
        indexes = dict(cursor.fetchall())
        cursor.execute(
            "SELECT attname, format_type(atttypid, atttypmod) FROM pg_attribute "
            "WHERE attrelid = 'retrieval_posting'::regclass AND attnum > 0 AND NOT attisdropped"
        )
        columns = dict(cursor.fetchall())
    assert indexes.keys() == {"retrieval_posting_pkey", "posting_chunk_brin"}
    assert "(term_id, weight, chunk_id)" in indexes["retrieval_posting_pkey"]
    assert "USING brin (chunk_id)" in indexes["posting_chunk_brin"]
    assert columns == {"term_id": "integer", "weight": "real", "chunk_id": "integer", "tf": "smallint"}


def test_statistics_are_kept_per_collection(make_revision):
    """A dataset loaded for evaluation never shifts the archive's IDF."""
    make_revision("# Baterai\n\nWaktu pemutaran baterai 30 jam.", key="S1")
    before = TermStat.objects.get(collection="editorial", term__lexeme="batera").df
    for n in range(3):
        make_revision("Baterai cadangan.", key=f"X{n}", collection="dataset-uji", fmt="text")
    assert TermStat.objects.get(collection="editorial", term__lexeme="batera").df == before == 1
    assert TermStat.objects.get(collection="dataset-uji", term__lexeme="batera").df == 3
    assert LexicalStats.objects.get(collection="editorial").chunk_count == 1
    assert LexicalStats.objects.get(collection="dataset-uji").chunk_count == 3


@pytest.mark.django_db(transaction=True)
def test_a_term_added_by_a_concurrent_ingestion_keeps_its_postings(make_revision):
    """Two ingestions add the same new lexeme at once: the second waits for
    the first and must still index its own posting of it (a single statement
    would read the vocabulary from before the first committed, and drop it)."""
    import threading

    from django.db import connections, transaction

    from retrieval.lexical import postings_add, postings_remove
    from retrieval.models import Term

    first = make_revision("# A\n\nkode zqxvort pertama", key="C1")
    second = make_revision("# B\n\nkode zqxvort kedua", key="C2")
    for revision in (first, second):
        postings_remove(revision_id=revision.pk)
    Posting.objects.all().delete()
    TermStat.objects.filter(term__lexeme="zqxvort").delete()
    Term.objects.filter(lexeme="zqxvort").delete()
    added, release, errors = threading.Event(), threading.Event(), []

    def ingest(revision_id: int, hold: bool) -> None:
        try:
            with transaction.atomic():
                postings_add(revision_id=revision_id)
                if hold:
                    added.set()
                    release.wait(10)
        except Exception as exc:  # noqa: BLE001 — reported by the assertion below
            errors.append(exc)
        finally:
            connections.close_all()

    holder = threading.Thread(target=ingest, args=(first.pk, True))
    holder.start()
    assert added.wait(10)
    waiter = threading.Thread(target=ingest, args=(second.pk, False))
    waiter.start()
    waiter.join(1.0)
    assert waiter.is_alive()  # blocked on the first ingestion's uncommitted lexeme
    release.set()
    holder.join(10)
    waiter.join(10)
    assert not errors, errors
    assert Posting.objects.filter(term__lexeme="zqxvort", chunk__revision=second).count() == 1
    assert Posting.objects.filter(term__lexeme="zqxvort", chunk__revision=first).count() == 1
