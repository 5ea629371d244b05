"""The local server computes logits at every prompt position only for requests that read them
(`smol_envs_core.server.output_rows`): which requests those are, that the other positions are really
skipped, and that the last position's logits and the greedy replies are bit-identical either
way, on both local models, in process and through the real server."""

from __future__ import annotations

import httpx
import numpy as np
import pytest
from smol_envs_core.server import models, output_rows
from smol_envs_core.server.serve import N_CTX

from tests.support.llama_direct import direct_llama

PROMPT = "The quick brown fox jumps over the lazy dog. " * 12 + "Then it"


@pytest.mark.unit
@pytest.mark.parametrize(
    ("path", "body", "expected"),
    [
        ("/v1/completions", {"prompt": "a", "max_tokens": 4}, False),
        ("/v1/chat/completions", {"messages": [], "max_tokens": 4}, False),
        ("/v1/chat/completions", {"messages": [], "logprobs": False}, False),
        ("/v1/completions", {"prompt": "a", "logprobs": 1}, False),  # generated tokens only
        ("/v1/completions", {"prompt": "a", "logprobs": 1, "echo": True}, True),
        ("/v1/completions", {"prompt": "a", "echo": True}, True),
        ("/v1/chat/completions", {"messages": [], "logprobs": True, "top_logprobs": 5}, False),
        ("/v1/embeddings", {"input": "a"}, True),  # anything else keeps llama-cpp-python's way
        ("/v1/completions", None, True),  # a body that is not JSON
    ],
)
def test_needs_all_rows(path, body, expected):
    assert output_rows.needs_all_rows(path, body) is expected


@pytest.fixture(scope="module", params=["smollm2-135m", "gemma-3-270m"])
def llama(request):
    """A model loaded as the server loads it (logits_all), with the patched eval."""
    from llama_cpp import Llama

    output_rows.selective_rows(Llama)
    return direct_llama(models.get(request.param).locate(), n_ctx=N_CTX)


def _eval(llama, tokens, all_rows: bool) -> np.ndarray:
    llama.reset()
    llama.scores[: len(tokens)] = np.nan  # a row the decode does not write stays NaN
    token = output_rows.ALL_ROWS.set(all_rows)
    try:
        llama.eval(tokens)
    finally:
        output_rows.ALL_ROWS.reset(token)
    return np.array(llama.scores[: len(tokens)])


@pytest.mark.integration
def test_only_the_last_row_is_computed_and_it_is_bit_identical(llama):
    tokens = llama.tokenize(PROMPT.encode(), add_bos=True)
    every = _eval(llama, tokens, all_rows=True)
    last = _eval(llama, tokens, all_rows=False)
    assert not np.isnan(every).any()
    assert np.isnan(last[:-1]).all()  # the other positions were never projected
    assert np.array_equal(last[-1], every[-1])  # bit for bit


@pytest.mark.integration
@pytest.mark.parametrize("logprobs", [None, 3])
def test_greedy_completion_is_bit_identical_in_both_modes(llama, logprobs):
    """The same text, and the same generated-token log-probabilities (top 3 and the chosen
    token's, as llama-cpp-python computes them from `scores`), with every row or the last.
    Fewer tokens with log-probabilities: llama-cpp-python sorts the whole vocabulary in Python
    for each (Gemma: 262k entries)."""
    replies = []
    for all_rows in (True, False):
        token = output_rows.ALL_ROWS.set(all_rows)
        try:
            llama.reset()
            replies.append(llama.create_completion(
                PROMPT, max_tokens=8 if logprobs else 24, temperature=0.0,
                repeat_penalty=1.0, logprobs=logprobs)["choices"][0])
        finally:
            output_rows.ALL_ROWS.reset(token)
    assert replies[0]["text"] and replies[0]["text"] == replies[1]["text"]
    assert replies[0]["logprobs"] == replies[1]["logprobs"]
    if logprobs:
        assert len(replies[0]["logprobs"]["token_logprobs"]) >= 1


@pytest.mark.integration
def test_server_reply_without_logprobs_equals_the_one_with_them(local_model_base_url,
                                                                 local_model_name):
    """A request with generated-token `logprobs` and one without: the same greedy text."""
    body = {"model": local_model_name, "prompt": PROMPT, "max_tokens": 16, "temperature": 0}
    plain = httpx.post(f"{local_model_base_url}/completions", json=body, timeout=300)
    with_logprobs = httpx.post(f"{local_model_base_url}/completions",
                               json={**body, "logprobs": 1}, timeout=300)
    plain.raise_for_status()
    with_logprobs.raise_for_status()
    text = plain.json()["choices"][0]["text"]
    assert text and text == with_logprobs.json()["choices"][0]["text"]
    assert len(with_logprobs.json()["choices"][0]["logprobs"]["token_logprobs"]) >= 1
