"""The credit diagnostic never reports a failing answer as a full pass, through the classic
rubric and the v1 taskset (issue 42, item 4).

A CSS task's reference followed by `* { color: rgb(1, 2, 3) }` still styles the targets (the
reference's own rules are more specific) but recolours the distractors, failing tests that an
empty stylesheet passes, which earn no credit. 1.0.0 counted credited tests alone and reported
`hidden_test_pass_rate` 1.0 for this failing answer (found on 6 of the 35 CSS tasks); the rate
now counts those failures: 0.75 here, with the reward 0.
"""

from __future__ import annotations

import asyncio
from types import SimpleNamespace

import pytest
from smolscript import load_environment
from smolscript_sandbox.testing import TEST_URL

from tests.contract_rl.driver import load_tasks
from tests.contract_rl.specs import smolscript_gold

pytestmark = [pytest.mark.integration, pytest.mark.usefixtures("browser_service")]

TASK_ID = "css-4e19a8afba"
RECOLOUR = "\n* { color: rgb(1, 2, 3) }\n"


def test_a_failing_answer_is_never_reported_as_a_full_pass_on_both_paths():
    task = next(t for t in load_tasks("smolscript", {
        "split": "eval", "languages": ["css"], "task": {"service_url": TEST_URL}})
        if t.data.task_id == TASK_ID)
    replies = [smolscript_gold(task), smolscript_gold(task).rstrip() + RECOLOUR]

    async def v1(reply: str) -> tuple[float, float]:
        trace = SimpleNamespace(last_reply=reply, assistant_messages=[], info={})
        reward = (await task.declared_reward(trace))["passed"]
        return reward, (await task.declared_metrics(trace))["hidden_test_pass_rate"]

    async def classic() -> list[tuple[float, float]]:
        env = load_environment(service_url=TEST_URL, languages="css")
        states = [{"info": {"id": TASK_ID}, "completion": reply, "prompt": "", "answer": "",
                   "trajectory": [], "example_id": i} for i, reply in enumerate(replies)]
        await env.rubric.score_group(states)
        return [(s["reward"], s["smolscript"]["metrics"]["hidden_test_pass_rate"])
                for s in states]

    got_v1 = [asyncio.run(v1(reply)) for reply in replies]
    got_classic = asyncio.run(classic())
    assert got_v1 == got_classic == [(1.0, 1.0), (0.0, 0.75)]
