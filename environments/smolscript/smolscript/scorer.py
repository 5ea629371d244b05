"""smolscript's one scoring function and its declaration (both adapters are made from them).

`score_reply(reply, task, hidden, gate)` assembles the reply onto the task's head
(`assemble.assemble_completion`), runs the hidden tests once through the scoring service
(`verdict.score_code`) and returns a `smol_envs_core.adapters.declaration.Score`: the
reward is `passed`.
The classic rubric (`env.py`) and the v1 task (`taskset.py`) both call it, so both handle a
prompt that is too long, an assembly rejection (failed without a service call) and a service
failure (`ScoringInfraError` naming the service's URL) the same way; the service is reached
through the one scoring gate (`gate.py`). No verifiers import.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

from smol_envs_core.adapters.declaration import Declaration, Metric, Score, empty_metric

from smolscript.assemble import assemble_completion
from smolscript.gate import ScoringGate, Slot
from smolscript.verdict import outcome, score_code

ENV_ID = "smolscript"
BEHAVIOUR_VERSION = "1.1.0"
RECORD_KEY = "smolscript"
PROMPT_TOO_LONG = "prompt plus budget exceed the model context (never truncated)"
DECLARATION = Declaration(
    env_id=ENV_ID, behaviour_version=BEHAVIOUR_VERSION,
    metrics=(
        Metric("passed", 1.0, "1.0 when every hidden test of the task passed (headline reward, "
                              "weight 1), else 0.0."),
        Metric("syntax_ok", 0.0, "1.0 when the code parsed/compiled (HTML/CSS: no parse error "
                                 "reported), else 0.0."),
        Metric("hidden_test_pass_rate", 0.0, "Fraction of the task's hidden tests passed, in "
                                             "[0, 1] (partial functional success)."),
        empty_metric(),
    ),
    failure_kinds=("empty_response", "prompt_too_long", "rejected", "failed_tests"),
    record_key=RECORD_KEY,
)
# Reward-only scoring (`reward_only=True` in both adapters, for trainers): the same reward
# (`passed`) and the metrics a stopped job still decides; `hidden_test_pass_rate` needs every
# test run and the credit baselines, so it is not a column here (never a guessed value).
REWARD_ONLY_METRICS = ("passed", "syntax_ok", "empty_response")
REWARD_ONLY_DECLARATION = Declaration(
    env_id=ENV_ID, behaviour_version=BEHAVIOUR_VERSION,
    metrics=tuple(m for m in DECLARATION.metrics if m.name in REWARD_ONLY_METRICS),
    failure_kinds=DECLARATION.failure_kinds, record_key=RECORD_KEY,
)


def declaration_for(reward_only: bool) -> Declaration:
    """The declaration an adapter scores with: the full one, or the reward-only one."""
    return REWARD_ONLY_DECLARATION if reward_only else DECLARATION


def _failure(verdict: Mapping[str, Any], empty: bool) -> str | None:
    if verdict["passed"]:
        return None
    if empty:
        return "empty_response"
    if verdict["status"] in ("prompt_too_long", "rejected"):
        return verdict["status"]
    return "failed_tests"


async def score_reply(reply: str, task: Mapping[str, Any], hidden: Mapping[str, Any],
                      gate: ScoringGate | Slot, *, prompt_too_long: bool = False,
                      reward_only: bool = False) -> Score:
    """Score one reply (a raw continuation, one fenced block or a whole definition).

    Args:
        reply: the model's text, end-of-turn markers already removed by the adapter.
        task: the public task row; hidden: its hidden tests (host side only).
        gate: the scoring gate (`gate.ScoringGate`), or a slot of it the caller already holds
            (not called for a prompt too long or a rejected assembly).
        prompt_too_long: the endpoint refused the prompt as longer than the model's context.
        reward_only: score the reward and what decides it only (`REWARD_ONLY_DECLARATION`):
            the same `passed`, `syntax_ok` and `empty_response`, a program job stopped at its
            first failing test, no credit baselines (`verdict.score_reward_only`).
    Returns:
        the Score; `parsed` = the evaluated code (None when rejected), `reason` = the verdict's,
        `details` = {"assembly": {mode, note}, "verdict": the full verdict with `scoring_s`}.
    Raises:
        ScoringInfraError: the scoring service failed (never a reward of 0).
    """
    started = time.monotonic()
    assembly = assemble_completion(task, reply)
    if prompt_too_long:
        verdict = outcome(False, False, 0.0, "prompt_too_long", PROMPT_TOO_LONG, [])
    elif assembly.code is None:
        verdict = await score_code(task, hidden, None, None, assembly.note)
    else:
        verdict = await gate.score(task, hidden, assembly.code, assembly.note,
                                   reward_only=reward_only)
    empty = not reply.strip()
    metrics = {"passed": float(bool(verdict["passed"])),
               "syntax_ok": float(bool(verdict["syntax_ok"])),
               "empty_response": float(empty)}
    if not reward_only:
        metrics["hidden_test_pass_rate"] = float(verdict["hidden_test_pass_rate"])
    details = {"assembly": {"mode": assembly.mode, "note": assembly.note},
               "verdict": {**verdict, "scoring_s": round(time.monotonic() - started, 3)}}
    if reward_only:
        details["reward_only"] = True
    return declaration_for(reward_only).score(
        metrics, parsed=assembly.code, reason=str(verdict["reason"]),
        failure=_failure(verdict, empty), details=details)
