"""The verifiers environment: arguments, rubric wiring, gold answers, empty responses."""

from __future__ import annotations

import asyncio
import inspect
from collections import Counter

import httpx
import openai
import pytest
import verifiers as vf
from pico_dsl_v1 import load_environment
from pico_dsl_v1.env import build_rubric, rollout_state
from pico_dsl_v1.metrics import METRIC_NAMES
from smol_envs_core.adapters.markers import END_OF_TURN_MARKERS
from smol_envs_core.errors import InfrastructureError

from .conftest import ScriptedEndpoint

pytestmark = pytest.mark.unit


@pytest.fixture(scope="module")
def env() -> vf.Environment:
    return load_environment()


def test_train_split_never_shares_a_prompt_with_the_benchmark(env: vf.Environment) -> None:
    train, evaluation = env.get_dataset(), env.get_eval_dataset()
    assert len(train) == len(evaluation) == 480
    assert not set(train["question"]) & set(evaluation["question"])
    assert all(i["id"].startswith("gen-") for i in train["info"])
    generated = load_environment(dataset_mode="generated", num_examples=60)
    assert not set(generated.get_dataset()["question"]) & set(
        generated.get_eval_dataset()["question"]
    )
    cells = Counter((i["slice"], i["complexity_level"]) for i in evaluation["info"])
    assert len(cells) == 24 and set(cells.values()) == {20}


def test_the_default_is_every_row_of_the_selection() -> None:
    """The design card's `-a '{"slice":"repeat"}'` needs no num_examples: 80 rows."""
    repeat = load_environment(slice="repeat").get_eval_dataset()
    assert len(repeat) == 80 and {i["slice"] for i in repeat["info"]} == {"repeat"}
    assert len(load_environment(slice="repeat", num_examples=-1).get_eval_dataset()) == 80


def test_mixed_prefix_is_balanced() -> None:
    env = load_environment(num_examples=12)
    slices = Counter(i["slice"] for i in env.get_eval_dataset()["info"])
    assert set(slices.values()) == {2} and len(slices) == 6


def test_single_slice_round_robins_levels() -> None:
    env = load_environment(num_examples=8, slice="repeat")
    infos = env.get_eval_dataset()["info"]
    assert {i["slice"] for i in infos} == {"repeat"}
    assert Counter(i["complexity_level"] for i in infos) == {"L1": 2, "L2": 2, "L3": 2, "L4": 2}


@pytest.mark.parametrize(
    ("kwargs", "names"),
    [
        ({"slice": "bogus"}, "copy_case"),
        ({"dataset_mode": "random"}, "fixed, generated"),
        ({"dataset_mode": "generated", "difficulty": "extreme"}, "tiny, easy"),
        ({"tokenizer": "gpt2-ish"}, "auto, none"),
        ({"num_examples": 481}, "1-480"),
        ({"num_examples": 81, "slice": "repeat"}, "1-80 for slice 'repeat'"),
        ({"num_examples": 81, "slice": "deletion"}, "1-80"),
        ({"difficulty": "hard"}, "generated"),
    ],
)
def test_bad_arguments_raise_value_error_naming_valid_values(kwargs: dict, names: str) -> None:
    with pytest.raises(ValueError, match=names):
        load_environment(**kwargs)


def test_generated_mode_offline_with_tokens_recorded() -> None:
    env = load_environment(dataset_mode="generated", difficulty="tape34", num_examples=12, seed=5)
    infos = env.get_eval_dataset()["info"]
    assert len(infos) == 12 and {i["complexity_level"] for i in infos} == {"L3"}
    assert all(isinstance(i["token_count"], int) and i["token_count"] > 0 for i in infos)
    assert {i["tokenizer"] for i in infos} == {"o200k_base"}
    again = load_environment(dataset_mode="generated", difficulty="medium", num_examples=12, seed=5)
    assert again.get_eval_dataset()["answer"] == env.get_eval_dataset()["answer"]


def test_generated_mode_without_tokenizer() -> None:
    env = load_environment(dataset_mode="generated", tokenizer="none", num_examples=6)
    infos = env.get_eval_dataset()["info"]
    assert {i["tokenizer"] for i in infos} == {"none"}
    assert all(i["token_count"] is None for i in infos)


