"""`judge_label_bias: "auto"`: the labels' token ids are read from the judge server's
`/tokenize` instead of asked from the user (vLLM refuses the "tokens" form: it wants ids). On
our llama.cpp server the constrained re-ask under "auto" must be the very request "tokens"
makes: the same top logprobs."""

from __future__ import annotations

import json
import socket

import pytest
from smoltalkbench import data, judge
from smoltalkbench.errors import ConfigError
from smoltalkbench.judge_client import JudgeClient, JudgeConfig, check_judge_options


@pytest.mark.unit
def test_ids_mode_spells_the_openai_form_and_refuses_empty_ids():
    assert judge.ids_mode([76], [68, 3]) == "ids:76;68,3"
    assert judge.label_bias_params(judge.ids_mode([76], [68])) == {
        "logit_bias": {"76": judge.LABEL_BIAS, "68": judge.LABEL_BIAS}}
    for bad in ([], [-1], ["m"], [True]):
        with pytest.raises(ValueError, match="label token ids"):
            judge.ids_mode(bad, [68])


@pytest.mark.unit
def test_auto_is_a_valid_option_and_typos_are_still_refused():
    check_judge_options("auto", 0.5)
    with pytest.raises(ConfigError, match="'auto'"):
        check_judge_options("automatic", 0.5)


def _client(base_url: str, model: str, mode: str) -> JudgeClient:
    return JudgeClient(JudgeConfig(model=model, base_url=base_url, api_key_var=None,
                                   max_concurrent=1, timeout_s=120, label_bias=mode))


@pytest.mark.integration
async def test_auto_without_a_tokenize_route_falls_back_to_the_reminder_reask():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # nothing listens there once closed
    client = _client(f"http://127.0.0.1:{port}/v1", "m", "auto")
    assert await client.label_bias_mode() == "none"


@pytest.mark.integration
async def test_auto_on_our_server_makes_the_same_constrained_reask_as_tokens(
        local_model_base_url, local_model_name):
    auto = _client(local_model_base_url, local_model_name, "auto")
    tokens = _client(local_model_base_url, local_model_name, "tokens")
    mode = await auto.label_bias_mode()
    assert mode.startswith("ids:"), mode
    row = json.loads(data.fixture_path().read_text().splitlines()[0])
    messages = judge.build_prompt(row["instruction"], "Sure.", row["output"]).messages
    replies = [await c.top_logprobs(messages, judge.REASK_TOP_LOGPROBS,
                                    judge.label_bias_params(m), 0.0)
               for c, m in ((auto, mode), (tokens, "tokens"))]
    assert all(r.error is None for r in replies), replies
    assert replies[0].token in judge.IDENTIFIERS
    assert replies[0].token == replies[1].token
    assert replies[0].top_logprobs == replies[1].top_logprobs
