"""Log-likelihood requests that name the first character they read (`echo_logprobs_from`): the
local server computes logits only at the rows those tokens are read from (`loglik.read_rows`,
`output_rows.READ_ROWS`), and each read log-probability is the same float as in the full
computation (SmolLM2), in process and through the real server, with smol-slm-eval's client and
its probe. Gemma 3 (sliding window) ignores the field: there a row computed among a few output
rows can differ from the full computation's, shown here too."""

from __future__ import annotations

import asyncio

import httpx
import numpy as np
import pytest
from smol_envs_core.server import loglik, models, output_rows
from smol_envs_core.server.serve import N_CTX

from tests.support.llama_direct import direct_llama

CONTEXT = ("The kettle was left on the stove for an hour. Question: Which of these is a gas at "
           "room temperature?\nAnswer:")
CHOICES = [" ice", " steam", " a rock", " liquid water"]
SERVED = {"smollm2-135m": "local_model_base_url", "gemma-3-270m": "gemma_base_url"}


def layout(texts: list[str], lead: int = 0) -> loglik.EchoLayout:
    offsets, at = [], 0
    for index, text in enumerate(texts):
        offsets.append(at)
        at += len(text) if index >= lead else 0
    return loglik.EchoLayout(list(range(len(texts))), lead, texts, offsets)


@pytest.mark.unit
@pytest.mark.parametrize(
    ("texts", "lead", "start", "expected"),
    [
        (["Answer", ":", " ice"], 0, 7, [2]),  # the continuation's token only
        (["Answer", ":", " ice"], 0, None, [0, 1, 2]),  # no field: every echoed token
        (["", "Answer", ":", " ice"], 1, 7, [3]),  # a BOS without text is never echoed
        (["Answer", ": i", "ce"], 0, 8, [1, 2]),  # a token straddling the start counts
        (["Answer", ":", " ice"], 0, 0, [0, 1, 2]),
        (["Answer", ":", " ice"], 0, 11, []),  # past the end: only the generated token
    ],
)
def test_read_token_indices(texts, lead, start, expected):
    assert loglik.read_token_indices(layout(texts, lead), start) == expected


@pytest.mark.unit
def test_rows_read_are_the_predecessors_and_the_last():
    echo = layout(["Answer", ":", " a", " rock"])
    assert loglik.rows_read(echo, [2, 3]) == [1, 2, 3]
    assert loglik.rows_read(echo, [0]) == [3]  # token 0 has no row before it
    assert loglik.rows_read(echo, []) == [3]


@pytest.mark.unit
@pytest.mark.parametrize("value", [-1, 1.5, "7", True, [7], [7, None]])
def test_a_malformed_start_is_refused(value):
    with pytest.raises(ValueError, match="echo_logprobs_from"):
        loglik.read_from_field({"echo_logprobs_from": value}, 3)


@pytest.mark.unit
def test_start_fields_per_prompt():
    assert loglik.read_from_field({}, 2) == [None, None]
    assert loglik.read_from_field({"echo_logprobs_from": 5}, 2) == [5, 5]
    assert loglik.read_from_field({"echo_logprobs_from": [5, 0]}, 2) == [5, 0]


@pytest.fixture(scope="module", params=list(SERVED))
def llama(request):
    """A model loaded as the server loads it (logits_all), with the patched eval."""
    from llama_cpp import Llama

    output_rows.selective_rows(Llama)
    llama = direct_llama(models.get(request.param).locate(), n_ctx=N_CTX)
    llama.key = request.param
    return llama


def _question(llama) -> tuple[list[list[int]], list[list[int]]]:
    """The choices' token lists and, per list, the rows its continuation is read from."""
    layouts = [loglik.echo_layout(llama, CONTEXT + choice) for choice in CHOICES]
    reads = [loglik.rows_read(echo, loglik.read_token_indices(echo, len(CONTEXT)))
             for echo in layouts]
    return [echo.tokens for echo in layouts], reads


@pytest.mark.integration
@pytest.mark.parametrize("llama", ["smollm2-135m"], indirect=True)
def test_read_rows_are_bit_identical_to_every_rows_computation(llama):
    """On the shared-prefix path (a question's choices)."""
    token_lists, reads = _question(llama)
    full = loglik.read_rows(llama, token_lists)
    read = loglik.read_rows(llama, token_lists, reads)
    for every, some, positions in zip(full, read, reads, strict=True):
        assert list(some.positions) == positions and 2 <= len(positions) < len(every.positions)
        np.testing.assert_array_equal(some.logits, every.logits[positions])
        np.testing.assert_array_equal(some.m, every.m[positions])
        np.testing.assert_array_equal(some.z, every.z[positions])