def test_rubric_has_one_headline_reward() -> None:
    rubric = build_rubric()
    weights = dict(zip(rubric._get_reward_func_names(), rubric.weights, strict=True))
    assert weights.pop("exact_match") == 1.0
    assert set(weights) == {*METRIC_NAMES, "empty_response"} - {"exact_match"}
    assert all(w == 0.0 for w in weights.values())
    for func in rubric._get_reward_funcs():
        assert func.__doc__ and "state" in inspect.signature(func).parameters


def test_every_gold_answer_scores_one_through_the_real_rubric(env: vf.Environment) -> None:
    records = env.get_eval_dataset().to_list()
    states = [
        rollout_state(r, i, f"<answer>\n{r['answer']}\n</answer>") for i, r in enumerate(records)
    ]
    asyncio.run(env.rubric.score_group(states))
    for state in states:
        assert state["reward"] == 1.0, state["info"]["id"]
        assert all(state["metrics"][name] == 1.0 for name in METRIC_NAMES)
        assert state["metrics"]["empty_response"] == 0.0


def test_parse_once_per_rollout(env: vf.Environment, monkeypatch: pytest.MonkeyPatch) -> None:
    import pico_dsl_v1.scorer as env_module

    calls = Counter()
    real = env_module.parse_answer

    def counting(text: str | None):
        calls["parse"] += 1
        return real(text)

    monkeypatch.setattr(env_module, "parse_answer", counting)
    record = env.get_eval_dataset().to_list()[0]
    state = rollout_state(record, 0, "no tags here")
    asyncio.run(env.rubric.score_group([state]))
    assert calls["parse"] == 1
    assert state["pico_dsl_v1_parse_reason"] == "no answer tag"


def test_scripted_rollouts_and_empty_answers_are_kept_not_retried() -> None:
    """An empty model text is a model failure: scored 0 once, flagged, never retried."""
    env = load_environment(num_examples=6)
    records = env.get_eval_dataset().to_list()
    gold = {r["question"]: r["answer"] for r in records}
    empty_for = {records[1]["question"], records[4]["question"]}

    def reply(question: str) -> str:
        return "" if question in empty_for else f"<answer>\n{gold[question]}\n</answer>"

    endpoint = ScriptedEndpoint(reply)
    results = asyncio.run(
        env.evaluate(endpoint.client(), "scripted", num_examples=6, max_retries=3)
    )
    outputs = results["outputs"]
    assert endpoint.requests == 6  # no retry of the two empty answers
    empties = [o for o in outputs if o["metrics"]["empty_response"] == 1.0]
    assert len(empties) == 2
    assert all(o["reward"] == 0.0 and o["error"] is None for o in empties)
    full = [o for o in outputs if o["metrics"]["empty_response"] == 0.0]
    assert len(full) == 4 and all(o["reward"] == 1.0 for o in full)


@pytest.mark.parametrize("marker", list(END_OF_TURN_MARKERS))
def test_an_end_of_turn_marker_after_the_answer_does_not_cost_the_score(
    env: vf.Environment, marker: str
) -> None:
    record = env.get_eval_dataset().to_list()[0]
    states = [
        rollout_state(record, 0, f"<answer>\n{record['answer']}\n</answer>{marker}"),
        rollout_state(record, 1, f"<answer>\n{record['answer']}\n</answer>\n{marker}\n"),
        rollout_state(record, 2, f"<answer>\n{record['answer']}\n</answer>{marker}tail"),
    ]
    asyncio.run(env.rubric.score_group(states))
    assert [s["reward"] for s in states] == [1.0, 1.0, 0.0]  # only at the very end
    assert states[2]["pico_dsl_v1_parse_reason"] == "text after answer block"


def test_a_failed_model_call_stops_the_run_instead_of_scoring_zero(env: vf.Environment) -> None:
    """The endpoint answered HTTP 500 after retries: InfrastructureError, never a reward of 0."""
    request = httpx.Request("POST", "http://scripted.test/v1/chat/completions")
    crash = openai.InternalServerError(
        "model crashed", response=httpx.Response(500, request=request), body=None
    )
    error = vf.ModelError("model call failed")
    error.__cause__ = crash
    state = rollout_state(env.get_eval_dataset().to_list()[0], 0, "")
    state["error"] = error
    with pytest.raises(InfrastructureError, match="model endpoint http://scripted.test/v1"):
        asyncio.run(env.rubric.score_group([state]))
    assert state.get("reward") is None
