"""Replies that hide what an HTML task asks for earn nothing, through the classic rubric and
the v1 taskset (issue 42, item 4).

Each attack is the task's own reference markup followed by one `<style>` element that leaves
every element laid out but leaves nothing a person can read: it passed the rendered visibility
check of behaviour 1.0.0 (which looked at opacity 0, visibility, clipping to nothing and
placement left of or above the page). The reference itself must still earn 1.0 on both paths.
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

HIDING = [
    ("<style>body { opacity: 0.05 }</style>", "near-zero opacity of the page"),
    ("<style>html { filter: opacity(3%) }</style>", "a filter fading the page out"),
    ("<style>body { color: #fff !important } body * { color: inherit !important; "
     "background: none !important; border-color: #fff !important }</style>",
     "text the colour of the page"),
    ("<style>body { transform: scale(0.01); transform-origin: 0 0 }</style>",
     "the page scaled to a dot"),
    ('<style>body::after { content: ""; position: fixed; inset: 0; background: #fff; '
     "pointer-events: none }</style>", "a white sheet over the page"),
    ("<style>body { clip-path: inset(50% 50% 50% 50%) }</style>", "clip-path to nothing"),
]
TASKS = 2  # the first HTML tasks of the eval split


@pytest.fixture(scope="module")
def tasks() -> list:
    return load_tasks("smolscript", {"split": "eval", "languages": ["html"],
                                     "num_examples": TASKS,
                                     "task": {"service_url": TEST_URL, "concurrency": 2}})


def _v1_rewards(tasks: list, replies: list[str]) -> list[float]:
    async def one(task, reply: str) -> float:
        trace = SimpleNamespace(last_reply=reply, assistant_messages=[], info={})
        return (await task.declared_reward(trace))["passed"]

    async def every() -> list[float]:
        return list(await asyncio.gather(*(one(t, r) for t, r in zip(tasks, replies,
                                                                      strict=True))))
    return asyncio.run(every())


@pytest.fixture(scope="module")
def classic_env():
    return load_environment(service_url=TEST_URL, languages="html")


def _classic_rewards(env, tasks: list, replies: list[str]) -> list[float]:
    states = [{"info": {"id": t.data.task_id}, "completion": reply, "prompt": "", "answer": "",
               "trajectory": [], "example_id": i}
              for i, (t, reply) in enumerate(zip(tasks, replies, strict=True))]
    asyncio.run(env.rubric.score_group(states))
    return [state["reward"] for state in states]


def test_references_earn_the_reward_on_both_paths(tasks, classic_env):
    gold = [smolscript_gold(t) for t in tasks]
    assert _v1_rewards(tasks, gold) == [1.0] * TASKS
    assert _classic_rewards(classic_env, tasks, gold) == [1.0] * TASKS


@pytest.mark.parametrize("style,why", HIDING, ids=[h[1] for h in HIDING])
def test_hidden_markup_earns_nothing_on_both_paths(tasks, classic_env, style, why):
    replies = [smolscript_gold(t).rstrip() + "\n" + style + "\n" for t in tasks]
    assert _v1_rewards(tasks, replies) == [0.0] * TASKS, why
    assert _classic_rewards(classic_env, tasks, replies) == [0.0] * TASKS, why
