"""Classic (verifiers 0.3.1) side of the RL contract: a group of rollouts at temperature 1.0
reaches the model at temperature 1.0 and scores per rollout (gold 1, junk 0), so a trainer's
advantages are not all zero. Driven through `Environment.evaluate_sync`, as vf-eval does."""

from __future__ import annotations

import os
from types import SimpleNamespace

import pytest
from verifiers.types import ClientConfig

from tests.contract_rl.driver import advantages
from tests.contract_rl.scripted_endpoint import ScriptedEndpoint
from tests.contract_rl.specs import SMOLTALK_GOLD, smoltalk_judge

pytestmark = pytest.mark.unit
KEY_VAR = "SMOL_ENVS_SCRIPTED_KEY"


def run_group(make_env, replies_for, judge=None) -> tuple[list[float], list[dict]]:
    """Four rollouts of the first eval row at temperature 1.0; (rewards, model requests).

    `make_env(base_url)` builds the environment once the endpoint (model and judge) is up.
    """
    os.environ.setdefault(KEY_VAR, "scripted")
    with ScriptedEndpoint({}, judge=judge) as endpoint:
        env = make_env(endpoint.base_url)
        row = env.get_eval_dataset()[0]
        endpoint.answers[row["prompt"][-1]["content"]] = replies_for(row)
        out = env.evaluate_sync(
            client=ClientConfig(api_base_url=endpoint.base_url, api_key_var=KEY_VAR,
                                max_retries=0),
            model="scripted", sampling_args={"temperature": 1.0, "max_tokens": 64},
            num_examples=1, rollouts_per_example=4,
        )
        requests = [r for r in endpoint.requests if not r.get("logprobs")]
    return [o["reward"] for o in out["outputs"]], requests


def check(rewards: list[float], requests: list[dict]) -> None:
    assert sorted(rewards) == [0.0, 0.0, 1.0, 1.0]
    assert any(abs(a) > 0 for a in advantages(rewards))
    assert len(requests) == 4 and {r["temperature"] for r in requests} == {1.0}


def test_pico_group_keeps_the_temperature() -> None:
    from pico_dsl_v1 import load_environment

    def gold(row: dict) -> str:
        return "<answer>\n" + row["answer"] + "\n</answer>"

    check(*run_group(lambda url: load_environment(num_examples=1),
                     lambda row: [gold(row), "junk", gold(row), "junk"]))


def test_smoltalkbench_group_keeps_the_temperature() -> None:
    from smoltalkbench import data, load_environment

    first = data.load_rows("fixture")[0]
    judge = smoltalk_judge([SimpleNamespace(data=SimpleNamespace(
        prompt=first["instruction"], reference=first["output"]))])

    def make_env(url: str):
        return load_environment(dataset="fixture", num_examples=1, judge_base_url=url,
                                judge_api_key_var="", judge_model="scripted",
                                judge_max_retries=0)

    check(*run_group(make_env, lambda row: [SMOLTALK_GOLD, "junk"] * 2, judge))
