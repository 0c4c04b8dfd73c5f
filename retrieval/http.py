"""JSON over HTTP for model servers (embeddings, rerankers, generators):
timeouts, bounded retries with exponential backoff on transient failures, and
errors that say which service failed and how, without leaking payloads."""

from __future__ import annotations

import time
from typing import Any

import httpx

RETRYABLE_STATUS = {408, 425, 429, 500, 502, 503, 504}


class ServiceError(RuntimeError):
    """A model server failed; ``transient`` tells whether retrying later may help."""

    def __init__(self, message: str, *, transient: bool = True) -> None:
        super().__init__(message)
        self.transient = transient


# What a transport failure means, in the words an editor or admin reads
# (httpx's class names are not an explanation).
_TRANSPORT_MEANINGS = (
    (httpx.ConnectError, "koneksi ditolak atau alamat tidak ditemukan"),
    (httpx.RemoteProtocolError, "server memutus sambungan"),
    (httpx.ProxyError, "proxy menolak sambungan"),
    (httpx.UnsupportedProtocol, "alamat bukan http:// atau https://"),
    (httpx.NetworkError, "sambungan terputus"),
)


def transport_problem(exc: httpx.TransportError) -> str:
    """Why a request got no reply, e.g. "tidak dapat dihubungi (koneksi ditolak …)"."""
    meaning = next((text for kind, text in _TRANSPORT_MEANINGS if isinstance(exc, kind)), "sambungan gagal")
    return f"tidak dapat dihubungi ({meaning})"


def post_json(
    url: str,
    payload: dict[str, Any],
    *,
    headers: dict[str, str] | None = None,
    timeout: float = 30.0,
    retries: int = 2,
    backoff: float = 0.5,
    error: type[ServiceError] = ServiceError,
    service: str = "server",
) -> Any:
    """POST ``payload`` and return the decoded JSON reply.

    Connection errors, timeouts and 408/429/5xx replies are retried ``retries``
    times (backoff doubles each time); other 4xx replies and malformed JSON
    fail at once."""
    attempt = 0
    while True:
        try:
            response = httpx.post(url, json=payload, headers=headers, timeout=timeout)
        except httpx.TimeoutException:
            problem, transient = f"{service}: tidak menjawab dalam {timeout:g} detik", True
        except httpx.TransportError as exc:
            problem, transient = f"{service}: {transport_problem(exc)}", True
        else:
            if response.status_code < 400:
                try:
                    return response.json()
                except ValueError:
                    raise error(f"{service}: jawaban bukan JSON yang valid", transient=False) from None
            transient = response.status_code in RETRYABLE_STATUS
            problem = f"{service}: HTTP {response.status_code}"
        if not transient or attempt >= retries:
            raise error(problem, transient=transient)
        time.sleep(backoff * (2**attempt))
        attempt += 1
