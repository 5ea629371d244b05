"""load_environment and the judged rubric through the real verifiers 0.3.1 classes."""

import socket

import pytest
import verifiers as vf
from smol_envs_core.errors import InfrastructureError
from smoltalkbench import data, load_environment
from smoltalkbench.env import METRICS, STATE_KEY, JudgedRubric
from smoltalkbench.errors import ConfigError

from tests.support.ports import closed_port_url

pytestmark = pytest.mark.integration


def test_defaults_load_offline_and_lazily():
    env = load_environment()
    assert env.eval_dataset is None  # nothing fetched yet
    # MultiTurnEnv groups our rubric with its own num_turns monitor.
    (rubric,) = [r for r in env.rubric.rubrics if isinstance(r, JudgedRubric)]
    assert rubric._get_reward_func_names() == [f.__name__ for f in METRICS]
    assert rubric.weights == [1.0] + [0.0] * (len(METRICS) - 1)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"length_penalty_chars": -1}, "length_penalty_chars"),
        ({"judge_max_concurrent": 0}, "judge_max_concurrent"),
        ({"num_examples": 0}, "num_examples"),
    ],
)
def test_bad_arguments_raise(kwargs, match):
    with pytest.raises(ConfigError, match=match):
        load_environment(**kwargs)


def test_fixture_rows_become_single_user_turns():
    env = load_environment(dataset="fixture", num_examples=3)
    rows = env.get_eval_dataset()
    source = data.load_rows("fixture")
    assert len(rows) == 3
    for row, src in zip(rows, source, strict=False):
        assert row["prompt"] == [{"role": "user", "content": src["instruction"]}]
        assert row["answer"] == src["output"]
        assert row["info"]["group"] == src["group"]
        assert row["info"]["reference_chars"] == len(src["output"])


def state(reply, error=None):
    return {
        "prompt": [{"role": "user", "content": "Why is the sky blue?"}],
        "completion": [{"role": "assistant", "content": reply}],
        "answer": "Air scatters blue light.",
        "info": {},
        "error": error,
        "trajectory": [],
        "input": {},
    }


def down_judge(**kwargs):
    return load_environment(
        dataset="fixture", judge_base_url=closed_port_url("/v1"), judge_api_key_var="",
        judge_max_retries=0, **kwargs,
    )


@pytest.mark.parametrize(
    "reply, error, component",
    [
        ("Because of scattering.", None, "judge http://127.0.0.1:"),  # judge down
        ("partial", "model endpoint timed out", "model endpoint: model endpoint timed out"),
    ],
)
async def test_infrastructure_failures_stop_the_run(reply, error, component):
    states = [state(reply, error)]
    with pytest.raises(InfrastructureError, match=component):
        await down_judge().rubric.score_group(states)
    assert "reward" not in states[0] or states[0].get("reward") is None


@pytest.mark.parametrize(
    "reply, error", [("", None), ("", vf.EmptyModelResponseError("no content"))]
)
async def test_an_empty_reply_is_a_model_outcome_without_a_judge_call(reply, error):
    states = [state(reply, error)]
    await down_judge().rubric.score_group(states)  # the judge is down: it is never asked
    assert states[0]["metrics"]["judge_error"] == 0.0
    assert states[0]["reward"] == 0.0 and "empty reply" in states[0][STATE_KEY]["reason"]
    assert states[0]["error"] is None


async def test_a_tolerated_judge_failure_is_counted_not_raised():
    states = [state("Because of scattering.")]
    await down_judge(max_judge_error_rate=0.5).rubric.score_group(states)
    assert states[0]["metrics"]["judge_error"] == 1.0
    assert "Connection refused" in states[0][STATE_KEY]["reason"]


async def test_local_judge_scores_a_rollout(local_model_base_url, local_model_name):
    env = load_environment(
        dataset="fixture",
        judge_base_url=local_model_base_url,
        judge_model=local_model_name,
        judge_api_key_var=None,
        judge_label_bias="tokens",  # SmolLM2 puts ~5% on the labels: the re-ask constrains it
    )
    s = state("Sunlight scatters off air molecules, and blue scatters most. " * 10)
    await env.rubric.score_rollout(s)
    record = s[STATE_KEY]
    assert s["metrics"]["judge_error"] == 0.0 and record["reason"].startswith("judged")
    assert s["metrics"]["reply_chars"] == len(s["completion"][0]["content"].strip())
    assert s["reward"] == s["metrics"]["win_prob"] == record["win_prob"]


def test_an_unreachable_hub_dataset_names_the_offline_alternatives(monkeypatch):
    from smoltalkbench import data
    from smoltalkbench.errors import DataError

    from tests.support.hub import go_offline

    go_offline(monkeypatch)

    with pytest.raises(DataError, match="dataset='fixture'"):
        data.load_rows("HuggingFaceSwarms/NoSuchBenchmark", "gold", "test")


def test_empty_replies_are_scored_once_never_retried():
    """Count the model endpoint's calls: an empty reply is the model's outcome (reward 0, no
    judge call, no error), not a failure that verifiers would retry three times."""
    import asyncio

    from tests.pico_dsl_v1.conftest import ScriptedEndpoint

    endpoint = ScriptedEndpoint(lambda question: "")
    with socket.socket() as silent:  # passes the preflight's connect, never answers a request
        silent.bind(("127.0.0.1", 0))
        silent.listen()
        env = load_environment(  # a judge call would raise: it times out, nothing tolerated
            dataset="fixture", judge_base_url=f"http://127.0.0.1:{silent.getsockname()[1]}/v1",
            judge_api_key_var="", judge_max_retries=0, judge_timeout_s=2)
        results = asyncio.run(env.evaluate(endpoint.client(), "scripted", num_examples=3,
                                           max_retries=3))
    assert endpoint.requests == 3
    outputs = results["outputs"]
    assert len(outputs) == 3
    assert all(o["error"] is None and o["reward"] == 0.0 for o in outputs)
    assert all(o["metrics"]["judge_error"] == 0.0 for o in outputs)


async def test_the_preflight_stops_on_an_unset_judge_key_or_a_dead_judge(monkeypatch):
    """Before any reply is generated (a fresh user waited 85 s of generation for this)."""
    monkeypatch.delenv("SMOLTALKBENCH_TEST_UNSET_KEY", raising=False)
    keyless = load_environment(dataset="fixture", judge_base_url=closed_port_url("/v1"),
                               judge_api_key_var="SMOLTALKBENCH_TEST_UNSET_KEY")
    with pytest.raises(InfrastructureError, match="SMOLTALKBENCH_TEST_UNSET_KEY is not set"):
        await keyless.preflight(None)
    with pytest.raises(InfrastructureError, match=r"judge http://127\.0\.0\.1:\d+/v1: cannot "
                                                  "connect"):
        await down_judge().preflight(None)


async def test_the_preflight_passes_a_reachable_keyless_judge(local_model_base_url):
    env = load_environment(dataset="fixture", judge_base_url=local_model_base_url,
                           judge_api_key_var="")
    await env.preflight(None)
