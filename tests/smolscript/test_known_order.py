"""Known-order checks on smolscript's real scorer and scoring service (bwrap sandbox, real
toolchains): the first two tasks of each of the nine languages (18; the service's cost keeps
it a handful) answered with their reference solutions score 100, a constant non-answer scores
0 (the chance level of an execution benchmark) within its interval, and `smol-envs compare`
finds reference vs constant significant and a run vs itself no difference."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from smolscript import data
from smolscript.assemble import body_of_reference
from smolscript.gate import ScoringGate
from smolscript.languages import LANGUAGE_ORDER
from smolscript.scorer import BEHAVIOUR_VERSION, score_reply
from smolscript_sandbox.testing import TEST_URL, ensure_service

from tests.support.scored_runs import compared, reported, scored_row, write_scored_run

pytestmark = pytest.mark.integration

PER_LANGUAGE = 2
CONSTANT = "I cannot write this program."


async def _scores(replies: list[str], tasks: list[dict], hidden: dict) -> list:
    gate = ScoringGate(TEST_URL, concurrency=2)
    return await asyncio.gather(*(score_reply(reply, task, hidden[task["id"]], gate)
                                  for reply, task in zip(replies, tasks, strict=True)))


def run(folder: Path, replies: list[str], tasks: list[dict], hidden: dict) -> Path:
    sha = data.dataset_hash("default")
    rows = []
    for index, (reply, task, score) in enumerate(zip(replies, tasks,
                                                     asyncio.run(_scores(replies, tasks, hidden)),
                                                     strict=True)):
        info = {"id": task["id"], "language": task["language"], "difficulty": task["difficulty"],
                "dataset_sha256": sha, "behaviour_version": BEHAVIOUR_VERSION}
        rows.append(scored_row(index, reply, "", info, score))
    return write_scored_run(folder, "smolscript", rows, model=folder.name,
                            env_args={"per_language": PER_LANGUAGE})


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict[str, Path]:
    ensure_service()
    tasks = data.select_tasks("default", per_language=PER_LANGUAGE)
    assert len(tasks) == PER_LANGUAGE * len(LANGUAGE_ORDER)
    hidden = data.hidden_for(tasks, data.load_hidden("default"))
    refs = data.load_references("default")
    gold = [body_of_reference(t, refs[t["id"]]["reference_solution"]) for t in tasks]
    root = tmp_path_factory.mktemp("smolscript_known_order")
    return {"gold": run(root / "reference", gold, tasks, hidden),
            "constant": run(root / "constant", [CONSTANT] * len(tasks), tasks, hidden)}


def test_references_score_100_and_a_constant_answer_its_chance_level(runs, capsys):
    gold = reported(capsys, runs["gold"])
    macro = gold["filtered_macro_score (not official)"]
    assert (macro.value, macro.n) == (100.0, 18) and "within languages" in macro.method
    micro = gold["micro_accuracy"]
    assert (micro.value, micro.method) == (100.0, "Wilson") and micro.low > 80.0
    constant = reported(capsys, runs["constant"])
    assert constant["filtered_macro_score (not official)"].value == 0.0
    chance = constant["micro_accuracy"]
    assert chance.value == 0.0 and chance.low == pytest.approx(0.0) and chance.high < 20.0


def test_compare_finds_references_above_the_constant_and_nothing_against_itself(runs, capsys):
    found, verdict = compared(capsys, runs["constant"], runs["gold"])
    assert verdict.startswith("B is higher by 100.0 points") and "N=18 paired" in verdict
    micro = next(d for d in found.measures if d.name == "micro Pass@1 x100")
    assert micro.table.b_only == 18 and micro.p_value < 1e-4 and micro.significant
    by_language = dict(found.breakdowns)["language"]
    assert [lang for lang, _ in by_language] == sorted(LANGUAGE_ORDER)
    # two tasks per language: two flips are too few for the exact test in any one language
    assert all(d.p_value == 0.5 and not d.significant for _, d in by_language)
    assert len(found.b_better) == 18 and found.a_better == ()
    _, verdict = compared(capsys, runs["gold"], runs["gold"])
    assert verdict.startswith("no difference: the runs agree on every paired row (N=18)")
