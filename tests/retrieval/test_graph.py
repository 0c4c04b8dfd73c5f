"""Graph expansion: follows allowed relations from the direct hits, after
them, with the relation that led there, never to or through a document the
reader may not see."""

from __future__ import annotations

import pytest

from retrieval.models import Relation
from retrieval.search import search

pytestmark = pytest.mark.django_db

QUERY = "jadwal peluncuran fitur Sinar"


@pytest.fixture
def archive(make_revision, settings):
    settings.NALARKU_GRAPH = {"types": ["cites", "supersedes"], "depth": 2, "max_nodes": 5}
    # A (the hit) cites B; B cites the legal memo S; S cites E; A is "related" to R.
    make_revision(
        "# Sinar\n\nPeluncuran fitur Sinar dijadwalkan bulan Mei.",
        key="A",
        public=True,
        relations=[("cites", "B"), ("related", "R"), ("cites", "S")],
    )
    make_revision("# Kebijakan rilis\n\nSemua fitur melewati masa beta.", key="B", public=True)
    make_revision(
        "# Memo hukum\n\nProyek Garuda Biru menunda peluncuran.", key="S", groups=("hukum",), relations=[("cites", "E")]
    )
    make_revision("# Catatan teknis\n\nArsitektur penyimpanan baru.", key="E", public=True)
    make_revision("# Lain\n\nResep nasi goreng.", key="R", public=True)


def graph_hits(response):
    return [h for h in response.results if h.via_graph]


def test_expansion_follows_allowed_relations_after_the_direct_hits(archive, make_user):
    response = search(QUERY, make_user("pembaca"), k=1)
    assert response.results[0].document == "A" and not response.results[0].via_graph
    expanded = graph_hits(response)
    assert [h.document for h in expanded] == ["B"]
    assert expanded[0].relation == {"type": "cites", "source": "A", "target": "B"}
    assert expanded[0].lexical_rank is None and expanded[0].evidence_id.startswith("B:r1:p")
    assert "expand" in response.timings_ms


def test_expansion_never_reaches_or_walks_through_hidden_documents(archive, make_user):
    outsider = make_user("pembaca")
    response = search(QUERY, outsider, k=1)
    assert {h.document for h in response.results} == {"A", "B"}  # not S, nor E behind it
    assert "Garuda" not in str(response.as_dict())
    lawyer = make_user("pengacara", "hukum")
    reached = {h.document: h.relation for h in graph_hits(search(QUERY, lawyer, k=1))}
    assert reached["S"] == {"type": "cites", "source": "A", "target": "S"}
    assert reached["E"] == {"type": "cites", "source": "S", "target": "E"}
    lawyer.groups.clear()  # the next query already knows
    assert {h.document for h in search(QUERY, lawyer, k=1).results} == {"A", "B"}


def test_depth_cap_and_switch(archive, make_user, settings):
    lawyer = make_user("pengacara", "hukum")
    settings.NALARKU_GRAPH = {"types": ["cites"], "depth": 1, "max_nodes": 5}
    assert {h.document for h in graph_hits(search(QUERY, lawyer, k=1))} == {"B", "S"}
    settings.NALARKU_GRAPH = {"types": ["cites"], "depth": 3, "max_nodes": 1}
    assert len(graph_hits(search(QUERY, lawyer, k=1))) == 1
    assert graph_hits(search(QUERY, lawyer, k=1, expand=False)) == []


def test_incoming_relations_are_followed_and_direct_hits_not_repeated(archive, make_user):
    response = search("Semua fitur melewati masa beta", make_user("pembaca"), k=1)
    assert response.results[0].document == "B"
    assert [(h.document, h.relation["source"]) for h in graph_hits(response)] == [("A", "A")]
    both = search("fitur Sinar peluncuran beta", make_user("pembaca2"), k=2)
    assert len({h.document for h in both.results}) == len(both.results)


def test_relation_to_a_document_ingested_later_resolves(make_revision, make_user, settings):
    settings.NALARKU_GRAPH = {"types": ["cites"], "depth": 1, "max_nodes": 5}
    make_revision(
        "# Artikel\n\nMengutip pengumuman tentang fitur Sinar.", key="X", public=True, relations=[("cites", "Y")]
    )
    assert Relation.objects.get(target_key="Y").target is None
    make_revision("# Pengumuman\n\nPengumuman resmi.", key="Y", public=True)
    assert [h.document for h in graph_hits(search("artikel mengutip fitur Sinar", None, k=1))] == ["Y"]
