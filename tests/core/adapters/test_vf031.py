"""The verifiers 0.3.1 internals `smol_envs_core.adapters.vf031` lists, checked against the
installed version: an upgrade that changes one fails here, not in a run."""

from __future__ import annotations

import asyncio

import pytest
import verifiers as vf
from smol_envs_core.adapters import vf031
from smol_envs_core.adapters.policy import PolicyEnv, TurnMonitorRubric

pytestmark = pytest.mark.unit


def _dataset():
    from datasets import Dataset

    return Dataset.from_list([{"question": "q", "answer": "a"}])


def test_the_pinned_version_is_the_one_checked() -> None:
    assert vf.__version__.startswith("0.3.")
    assert len(vf031.PRIVATE_NAMES) == len(set(vf031.PRIVATE_NAMES)) >= 10


def test_single_turn_env_adds_the_monitor_rubric_that_policy_env_replaces() -> None:
    def reward(completion, **_):
        return 1.0

    plain = vf.SingleTurnEnv(eval_dataset=_dataset(), rubric=vf.Rubric(funcs=[reward]))
    members = plain.rubric.rubrics  # RubricGroup.rubrics
    assert any(isinstance(r, vf031.MultiTurnMonitorRubric) for r in members)
    assert members[0].funcs == [reward] and members[0].weights == [1.0]  # Rubric.funcs/weights
    ours = PolicyEnv(eval_dataset=_dataset(), rubric=vf.Rubric(funcs=[reward]))
    assert not any(isinstance(r, vf031.MultiTurnMonitorRubric) for r in ours.rubric.rubrics)
    assert any(isinstance(r, TurnMonitorRubric) for r in ours.rubric.rubrics)


def test_a_reward_function_that_raises_is_scored_zero_by_verifiers() -> None:
    """Why scoring happens once, before the reward functions: verifiers swallows the error."""
    def broken(completion, **_):
        raise RuntimeError("scoring service down")

    rubric = vf.Rubric(funcs=[broken])
    assert hasattr(vf.Rubric, "_call_individual_reward_func")
    state = vf.State(input={"prompt": [], "answer": "", "info": {}, "example_id": 0})
    state.update(prompt=[], completion=[{"role": "assistant", "content": "x"}], trajectory=[])
    asyncio.run(rubric.score_rollout(state))
    assert state["reward"] == 0.0


def test_model_call_names_and_message_helpers() -> None:
    assert issubclass(vf031.EmptyModelResponseError, Exception)
    response = vf031.synthetic_response("id", 0, "m", "B")
    assert isinstance(response, vf031.Response) and response.message.content == "B"
    assert vf031.content_to_text([{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]
                                 ) == "a b"  # joined by spaces
    assert vf031.content_to_text("plain") == "plain"
    assert vf031.prompt_too_long({"prompt_too_long": True}) is True
    assert vf031.prompt_too_long({}) is False
