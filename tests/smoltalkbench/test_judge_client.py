"""The judge client against real HTTP servers: a scripted one for failures, the local SmolLM2."""

import asyncio
import json
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from smoltalkbench import judge
from smoltalkbench.judge_client import TOP_LOGPROBS, JudgeClient, JudgeConfig

pytestmark = pytest.mark.integration

MESSAGES = [{"role": "user", "content": "Which is better, m or M?"}]


def completion(logprobs):
    return {
        "id": "x",
        "object": "chat.completion",
        "created": 0,
        "model": "judge",
        "choices": [
            {
                "index": 0,
                "finish_reason": "length",
                "message": {"role": "assistant", "content": "M"},
                "logprobs": logprobs,
            }
        ],
    }


TOP6 = {
    "content": [
        {
            "token": "M",
            "logprob": -0.5,
            "bytes": None,
            "top_logprobs": [
                {"token": t, "logprob": lp, "bytes": None}
                for t, lp in [
                    ("M", -0.5),
                    (" m", -1.5),
                    ("The", -2.0),
                    ("I", -3.0),
                    ("A", -4.0),
                    ("m", -9.0),
                ]
            ],
        }
    ]
}


class Scripted:
    """A real HTTP server answering chat completions from a list of (status, body) replies."""

    def __init__(self, replies):
        self.replies, self.requests = list(replies), []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802
                outer.requests.append(
                    json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                )
                status, body = outer.replies.pop(0) if len(outer.replies) > 1 else outer.replies[0]
                payload = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def close(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def scripted():
    servers = []

    def make(replies):
        servers.append(Scripted(replies))
        return servers[-1]

    yield make
    for s in servers:
        s.close()


def client(url, retries=3, key_var=None):
    return JudgeClient(
        JudgeConfig(
            model="judge",
            base_url=url,
            api_key_var=key_var,
            max_retries=retries,
            backoff_s=0.01,
            timeout_s=5,
        )
    )


ERROR = {"error": {"message": "busy", "type": "server_error"}}


async def test_transient_errors_are_retried_then_succeed(scripted):
    server = scripted([(503, ERROR), (500, ERROR), (200, completion(TOP6))])
    reply = await client(server.url).top_logprobs(MESSAGES)
    assert reply.error is None and reply.attempts == 3
    # llama.cpp's extra sampled-token entry is dropped: the top 5 only, best first.
    top, error = judge.clean_top_logprobs(reply.top_logprobs)
    assert error is None and [t for t, _ in top] == ["M", " m", "The", "I", "A"]
    sent = server.requests[-1]
    assert (sent["max_tokens"], sent["logprobs"], sent["top_logprobs"]) == (1, True, TOP_LOGPROBS)


def test_one_client_judges_again_from_a_second_event_loop(scripted):
    # Synchronous trainers score each batch in a fresh asyncio.run; the client must follow.
    # Three calls through one slot make the semaphore wait, which binds it to its loop.
    server = scripted([(200, completion(TOP6))])
    judge = JudgeClient(JudgeConfig(model="judge", base_url=server.url, api_key_var=None,
                                    max_concurrent=1, timeout_s=5))

    async def batch():
        return await asyncio.gather(*(judge.top_logprobs(MESSAGES) for _ in range(3)))

    first, second = asyncio.run(batch()), asyncio.run(batch())
    assert all(reply.error is None for reply in first + second), first + second
    assert second[0].top_logprobs == first[0].top_logprobs and len(server.requests) == 6


def test_a_retry_backoff_does_not_hold_the_concurrency_slot(scripted):
    """One slot; sample A fails once (503) and backs off 2 s; sample B, sent just after A, is
    answered during A's backoff (the server sees A, B, A), not after A's retry (A, A, B)."""
    server = scripted([(503, ERROR), (200, completion(TOP6))])
    judge = JudgeClient(JudgeConfig(model="judge", base_url=server.url, api_key_var=None,
                                    max_concurrent=1, backoff_s=2.0, timeout_s=5))
    first = [{"role": "user", "content": "A"}]
    second = [{"role": "user", "content": "B"}]

    async def both():
        a = asyncio.create_task(judge.top_logprobs(first))
        await asyncio.sleep(0.2)  # A has its slot (and its 503) first
        return await asyncio.gather(a, judge.top_logprobs(second))

    a, b = asyncio.run(both())
    assert a.error is None and a.attempts == 2 and b.error is None and b.attempts == 1
    assert [r["messages"][0]["content"] for r in server.requests] == ["A", "B", "A"]


async def test_persistent_transient_errors_become_a_recorded_error(scripted):
    server = scripted([(503, ERROR)])
    reply = await client(server.url, retries=2).top_logprobs(MESSAGES)
    assert reply.top_logprobs is None and reply.attempts == 3 and "after 3 tries" in reply.error


async def test_client_errors_are_not_retried(scripted):
    server = scripted([(400, {"error": {"message": "bad request"}})])
    reply = await client(server.url).top_logprobs(MESSAGES)
    assert (
        reply.attempts == 1 and "judge endpoint error" in reply.error and len(server.requests) == 1
    )


async def test_reply_without_logprobs_is_an_error(scripted):
    server = scripted([(200, completion(None))])
    reply = await client(server.url).top_logprobs(MESSAGES)
    assert reply.error == "judge reply has no logprobs" and reply.token == "M"


@pytest.mark.parametrize(
    ("entry", "reason"),
    [
        ({"token": "m", "logprob": None}, "logprob None"),
        ({"token": "m"}, "logprob None"),
        ({"token": "m", "logprob": "NaN"}, "logprob nan"),
        ({"logprob": -0.1}, "token None"),
    ],
)
async def test_malformed_logprobs_from_a_real_server_are_a_judge_error(scripted, entry, reason):
    body = {"content": [{"token": "M", "logprob": -0.5, "top_logprobs": [
        {"token": "M", "logprob": -0.5}, entry]}]}
    server = scripted([(200, completion(body))])
    reply = await client(server.url).top_logprobs(MESSAGES)
    verdict = judge.parse_verdict(reply.top_logprobs, "m")  # no exception
    assert verdict.raw_win_prob is None and reason in verdict.error


async def test_empty_top_logprobs_list_is_a_judge_error(scripted):
    body = {"content": [{"token": "M", "logprob": -0.5, "top_logprobs": []}]}
    reply = await client(scripted([(200, completion(body))]).url).top_logprobs(MESSAGES)
    verdict = judge.parse_verdict(reply.top_logprobs, "m")
    assert verdict.raw_win_prob is None and "no logprobs" in verdict.error


async def test_unreachable_endpoint_is_retried_and_reported():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    reply = await client(f"http://127.0.0.1:{port}/v1", retries=1).top_logprobs(MESSAGES)
    assert reply.attempts == 2 and "APIConnectionError" in reply.error


async def test_missing_key_variable_fails_without_a_call(monkeypatch):
    monkeypatch.delenv("SMOLTALKBENCH_NO_SUCH_KEY", raising=False)
    reply = await client("http://127.0.0.1:9/v1", key_var="SMOLTALKBENCH_NO_SUCH_KEY").top_logprobs(
        MESSAGES
    )
    assert reply.attempts == 0 and "SMOLTALKBENCH_NO_SUCH_KEY is not set" in reply.error


async def test_local_smollm2_serves_identifier_logprobs(local_model_base_url, local_model_name):
    messages, label = judge.build_messages(
        "Why is the sky blue?", "No idea.", "Air scatters blue light."
    )
    c = JudgeClient(
        JudgeConfig(model=local_model_name, base_url=local_model_base_url, api_key_var=None)
    )
    reply = await c.top_logprobs(messages)
    top, error = judge.clean_top_logprobs(reply.top_logprobs)
    assert reply.error is None and error is None and 1 <= len(top) <= TOP_LOGPROBS
    logprobs = [lp for _, lp in top]
    assert logprobs == sorted(logprobs, reverse=True) and all(lp <= 0 for lp in logprobs)
    # Measured: SmolLM2-135M puts at most a few percent on the labels ("M", never "m", and with
    # the fenced prompt of issue 24 often neither in its top 5): below the default floor there
    # is no verdict, and the constrained re-ask decides (test_adversarial). Logprobs do not
    # depend on the sampling temperature, so this is the same on every call.
    verdict = judge.parse_verdict(reply.top_logprobs, label)
    assert verdict.no_verdict and verdict.label_mass < 0.1 and "m" not in [t for t, _ in top]
    again = await c.top_logprobs(messages)
    # The raw list may end with the sampled token (temperature 1): the top 5 are the same.
    assert judge.clean_top_logprobs(again.top_logprobs)[0] == top
