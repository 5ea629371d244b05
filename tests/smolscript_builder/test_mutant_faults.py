"""Issue 42: wrong answers that earned the task on 0.4.0 earn nothing on the current edition,
through both adapters (the classic rubric and the v1 task), in the real scoring service.

Two kinds: a pipeline mutant that every 0.4.0 hidden test passed (one per program language:
a constant off by one, a comparison swapped, a stage dropped or stages reordered; found by
`smolscript_builder.mutants` on the frozen `default-0.4.0`), and the `universal-in-query`
stylesheet of every media-query CSS task (its rules restyle every element, which 0.4.0's
probes of the targets alone did not see). Each passes on `default-0.4.0` (the fault is real)
and scores 0 on `default`, and the two adapters agree on every reply.
"""

from __future__ import annotations

import asyncio
from types import SimpleNamespace

import pytest
from smolscript.assemble import body_of_reference
from smolscript.data import load_hidden, load_references, load_tasks
from smolscript_builder.emit import emit_source
from smolscript_builder.grammar import emit_pipeline
from smolscript_builder.mutant_catch import task_verdicts
from smolscript_builder.web.exploits import exploits
from smolscript_sandbox.testing import TEST_URL

pytestmark = [pytest.mark.integration, pytest.mark.usefixtures("browser_service")]
OLD, NEW = "default-0.4.0", "default"
PROGRAM_LANGUAGES = ("python", "javascript", "cpp", "c", "lua", "csharp", "rust")


def surviving_mutants() -> list[tuple[str, str, str]]:
    """(task id, mutant description, reply) of the first 0.4.0 survivor in each language."""
    hidden = load_hidden(OLD)
    out = []
    for language in PROGRAM_LANGUAGES:
        for row in load_tasks(OLD, languages=[language]):
            if row["modality"] != "program":
                continue
            survived = [v for v in task_verdicts(row, hidden[row["id"]])
                        if v.status == "survived"]
            if survived:
                mutant = survived[0].mutant
                sig = row["signature"]
                source = emit_source(language, emit_pipeline(
                    mutant.stages, sig["params"][0]["name"], sig["returns"]), sig)
                out.append((row["id"], mutant.description, body_of_reference(row, source)))
                break
    return out


def universal_rules() -> list[tuple[str, str, str]]:
    """(task id, exploit name, reply) for every media-query CSS task."""
    refs = load_references(NEW)
    out = []
    for row in load_tasks(NEW, languages=["css"]):
        sheet = exploits(row, refs[row["id"]]).get("universal-in-query")
        if sheet is not None:
            out.append((row["id"], "universal-in-query", body_of_reference(row, sheet)))
    return out


async def classic_rewards(edition: str, task_ids: list[str], replies: list[str]) -> list[float]:
    from smolscript.env import load_environment

    env = load_environment(edition=edition, service_url=TEST_URL)
    states = [{"info": {"id": task_id}, "completion": reply, "prompt": "", "answer": "",
               "trajectory": [], "example_id": i}
              for i, (task_id, reply) in enumerate(zip(task_ids, replies, strict=True))]
    await env.rubric.score_group(states)
    return [state["reward"] for state in states]


async def v1_rewards(edition: str, task_ids: list[str], replies: list[str]) -> list[float]:
    from smolscript.taskset import SmolscriptTask, SmolscriptTaskConfig, to_task_data

    rows = {row["id"]: row for row in load_tasks(edition)}
    out = []
    for task_id, reply in zip(task_ids, replies, strict=True):
        task = SmolscriptTask(to_task_data(rows[task_id], edition),
                              SmolscriptTaskConfig(service_url=TEST_URL))
        trace = SimpleNamespace(assistant_messages=[SimpleNamespace(content=reply)],
                                last_reply=reply.strip(), info={})
        (reward,) = (await task.declared_reward(trace)).values()
        out.append(reward)
    return out


def rewards(cases: list[tuple[str, str, str]]) -> dict[str, dict[str, list[float]]]:
    ids, replies = [c[0] for c in cases], [c[2] for c in cases]
    return {edition: {"classic": asyncio.run(classic_rewards(edition, ids, replies)),
                      "v1": asyncio.run(v1_rewards(edition, ids, replies))}
            for edition in (OLD, NEW)}


def test_a_surviving_mutant_in_every_language_passed_0_4_0_and_scores_0_now():
    cases = surviving_mutants()
    assert len(cases) == len(PROGRAM_LANGUAGES), [c[:2] for c in cases]
    got = rewards(cases)
    labels = [f"{task_id}: {what}" for task_id, what, _ in cases]
    for edition in (OLD, NEW):
        assert got[edition]["classic"] == got[edition]["v1"], (edition, labels, got)
    assert got[OLD]["classic"] == [1.0] * len(cases), (labels, got[OLD]["classic"])
    assert got[NEW]["classic"] == [0.0] * len(cases), (labels, got[NEW]["classic"])


def test_a_universal_rule_inside_the_media_query_passed_0_4_0_and_scores_0_now():
    cases = universal_rules()
    assert len(cases) == 9  # every breakpoint task of the default edition
    got = rewards(cases)
    for edition in (OLD, NEW):
        assert got[edition]["classic"] == got[edition]["v1"], (edition, got)
    assert sum(got[OLD]["classic"]) >= 7  # issue 42 reported 7; 8 of 9 measured
    assert got[NEW]["classic"] == [0.0] * len(cases), got[NEW]
