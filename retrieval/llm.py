"""Chat models that answer in JSON: Ollama ``/api/chat`` with ``format`` set to
a JSON Schema, and OpenAI-compatible ``/v1/chat/completions`` with a
``json_schema`` response format. Used by the LLM reranker and the answer
generators; both get the raw text back so a caller can keep it or repair it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from .http import ServiceError, post_json

PROVIDERS = ("ollama", "openai")


class LlmError(ServiceError):
    """The chat model failed or answered something that is not the JSON asked for."""


@dataclass
class ChatClient:
    provider: str  # "ollama" | "openai"
    url: str
    model: str
    api_key: str = ""
    timeout: float = 60.0
    retries: int = 2

    def __post_init__(self) -> None:
        if self.provider not in PROVIDERS:
            raise LlmError(f"penyedia LLM tidak dikenal: {self.provider!r} ({', '.join(PROVIDERS)})", transient=False)
        if not self.url:
            raise LlmError(f"URL wajib untuk penyedia LLM {self.provider}", transient=False)

    @property
    def service(self) -> str:
        return "Ollama" if self.provider == "ollama" else "OpenAI-compatible"

    def complete_json(self, messages: list[dict[str, str]], schema: dict[str, Any], *, name: str = "reply") -> str:
        """The model's reply text, constrained to ``schema`` where the server
        supports it. Parsing is the caller's (see ``parse_json_object``)."""
        headers = {"Authorization": f"Bearer {self.api_key}"} if self.api_key else {}
        base = self.url.rstrip("/")
        if self.provider == "ollama":
            payload = {
                "model": self.model,
                "messages": messages,
                "stream": False,
                "format": schema,
                "options": {"temperature": 0},
            }
            body = post_json(
                f"{base}/api/chat",
                payload,
                headers=headers,
                timeout=self.timeout,
                retries=self.retries,
                error=LlmError,
                service=self.service,
            )
            content = body.get("message", {}).get("content") if isinstance(body, dict) else None
        else:
            payload = {
                "model": self.model,
                "messages": messages,
                "temperature": 0,
                "response_format": {
                    "type": "json_schema",
                    "json_schema": {"name": name, "schema": schema, "strict": True},
                },
            }
            body = post_json(
                f"{base}/v1/chat/completions",
                payload,
                headers=headers,
                timeout=self.timeout,
                retries=self.retries,
                error=LlmError,
                service=self.service,
            )
            try:
                content = body["choices"][0]["message"]["content"]
            except (KeyError, IndexError, TypeError):
                content = None
        if not isinstance(content, str):
            raise LlmError(f"{self.service}: jawaban tanpa isi pesan", transient=False)
        return content


def parse_json_object(text: str, *, service: str = "LLM") -> dict[str, Any]:
    """The JSON object in a reply; tolerates a fenced code block around it."""
    cleaned = text.strip()
    if cleaned.startswith("```"):
        cleaned = cleaned.strip("`").removeprefix("json").strip()
    try:
        value = json.loads(cleaned)
    except ValueError:
        raise LlmError(f"{service}: jawaban bukan JSON yang valid", transient=False) from None
    if not isinstance(value, dict):
        raise LlmError(f"{service}: jawaban bukan objek JSON", transient=False)
    return value


def chat_client_from_config(config: dict[str, Any] | None) -> ChatClient | None:
    """A client from a settings dict ``{provider, url, model, api_key, timeout}``,
    or None when no provider is configured."""
    if not config or not config.get("provider"):
        return None
    return ChatClient(
        provider=config["provider"],
        url=config.get("url", ""),
        model=config.get("model", ""),
        api_key=config.get("api_key", ""),
        timeout=float(config.get("timeout", 60)),
    )
