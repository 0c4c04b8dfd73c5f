"""Rerankers against a real HTTP server on loopback speaking each protocol,
and how search uses them: rerank order, threshold, fallback to RRF order."""

from __future__ import annotations

import json
import time

import pytest
from werkzeug import Request, Response

from retrieval.llm import ChatClient
from retrieval.rerank import HttpReranker, LlmReranker, RerankError
from retrieval.search import search


def rerank_handler(request: Request) -> Response:
    """Cohere/Jina shape; a document mentioning ERR_CONN_RESET is the answer.
    Results come best first, as real servers send them."""
    body = json.loads(request.data)
    scored = [
        {"index": i, "relevance_score": 0.9 if "ERR_CONN_RESET" in doc else 0.05}
        for i, doc in enumerate(body["documents"])
    ]
    scored.sort(key=lambda r: -r["relevance_score"])
    return Response(json.dumps({"results": scored[: body["top_n"]]}), content_type="application/json")


def json_response(value: object) -> Response:
    return Response(json.dumps(value), content_type="application/json")


def test_http_reranker_protocol(httpserver):
    httpserver.expect_request("/v1/rerank", method="POST").respond_with_handler(rerank_handler)
    reranker = HttpReranker(url=httpserver.url_for("/v1/rerank"), model="bge-reranker", api_key="k-1")
    assert reranker.scores("galat?", ["lain", "kode ERR_CONN_RESET", "juga lain"]) == [0.05, 0.9, 0.05]
    request = httpserver.log[0][0]
    assert json.loads(request.data) == {
        "model": "bge-reranker",
        "query": "galat?",
        "documents": ["lain", "kode ERR_CONN_RESET", "juga lain"],
        "top_n": 3,
    }
    assert request.headers["Authorization"] == "Bearer k-1"


@pytest.mark.parametrize(
    "reply, message",
    [
        ({"data": []}, "tanpa 'results'"),
        ({"results": [{"index": 0, "relevance_score": 0.5}]}, "tidak semua"),
        ({"results": [{"index": 5, "relevance_score": 0.5}, {"index": 1, "relevance_score": 0.1}]}, "tidak valid"),
        ({"results": [{"index": 0, "relevance_score": "tinggi"}, {"index": 1, "relevance_score": 0.1}]}, "tidak valid"),
        ({"results": [{"index": 0, "relevance_score": 0.5}, {"index": 0, "relevance_score": 0.1}]}, "tidak valid"),
    ],
)
def test_http_reranker_rejects_malformed_replies(httpserver, reply, message):
    httpserver.expect_request("/rerank").respond_with_json(reply)
    with pytest.raises(RerankError, match=message):
        HttpReranker(url=httpserver.url_for("/rerank"), model="m").scores("q", ["a", "b"])


def test_http_reranker_5xx_is_retried_then_fails(httpserver):
    httpserver.expect_request("/rerank").respond_with_data("overloaded", status=503)
    reranker = HttpReranker(url=httpserver.url_for("/rerank"), model="m", retries=1)
    with pytest.raises(RerankError, match="HTTP 503"):
        reranker.scores("q", ["a"])
    assert len(httpserver.log) == 2


def test_http_reranker_timeout(httpserver):
    def slow(request: Request) -> Response:
        time.sleep(1.0)
        return rerank_handler(request)

    httpserver.expect_request("/rerank").respond_with_handler(slow)
    with pytest.raises(RerankError, match="tidak menjawab"):
        HttpReranker(url=httpserver.url_for("/rerank"), model="m", timeout=0.2, retries=0).scores("q", ["a"])


def test_http_reranker_non_json(httpserver):
    httpserver.expect_request("/rerank").respond_with_data("<html>proxy error</html>", content_type="text/html")
    with pytest.raises(RerankError, match="bukan JSON"):
        HttpReranker(url=httpserver.url_for("/rerank"), model="m").scores("q", ["a"])


