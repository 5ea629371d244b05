"""DirectCallRubric gives exactly what verifiers' own scoring path gives, only faster: same
reward, metrics (names, values, order), advantages, on the 480 gold answers and on wrong ones."""

from __future__ import annotations

import asyncio
import copy
import sys
from pathlib import Path

import pytest
import verifiers as vf
from pico_dsl_v1 import load_environment
from pico_dsl_v1.env import rollout_state

pytestmark = pytest.mark.unit
sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "benchmarks"))
from bench_pico_dsl_v1_rubric import completions  # noqa: E402  (the benchmark's six kinds)


def _states(env):
    """Every gold answer, then the five other kinds for the first 80 rows."""
    records = env.get_eval_dataset().to_list()
    golds = [rollout_state(r, i, completions(r["answer"])[0]) for i, r in enumerate(records)]
    others = [
        rollout_state(r, 480 + i * 5 + k, text)
        for i, r in enumerate(records[:80])
        for k, text in enumerate(completions(r["answer"])[1:])
    ]
    return golds + others


def test_pico_scores_equal_verifiers_own_path():
    env = load_environment()
    fast = _states(env)
    slow = copy.deepcopy(fast)
    asyncio.run(env.rubric.score_group(fast))
    # The reference: verifiers' RubricGroup and Rubric code paths on the same rubrics, after the
    # same score-once step.
    group = env.rubric
    ours, monitor = group.rubrics

    async def score_once_each():
        for state in slow:
            await ours.ensure_scored(state)

    asyncio.run(score_once_each())
    for rubric in (ours, monitor):
        expected, got = copy.deepcopy(slow), copy.deepcopy(slow)
        asyncio.run(vf.Rubric.score_group(rubric, expected))  # verifiers' own path
        asyncio.run(rubric.score_group(got))  # the direct path
        for e, g in zip(expected, got, strict=True):
            assert g["metrics"] == e["metrics"] and list(g["metrics"]) == list(e["metrics"])
            assert g["reward"] == e["reward"]
            assert g["advantage"] == pytest.approx(e["advantage"])
    assert len(fast) == 480 + 400
    assert all(s["reward"] == 1.0 and s["metrics"]["exact_match"] == 1.0 for s in fast[:480])
    assert sum(s["reward"] for s in fast[480:]) == 80  # only "gold after prose" of the others
    assert all(s["metrics"]["num_turns"] == 0.0 for s in fast)  # no trajectory in these states


def test_the_group_equals_verifiers_rubric_group():
    """One pass over the group gives what vf.RubricGroup.score_group gives: summed reward,
    merged metrics after any earlier ones, the last member's advantage and the first member's
    reward/advantage on trajectory steps that had none."""
    from smol_envs_core.adapters.policy import DirectCallGroup

    env = load_environment()
    assert type(env.rubric) is DirectCallGroup
    fast = _states(env)
    for k, state in enumerate(fast):
        state["trajectory"] = [{"reward": None, "advantage": None}] * (k % 3)
        if k % 4 == 0:
            state["metrics"] = {"earlier": 0.5}
    slow = copy.deepcopy(fast)
    asyncio.run(env.rubric.score_group(fast))
    asyncio.run(vf.RubricGroup.score_group(env.rubric, slow))  # verifiers' own group path
    for g, e in zip(fast, slow, strict=True):
        assert g["metrics"] == e["metrics"] and list(g["metrics"]) == list(e["metrics"])
        assert g["reward"] == e["reward"]
        assert g["advantage"] == pytest.approx(e["advantage"])
        assert g["trajectory"] == e["trajectory"]
    assert [s["metrics"]["num_turns"] for s in fast[:3]] == [0.0, 1.0, 2.0]


def test_a_rubric_with_other_arguments_keeps_verifiers_path():
    def needs_parser(completion, parser) -> float:
        return 1.0

    rubric = vf.Rubric(funcs=[needs_parser], weights=[1.0])
    from smol_envs_core.adapters.direct_rubric import _fast_call_plan

    assert _fast_call_plan(rubric.funcs) is None
