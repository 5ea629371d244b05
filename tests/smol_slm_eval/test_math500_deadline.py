"""MATH-500 scoring is bounded: a reply that hangs math-verify (a boxed power tower against an
integer gold answer, measured at > 150 s unbounded) is cut at its deadline and scored as the
reply's failure, while ordinary replies scored beside it through the real rubric finish on time.
"""

from __future__ import annotations

import asyncio
import os
import time

import pytest
from smol_envs_core.adapters.deadline import DeadlineExceeded, DeadlinePool
from smol_envs_core.errors import InfrastructureError
from smol_slm_eval import math500
from smol_slm_eval.env import TaskRubric
from smol_slm_eval.tasks import MATH

pytestmark = pytest.mark.integration

ROWS = {f"r{i}": {"id": f"r{i}", "answer": str(i)} for i in range(6)}
HANGING = {"r0": "The answer is $\\boxed{9^{9^{9}}}$.", "r1": "So \\boxed{10^{10^{10}}}"}
DEADLINE_S = 4.0


def state_for(row_id: str, text: str) -> dict:
    return {"completion": [{"role": "assistant", "content": text}], "info": {"id": row_id},
            "prompt": [], "answer": ROWS[row_id]["answer"]}


async def score_timed(rubric: TaskRubric, state: dict, started: float) -> float:
    await rubric.ensure_scored(state)
    return time.monotonic() - started


def test_hanging_replies_fail_at_the_deadline_and_hold_no_other_rollout(capsys):
    rubric = TaskRubric(MATH, "exact_match", ROWS)
    rubric.deadline_s = DEADLINE_S
    # Warm the workers first: their start (imports) is not part of any reply's deadline.
    started = time.monotonic()
    asyncio.run(rubric.ensure_scored(state_for("r2", "\\boxed{2}")))
    worker_start = time.monotonic() - started
    states = {rid: state_for(rid, HANGING.get(rid, f"\\boxed{{{row['answer']}}}"))
              for rid, row in ROWS.items()}

    async def run() -> dict[str, float]:
        started = time.monotonic()
        times = await asyncio.gather(*(score_timed(rubric, s, started) for s in states.values()))
        return dict(zip(states, times, strict=True))

    started = time.monotonic()
    times = asyncio.run(run())
    wall = time.monotonic() - started
    for rid, state in states.items():
        record = state["slm_eval_score"]
        if rid in HANGING:
            assert record["failure"] == "scorer_timeout", record
            assert record["reward"] == 0.0 and "did not finish within 4 s" in record["reason"]
        else:
            assert record["reward"] == 1.0 and record["failure"] is None, record
    # Two workers: both hanging replies are cut at about 4 s each; the four ordinary replies
    # wait for a worker at most one deadline plus the start of replacement workers (their
    # imports: about 5 s idle, 25 s at load average 15; measured here by the warm-up), never
    # the minutes an unbounded comparison takes.
    ordinary = [t for rid, t in times.items() if rid not in HANGING]
    bound = DEADLINE_S + 2 * worker_start + 15
    with capsys.disabled():
        print(f"\nMATH-500 deadline {DEADLINE_S:g} s: wall {wall:.1f} s; hanging "
              + ", ".join(f"{times[r]:.1f} s" for r in HANGING) + "; ordinary max "
              f"{max(ordinary):.1f} s (bound {bound:.1f} s; a worker's start {worker_start:.1f} s)")
    assert max(ordinary) < bound, times
    assert max(times[r] for r in HANGING) < bound, times


def test_pool_kills_a_late_call_and_keeps_serving():
    # Standard-library functions only: the worker need not import this test module.
    pool = DeadlinePool(size=1, name="test worker")
    try:
        assert pool.call(int, "1", deadline_s=30) == 1
        started = time.monotonic()
        with pytest.raises(DeadlineExceeded):
            pool.call(time.sleep, 60.0, deadline_s=0.5)
        assert time.monotonic() - started < 10
        assert pool.call(int, "3", deadline_s=30) == 3
        with pytest.raises(ValueError, match="boom"):
            pool.call(int, "boom", deadline_s=30)
        # A worker that dies is the infrastructure's failure, never a reply's verdict.
        with pytest.raises(InfrastructureError, match="test worker"):
            pool.call(os._exit, 3, deadline_s=30)
        assert pool.call(int, "4", deadline_s=30) == 4
    finally:
        pool.close()


def test_bounded_record_matches_the_unbounded_one_on_ordinary_replies():
    for reply, gold in (("\\boxed{\\frac12}", "0.5"), ("The answer is 7.", "7"), ("", "1"),
                        ("<think>\\boxed{7}", "7")):
        assert math500.bounded_math_record(reply, gold) == math500.math_record(reply, gold)
