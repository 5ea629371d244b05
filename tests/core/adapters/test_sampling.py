"""`smol_envs_core.adapters.sampling`: the environment's sampling stands where the caller set none
(vf-eval sends max_tokens None without `-t`), the caller's set values win, and greedy carries
no repetition penalty."""

from __future__ import annotations

import pytest
from smol_envs_core.adapters.sampling import NEUTRAL_PENALTY, effective, without_unset

pytestmark = pytest.mark.unit

MATH = {"n": 1, "extra_body": {}, "temperature": 0.0, "stop": ["\n\n"], "max_tokens": 256}


def test_vf_eval_none_leaves_the_environment_budget_standing():
    got = effective(MATH, {"max_tokens": None})  # vf-eval without -t or -T
    assert got["max_tokens"] == 256 and got["temperature"] == 0.0 and got["stop"] == ["\n\n"]
    assert got["extra_body"] == NEUTRAL_PENALTY


def test_the_callers_set_values_win():
    got = effective(MATH, {"max_tokens": 32, "temperature": 0.7})
    assert got["max_tokens"] == 32 and got["temperature"] == 0.7
    assert "extra_body" not in got  # sampling, not greedy: the penalty is the caller's business


def test_max_completion_tokens_counts_as_the_callers_budget():
    assert effective(MATH, {"max_completion_tokens": 40})["max_tokens"] == 40
    assert "max_completion_tokens" not in effective(MATH, {"max_completion_tokens": 40})


def test_a_named_penalty_is_kept_and_extra_body_merges():
    got = effective({**MATH, "extra_body": {"a": 1}}, {"extra_body": {"repeat_penalty": 1.2}})
    assert got["extra_body"] == {"a": 1, "repeat_penalty": 1.2}


def test_nothing_set_anywhere_sends_no_budget_and_no_penalty():
    assert effective({"n": 1, "extra_body": {}}, {"max_tokens": None}) == {"n": 1}


def test_inputs_are_not_changed():
    caller = {"max_tokens": None, "extra_body": {"x": 1}}
    effective(MATH, caller)
    assert caller == {"max_tokens": None, "extra_body": {"x": 1}} and MATH["extra_body"] == {}
    assert without_unset({"a": None, "b": 0}) == {"b": 0}
