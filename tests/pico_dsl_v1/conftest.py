"""Fixtures of the pico-dsl-v1 tests: the packaged benchmark rows and a scripted endpoint."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

REPO = Path(__file__).resolve().parents[2]
BENCHMARK = REPO / "data" / "pico_dsl_v1_benchmark.jsonl"
MANIFEST = REPO / "data" / "pico_dsl_v1_benchmark.manifest.json"


@pytest.fixture(scope="session")
def benchmark_rows() -> list[dict[str, Any]]:
    """The committed benchmark, read from data/ (not through the package)."""
    return [json.loads(line) for line in BENCHMARK.read_text().splitlines() if line.strip()]


def chat_completion(content: str) -> dict[str, Any]:
    """An OpenAI chat.completion body with one assistant message."""
    return {
        "id": "chatcmpl-test",
        "object": "chat.completion",
        "created": 0,
        "model": "scripted",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content},
                "finish_reason": "stop",
            }
        ],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
    }


class ScriptedEndpoint:
    """An OpenAI-compatible chat endpoint (httpx transport) whose reply is computed per request.

    `reply(user_text) -> str` decides the answer; every request is counted.
    """

    def __init__(self, reply: Callable[[str], str]) -> None:
        self.reply = reply
        self.requests = 0

    def handler(self, request: httpx.Request) -> httpx.Response:
        self.requests += 1
        body = json.loads(request.content)
        user = next(m for m in reversed(body["messages"]) if m["role"] == "user")
        content = user["content"]
        if isinstance(content, list):
            content = "".join(part.get("text", "") for part in content)
        return httpx.Response(200, json=chat_completion(self.reply(content)))

    def client(self) -> Any:
        """A verifiers chat client talking to this endpoint."""
        from openai import AsyncOpenAI
        from verifiers.legacy.clients import OpenAIChatCompletionsClient

        http = httpx.AsyncClient(transport=httpx.MockTransport(self.handler))
        raw = AsyncOpenAI(base_url="http://scripted.test/v1", api_key="x", http_client=http)
        return OpenAIChatCompletionsClient(raw)
