"""A loopback stub judge for benchmarks: an OpenAI-compatible chat endpoint that answers at once.

Every POST to /v1/chat/completions gets the same one-token reply with valid top-5
log-probabilities (the judge's two identifiers first), so a benchmark measures the caller's
work, not a model's. With STUB_JUDGE_FAIL_EVERY=N, every N-th request gets HTTP 503 instead (a
transient failure the caller retries). Run by `bench_smoltalkbench_judge.py --stub` as

    python -m uvicorn stub_judge:app --app-dir benchmarks --port PORT
"""

from __future__ import annotations

import itertools
import json
import os

TOP = [("M", -0.4), ("m", -1.2), ("The", -3.0), ("I", -4.0), ("A", -5.0)]
REPLY = json.dumps({
    "id": "stub", "object": "chat.completion", "created": 0, "model": "stub-judge",
    "choices": [{
        "index": 0, "finish_reason": "length",
        "message": {"role": "assistant", "content": TOP[0][0]},
        "logprobs": {"content": [{
            "token": TOP[0][0], "logprob": TOP[0][1], "bytes": None,
            "top_logprobs": [{"token": t, "logprob": lp, "bytes": None} for t, lp in TOP],
        }]},
    }],
    "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
}).encode()
BUSY = json.dumps({"error": {"message": "stub busy", "type": "server_error"}}).encode()
FAIL_EVERY = int(os.environ.get("STUB_JUDGE_FAIL_EVERY") or 0)
_counter = itertools.count(1)


async def app(scope, receive, send):
    """The ASGI application: drain the request body, answer REPLY (or 503, see FAIL_EVERY)."""
    if scope["type"] != "http":
        return
    more = True
    while more:
        message = await receive()
        more = message.get("more_body", False)
    failing = FAIL_EVERY and next(_counter) % FAIL_EVERY == 0
    body = BUSY if failing else REPLY
    await send({"type": "http.response.start", "status": 503 if failing else 200,
                "headers": [(b"content-type", b"application/json"),
                            (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})
