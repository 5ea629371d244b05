"""The local model launcher: request fixing, port checks and the real server's behaviour."""

from __future__ import annotations

import socket

import httpx
import pytest
from smol_envs_core.errors import InfrastructureError

from tests.conftest import _serve_module

serve = _serve_module()


@pytest.mark.unit
@pytest.mark.parametrize(
    "body, expected, why",
    [
        ({"max_completion_tokens": 16}, {"max_tokens": 16}, "vf-eval -t sends this on chat"),
        ({"max_completion_tokens": 16, "max_tokens": 8}, {"max_tokens": 8}, "explicit wins"),
        ({"max_tokens": 8}, {"max_tokens": 8}, "untouched"),
        (
            {"messages": [{"role": "system", "content": [{"type": "text", "text": "a"},
                                                         {"type": "text", "text": "b"}]}]},
            {"messages": [{"role": "system", "content": "ab"}], "repeat_penalty": 1.0},
            "content parts flattened",
        ),
        (
            {"messages": [{"role": "user", "content": "plain"}]},
            {"messages": [{"role": "user", "content": "plain"}], "repeat_penalty": 1.0},
            "string content untouched; no repetition penalty unless asked for",
        ),
        ({"prompt": "a", "repeat_penalty": 1.3}, {"prompt": "a", "repeat_penalty": 1.3},
         "a penalty the caller names is kept"),
        ({"prompt": "a"}, {"prompt": "a", "repeat_penalty": 1.0},
         "llama-cpp-python's default 1.1 would apply even at temperature 0"),
    ],
)
def test_fix_request_body(body, expected, why):
    assert serve.fix_request_body(body) == expected, why


@pytest.mark.integration  # opens a socket
def test_start_refuses_a_port_taken_by_another_program():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        with pytest.raises(InfrastructureError, match="taken by another program"):
            serve.start("127.0.0.1", port, threads=1)


@pytest.mark.integration
def test_server_answers_and_honours_max_completion_tokens(own_model_base_url, local_model_name):
    # A server of its own: llama-cpp-python serves /v1/models, like every endpoint, only
    # between two generations, and on the shared server the other xdist worker's replies (up
    # to 512 tokens, at 0.7 tokens/s beside a busy core: README, Speed) come first. Alone,
    # this test's own 5 tokens bound the wait: well under the 10 s and 60 s below.
    models = httpx.get(f"{own_model_base_url}/models", timeout=10).json()
    assert [m["id"] for m in models["data"]] == [local_model_name]
    reply = httpx.post(
        f"{own_model_base_url}/chat/completions",
        json={
            "model": local_model_name,
            "messages": [{"role": "user", "content": [{"type": "text", "text": "Tell a story."}]}],
            "max_completion_tokens": 5,
            "temperature": 0,
        },
        timeout=60,
    ).json()
    assert 1 <= reply["usage"]["completion_tokens"] <= 5
    assert reply["choices"][0]["finish_reason"] == "length"