@pytest.mark.integration
@pytest.mark.parametrize("llama", ["smollm2-135m"], indirect=True)
def test_only_the_read_rows_are_projected_across_batches(llama, monkeypatch):
    """A prompt longer than one batch of the eval loop (made 48 tokens here, 512 in the server,
    to keep the test short): only the read rows and each batch's last are written (the others
    stay NaN), and they equal the full computation's bit for bit."""
    monkeypatch.setattr(llama, "n_batch", 48)
    tokens = llama.tokenize(("The quick brown fox jumps over the lazy dog. " * 10).encode(),
                            add_bos=True)[: llama.n_batch + 40]
    positions = [3, llama.n_batch - 5, llama.n_batch + 10, len(tokens) - 1]
    (every,) = loglik.read_rows(llama, [tokens])
    llama.scores[: len(tokens)] = np.nan
    (some,) = loglik.read_rows(llama, [tokens], [positions])
    written = np.flatnonzero(~np.isnan(llama.scores[: len(tokens)]).any(axis=1))
    assert list(written) == sorted({*positions, llama.n_batch - 1})
    np.testing.assert_array_equal(some.logits, every.logits[positions])


@pytest.mark.integration
@pytest.mark.parametrize("llama", ["gemma-3-270m"], indirect=True)
def test_why_gemma_ignores_the_field(llama):
    """Gemma 3: position 58 of an 88-token prompt computed alone, or among 4-7 output rows,
    differs from the full computation's (0.013 in a logit measured); among 8 rows it agrees
    (ggml's kernels take paths that depend on a product's row count: `loglik` module doc)."""
    tokens = llama.tokenize(("The quick brown fox jumps over the lazy dog. " * 10).encode(),
                            add_bos=True)[:88]
    (every,) = loglik.read_rows(llama, [tokens])
    (alone,) = loglik.read_rows(llama, [tokens], [[58]])
    (among,) = loglik.read_rows(llama, [tokens], [range(51, 59)])
    assert not np.array_equal(alone.logits[0], every.logits[58])
    np.testing.assert_array_equal(among.logits, every.logits[51:59])
    assert not loglik.prefix_reuse_is_exact(llama)


def _post(base_url: str, body: dict) -> dict:
    reply = httpx.post(f"{base_url}/completions", json=body, timeout=300)
    reply.raise_for_status()
    return reply.json()


@pytest.mark.integration
def test_server_echo_with_a_start_equals_the_full_echo_where_read(llama, request):
    """Through the real server: the same tokens, offsets and generated token; on SmolLM2 every
    token from the start on has the same log-probability and top alternatives, bit for bit, the
    earlier ones null; Gemma ignores the field (the full echo). smol-slm-eval's client sums
    (which send the field) equal the full echo's, and its probe accepts the server."""
    from openai import AsyncOpenAI
    from smol_slm_eval.loglik_client import continuation_logliks, probe

    base_url = request.getfixturevalue(SERVED[llama.key])
    model = models.get(llama.key).served_name
    prompts = [CONTEXT + c for c in CHOICES]
    body = {"model": model, "prompt": prompts, "echo": True, "logprobs": 3, "max_tokens": 1,
            "temperature": 0}
    full = _post(base_url, body)["choices"]
    read = _post(base_url, {**body, "echo_logprobs_from": len(CONTEXT)})["choices"]
    sums = []
    for every, some, prompt in zip(full, read, prompts, strict=True):
        assert some["text"] == every["text"]
        a, b = every["logprobs"], some["logprobs"]
        assert (b["tokens"], b["text_offset"]) == (a["tokens"], a["text_offset"])
        if llama.key == "gemma-3-270m":
            assert b == a
        else:
            first = next(i for i, v in enumerate(b["token_logprobs"]) if v is not None)
            assert b["text_offset"][first] <= len(CONTEXT) < b["text_offset"][first + 1]
            assert b["token_logprobs"][:first] == b["top_logprobs"][:first] == [None] * first
            assert b["token_logprobs"][first:] == a["token_logprobs"][first:]
            assert b["top_logprobs"][first:] == a["top_logprobs"][first:]
        sums.append(sum(value for offset, token, value in zip(
            a["text_offset"], a["tokens"], a["token_logprobs"], strict=True)
            if offset + max(1, len(token)) > len(CONTEXT) and offset < len(prompt)))
    client = AsyncOpenAI(base_url=base_url, api_key="EMPTY")
    assert asyncio.run(continuation_logliks(client, model, CONTEXT, CHOICES)) == sums
    asyncio.run(probe(AsyncOpenAI(base_url=base_url, api_key="EMPTY"), model))
