"""The local server's echo log-probabilities against a direct in-process computation, and the
probe against both our server and llama-cpp-python's own (shifted) echo."""

from __future__ import annotations

import asyncio
import json
import urllib.error
import urllib.request
from types import SimpleNamespace

import numpy as np
import pytest
from smol_slm_eval.errors import EndpointRefusedError
from smol_slm_eval.loglik_client import continuation_logliks, probe

from tests.support.llama_direct import direct_llama, direct_logits, direct_logprobs

pytestmark = pytest.mark.integration

CONTEXT = "Question: Which of these is a gas at room temperature?\nAnswer:"
CHOICES = [" ice", " steam", " a rock", " liquid water"]


@pytest.fixture(scope="module")
def llama():
    """A direct, separate in-process copy of the model the server runs."""
    from smol_envs_core.server.serve import N_CTX, model_path

    return direct_llama(model_path(), n_ctx=N_CTX)



def post(base_url: str, body: dict) -> dict:
    request = urllib.request.Request(f"{base_url}/completions", data=json.dumps(body).encode(),
                                     headers={"content-type": "application/json"})
    with urllib.request.urlopen(request, timeout=120) as reply:
        return json.load(reply)


def test_server_echo_equals_direct_computation(local_model_base_url, local_model_name, llama):
    prompts = [CONTEXT + c for c in CHOICES]
    reply = post(local_model_base_url, {"model": local_model_name, "prompt": prompts,
                                        "echo": True, "logprobs": 1, "max_tokens": 1,
                                        "temperature": 0})
    assert len(reply["choices"]) == 4
    for choice, prompt in zip(sorted(reply["choices"], key=lambda c: c["index"]), prompts,
                              strict=True):
        logprobs = choice["logprobs"]
        tokens, direct = direct_logprobs(llama, prompt)
        echoed = logprobs["token_logprobs"][: len(tokens)]
        assert echoed[0] is None  # SmolLM2 adds no BOS: nothing conditions the first token
        np.testing.assert_array_equal(echoed[1:], direct)  # both evaluate afresh
        assert "".join(logprobs["tokens"][: len(tokens)]) == prompt
        assert logprobs["text_offset"][len(tokens)] == len(prompt)  # the generated token
        assert choice["text"].startswith(prompt)


def echo_values(base_url: str, model: str, prompts: list[str]) -> dict[str, list]:
    """{prompt: its echoed token log-probabilities} from one request."""
    reply = post(base_url, {"model": model, "prompt": prompts, "echo": True, "logprobs": 1,
                            "max_tokens": 1, "temperature": 0})
    by_index = sorted(reply["choices"], key=lambda c: c["index"])
    return {p: c["logprobs"]["token_logprobs"] for p, c in zip(prompts, by_index, strict=True)}


def test_echo_logprobs_do_not_depend_on_request_history(local_model_base_url,
                                                        local_model_name):
    """One row's four prompts scored in several orders, after requests that share their prefix
    (the case where cache reuse gave 0.12 nats once): every number is bit-identical."""
    prompts = [CONTEXT + c for c in CHOICES]
    other = "Question: Which of these is a liquid at room temperature?\nAnswer:"
    orders = [
        [prompts],                                    # alone, in order
        [[other + " oil"], list(reversed(prompts))],  # after a shared-prefix request, reversed
        [[CONTEXT]] + [[p] for p in prompts[::-1]],  # one prompt per request, the context first
        [[CONTEXT + " steam and ice"], prompts[2:] + prompts[:2]],
    ]
    seen = []
    for order in orders:
        values: dict[str, list] = {}
        for request in order:
            values.update(echo_values(local_model_base_url, local_model_name, request))
        seen.append({p: values[p] for p in prompts})
    for later in seen[1:]:
        assert later == seen[0]  # exact equality, not a tolerance


def test_greedy_generation_does_not_depend_on_request_history(local_model_base_url,
                                                              local_model_name):
    body = {"model": local_model_name, "prompt": CONTEXT, "max_tokens": 12, "temperature": 0,
            "logprobs": 1}
    first = post(local_model_base_url, body)["choices"][0]
    post(local_model_base_url, {**body, "prompt": CONTEXT + " steam, because"})
    post(local_model_base_url, {**body, "prompt": CONTEXT[:20]})
    again = post(local_model_base_url, body)["choices"][0]
    assert again["text"] == first["text"]
    assert again["logprobs"]["token_logprobs"] == first["logprobs"]["token_logprobs"]


def test_server_refuses_max_tokens_zero(local_model_base_url, local_model_name):
    with pytest.raises(urllib.error.HTTPError) as caught:
        post(local_model_base_url, {"model": local_model_name, "prompt": CONTEXT, "echo": True,
                                    "logprobs": 1, "max_tokens": 0})
    assert caught.value.code == 400


