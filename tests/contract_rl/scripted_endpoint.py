"""A scripted OpenAI-compatible chat endpoint on loopback, for driving environments without a model.

`ScriptedEndpoint(answers, judge=None)` serves `POST /v1/chat/completions` (and `GET /v1/models`,
listing its model id) from a thread (so it
outlives any one event loop): for a request whose last user message is a key of `answers`, the
k-th request for that prompt gets `answers[prompt][k % len]`; a request asking for logprobs goes
to `judge(body) -> [(token, logprob)]` (a scripted judge); any other request gets a 500 (an
infrastructure failure). It streams (SSE) when asked to and records every request body, so a
test can check the temperature and sample count the environment passed on.
"""

from __future__ import annotations

import json
import threading
import time
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class ScriptedEndpoint:
    """Context manager serving scripted chat replies at `base_url` (`http://127.0.0.1:P/v1`)."""

    def __init__(self, answers: Mapping[str, Sequence[str]], judge: Callable | None = None,
                 model: str = "scripted") -> None:
        self.judge = judge
        self.answers = {prompt: list(replies) for prompt, replies in answers.items()}
        self.model = model
        self.requests: list[dict[str, Any]] = []
        self._served: dict[str, int] = defaultdict(int)
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def __enter__(self) -> ScriptedEndpoint:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    def reply_for(self, body: dict[str, Any]) -> str | None:
        """The scripted reply for a request body, or None for an unknown prompt."""
        users = [m for m in body.get("messages", []) if m.get("role") == "user"]
        prompt = users[-1]["content"] if users else ""
        if isinstance(prompt, list):
            prompt = "".join(part.get("text", "") for part in prompt)
        replies = self.answers.get(prompt)
        if not replies:
            return None
        with self._lock:
            k = self._served[prompt]
            self._served[prompt] += 1
        return replies[k % len(replies)]

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        endpoint = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:  # quiet
                return

            def do_GET(self) -> None:  # noqa: N802 (http.server's name)
                # OpenAI's list-models route: runs check it lists the requested model id.
                if self.path.rstrip("/") == "/v1/models":
                    self._json({"object": "list", "data": [
                        {"id": endpoint.model, "object": "model", "owned_by": "scripted"}]})
                else:
                    self.send_error(404, "scripted endpoint: no such route")

            def do_POST(self) -> None:  # noqa: N802 (http.server's name)
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                with endpoint._lock:
                    endpoint.requests.append(body)
                if body.get("logprobs") and endpoint.judge is not None:
                    top = endpoint.judge(body)
                    if isinstance(top, dict):  # an HTTP error: {"status": 400, "error": {...}}
                        self._json({"error": top["error"]}, top["status"])
                        return
                    self._json(_completion(endpoint.model, top[0][0], top))
                    return
                reply = endpoint.reply_for(body)
                if reply is None:
                    self.send_error(500, "scripted endpoint: unknown prompt")
                    return
                if body.get("stream"):
                    self._stream(reply)
                else:
                    self._json(_completion(endpoint.model, reply))

            def _json(self, payload: dict[str, Any], status: int = 200) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _stream(self, reply: str) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.end_headers()
                pieces = [reply[i:i + 7] for i in range(0, len(reply), 7)] or [""]
                for k, piece in enumerate(pieces):
                    last = k == len(pieces) - 1
                    chunk = _chunk(endpoint.model, piece, "stop" if last else None)
                    self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
                self.wfile.write(b"data: [DONE]\n\n")
                self.wfile.flush()

        return Handler


def _usage(reply: str) -> dict[str, int]:
    return {"prompt_tokens": 10, "completion_tokens": max(1, len(reply) // 4),
            "total_tokens": 10 + max(1, len(reply) // 4)}


def _completion(model: str, reply: str, top: list | None = None) -> dict[str, Any]:
    choice: dict[str, Any] = {"index": 0, "finish_reason": "stop",
                              "message": {"role": "assistant", "content": reply}}
    if top:
        entries = [{"token": t, "logprob": lp, "bytes": None} for t, lp in top]
        choice["logprobs"] = {"content": [{**entries[0], "top_logprobs": entries}]}
    return {
        "id": "chatcmpl-scripted", "object": "chat.completion", "created": int(time.time()),
        "model": model,
        "choices": [choice],
        "usage": _usage(reply),
    }


def _chunk(model: str, piece: str, finish: str | None) -> dict[str, Any]:
    return {
        "id": "chatcmpl-scripted", "object": "chat.completion.chunk", "created": int(time.time()),
        "model": model,
        "choices": [{"index": 0, "finish_reason": finish,
                     "delta": {"role": "assistant", "content": piece}}],
        **({"usage": _usage(piece)} if finish else {}),
    }