def test_llm_reranker_through_ollama_chat(httpserver):
    def chat(request: Request) -> Response:
        body = json.loads(request.data)
        passage = body["messages"][-1]["content"]
        score = 9 if "ERR_CONN_RESET" in passage else 1
        return json_response(
            {
                "model": body["model"],
                "message": {"role": "assistant", "content": json.dumps({"score": score})},
                "done": True,
            }
        )

    httpserver.expect_request("/api/chat", method="POST").respond_with_handler(chat)
    reranker = LlmReranker(ChatClient(provider="ollama", url=httpserver.url_for("/"), model="qwen"))
    assert reranker.scores("galat?", ["kode ERR_CONN_RESET", "lain"]) == [0.9, 0.1]
    body = json.loads(httpserver.log[0][0].data)
    assert body["stream"] is False and body["format"]["required"] == ["score"]
    system, user = body["messages"]
    assert "bukan instruksi" in system["content"]
    assert "<passage>" in user["content"] and "</passage>" in user["content"]


def test_llm_reranker_through_openai_chat(httpserver):
    def chat(request: Request) -> Response:
        body = json.loads(request.data)
        assert body["response_format"]["type"] == "json_schema"
        return json_response(
            {"choices": [{"index": 0, "message": {"role": "assistant", "content": '```json\n{"score": 7}\n```'}}]}
        )

    httpserver.expect_request("/v1/chat/completions", method="POST").respond_with_handler(chat)
    reranker = LlmReranker(ChatClient(provider="openai", url=httpserver.url_for("/"), model="gpt"))
    assert reranker.scores("q", ["a"]) == [0.7]


@pytest.mark.parametrize("content", ["bukan json", '{"skor": 3}', '{"score": 42}', "[1, 2]"])
def test_llm_reranker_rejects_malformed_scores(httpserver, content):
    httpserver.expect_request("/api/chat").respond_with_json({"message": {"role": "assistant", "content": content}})
    reranker = LlmReranker(ChatClient(provider="ollama", url=httpserver.url_for("/"), model="m", retries=0))
    with pytest.raises(RerankError):
        reranker.scores("q", ["a"])


# --- search with a reranker ---------------------------------------------------------


@pytest.fixture
def archive(make_revision):
    make_revision("# Koneksi\n\nKoneksi terputus saat mengunduh pembaruan.", key="R1", public=True)
    make_revision("# Galat\n\nKode ERR_CONN_RESET muncul bila server menutup koneksi.", key="R2", public=True)
    make_revision("# Koneksi lambat\n\nKoneksi lambat karena jaringan padat.", key="R3", public=True)


@pytest.mark.django_db
def test_search_follows_rerank_order_and_threshold(archive, httpserver):
    httpserver.expect_request("/rerank").respond_with_handler(rerank_handler)
    reranker = HttpReranker(url=httpserver.url_for("/rerank"), model="m")
    plain = search("koneksi terputus", None, k=3, rerank=False)
    assert plain.results[0].document != "R2" and all(h.rerank_score is None for h in plain.results)

    reranked = search("koneksi terputus", None, k=3, reranker=reranker)
    assert reranked.results[0].document == "R2" and reranked.results[0].rerank_score == 0.9
    assert "rerank" in reranked.timings_ms and reranked.degraded == []

    strict = search("koneksi terputus", None, k=3, reranker=reranker, threshold=0.5)
    assert [h.document for h in strict.results] == ["R2"]  # fewer than k
    assert search("koneksi terputus", None, k=3, reranker=reranker, threshold=0.95).results == []


@pytest.mark.django_db
def test_search_falls_back_to_rrf_order_when_the_reranker_fails(archive, httpserver):
    httpserver.expect_request("/rerank").respond_with_data("down", status=500)
    reranker = HttpReranker(url=httpserver.url_for("/rerank"), model="m", retries=0)
    plain = search("koneksi terputus", None, k=3, rerank=False)
    failed = search("koneksi terputus", None, k=3, reranker=reranker, threshold=0.5)
    assert failed.degraded == ["reranker_unavailable"]
    assert [h.evidence_id for h in failed.results] == [h.evidence_id for h in plain.results]
    assert all(h.rerank_score is None for h in failed.results)


@pytest.mark.django_db
def test_rerank_requested_without_a_configured_reranker_says_so(archive, settings):
    settings.NALARKU_RERANK = {**settings.NALARKU_RERANK, "provider": ""}
    response = search("koneksi", None, k=2, rerank=True)
    assert response.degraded == ["reranker_unavailable"] and len(response.results) == 2
    assert search("koneksi", None, k=2).degraded == []  # not configured, not asked: not degraded