def test_client_sums_match_direct_continuation_logprobs(local_model_base_url, local_model_name,
                                                        llama):
    from openai import AsyncOpenAI

    client = AsyncOpenAI(base_url=local_model_base_url, api_key="EMPTY")
    logliks = asyncio.run(continuation_logliks(client, local_model_name, CONTEXT, CHOICES))
    context_tokens = len(llama.tokenize(CONTEXT.encode(), add_bos=True, special=True))
    for value, choice in zip(logliks, CHOICES, strict=True):
        _, direct = direct_logprobs(llama, CONTEXT + choice)
        assert value == pytest.approx(sum(direct[context_tokens - 1:]), abs=5e-3)


def test_probe_accepts_our_server(local_model_base_url, local_model_name):
    from openai import AsyncOpenAI

    client = AsyncOpenAI(base_url=local_model_base_url, api_key="EMPTY")
    asyncio.run(probe(client, local_model_name))


class StockEcho:
    """An OpenAI-like client over llama-cpp-python's own create_completion (its echo path)."""

    def __init__(self, llama):
        self.completions = SimpleNamespace(create=self.create)
        self.base_url = "in-process://llama-cpp-python"
        self.llama = llama

    async def create(self, model, prompt, extra_body=None, **kwargs):
        # extra_body: fields a stock server does not know, which it ignores.
        prompts = [prompt] if isinstance(prompt, str) else prompt
        choices = []
        for index, text in enumerate(prompts):
            self.llama.reset()
            out = self.llama.create_completion(text, **kwargs)["choices"][0]
            logprobs = SimpleNamespace(**out["logprobs"])
            choices.append(SimpleNamespace(index=index, text=out["text"], logprobs=logprobs))
        return SimpleNamespace(choices=choices)


def test_probe_refuses_llama_cpp_python_stock_echo(llama):
    with pytest.raises(EndpointRefusedError, match="disagree"):
        asyncio.run(probe(StockEcho(llama), "SmolLM2-135M-Instruct"))


def question_tokens(llama, task: str, count: int) -> list[list[list[int]]]:
    """The token lists of the first `count` questions of `task` (one list per choice)."""
    from smol_envs_core.server.loglik import prompt_tokens
    from smol_slm_eval.data import load_rows
    from smol_slm_eval.prompts import mc_request

    out = []
    for row in load_rows(task)[:count]:
        context, continuations, _, _ = mc_request(task, row, "lm_eval")
        out.append([prompt_tokens(llama, context + c) for c in continuations])
    return out


def test_shared_prefix_logits_are_bit_identical_to_fresh_ones(llama):
    """Every row of every choice (the generated token's row too) of real questions, ARC's
    one-token answers included, equals a fresh evaluation of that choice alone."""
    from smol_envs_core.server.loglik import prefix_reuse_is_exact, prompt_logits, shared_prefix

    assert prefix_reuse_is_exact(llama)  # SmolLM2: plain attention
    questions = question_tokens(llama, "arc_easy", 14) + question_tokens(llama, "hellaswag", 2)
    assert all(shared_prefix(q, llama.n_batch) > 0 for q in questions)  # the saving is real
    for question in questions:
        for tokens, rows in zip(question, prompt_logits(llama, question), strict=True):
            np.testing.assert_array_equal(rows, direct_logits(llama, tokens))


def test_a_one_token_step_is_why_each_choice_keeps_two_tokens(llama, monkeypatch):
    """Negative control for MIN_OWN_TOKENS: sharing all but one token changes some logits of
    ARC-Easy's first four questions (llama.cpp's one-token kernels)."""
    from smol_envs_core.server import loglik

    monkeypatch.setattr(loglik, "MIN_OWN_TOKENS", 1)
    differs = False
    for question in question_tokens(llama, "arc_easy", 4):
        for tokens, rows in zip(question, loglik.prompt_logits(llama, question), strict=True):
            differs |= not np.array_equal(rows, direct_logits(llama, tokens))
    assert differs


def test_row_normalisers_give_the_full_log_softmax_bit_for_bit(llama):
    """The server reads each log-probability as (l - m) - z from per-row normalisers instead of
    a (len, n_vocab) float64 log-softmax: every entry of every row equals the full matrix's,
    also when a question's shared prefix rows were normalised once for all its choices."""
    from smol_envs_core.server.loglik import logprob_at, normalisers, prompt_rows

    question = question_tokens(llama, "hellaswag", 1)[0]
    for tokens, (logits, (m, z)) in zip(question, prompt_rows(llama, question), strict=True):
        shifted = logits.astype(np.float64) - logits.max(axis=1, keepdims=True)
        full = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
        every = np.arange(logits.shape[1])
        for row in range(len(tokens)):
            np.testing.assert_array_equal(logprob_at(logits, m, z, row, every), full[row])
        np.testing.assert_array_equal(np.stack(normalisers(logits)), np.stack([m, z]))
