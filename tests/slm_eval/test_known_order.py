"""Known-order checks on slm_eval's real scorers over real rows (the pinned PyPI data wheels):
multiple choice scored by `mc.mc_record` + `scorer.score_choice` from log-likelihoods that put
the gold choice first (gold) or a seeded uniformly random choice first (random: chance is the
mean of 1/choices), MATH-500 scored by `scorer.score_reply` (math-verify) on the boxed gold
answer or a boxed random integer. Gold scores 100, random its chance level within its interval,
the Int Index of gold is 100 and of random near its chance value, and `smol-envs compare`
finds gold vs random significant (Int Index and per task) and a run vs itself not."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from slm_eval import composite
from slm_eval.data import load_rows
from slm_eval.env import LETTERS
from slm_eval.mc import mc_record
from slm_eval.prompts import mc_request
from slm_eval.scorer import BEHAVIOUR_VERSION, score_choice, score_reply
from slm_eval.tasks import MATH

from tests.support.scored_runs import compared, reported, scored_row, write_scored_run

pytestmark = pytest.mark.integration  # reads the data wheels (downloaded once from PyPI)

MC_TASKS = {"hellaswag": 600, "arc_easy": None, "arc_challenge": None}  # rows (None: all)


def mc_rows(task: str) -> list[tuple[dict, list[str], int]]:
    rows = load_rows(task, use_hub=False)[:MC_TASKS[task]]
    return [(row, *mc_request(task, row, "seed")[2:]) for row in rows]


def mc_run(folder: Path, pick, tasks: dict[str, list]) -> Path:
    """One run over the multiple-choice tasks; `pick(rng, choices, gold)` is the index the
    log-likelihoods put first (0 there, -1000 elsewhere: acc and acc_norm both choose it)."""
    rng, out = random.Random(0), []
    for task, rows in tasks.items():
        for row, choices, gold in rows:
            first = pick(rng, choices, gold)
            logliks = [0.0 if i == first else -1000.0 for i in range(len(choices))]
            score = score_choice(mc_record(logliks, choices, gold), "acc_norm")
            info = {"id": row["id"], "benchmark": task, "behaviour_version": BEHAVIOUR_VERSION}
            out.append(scored_row(len(out), LETTERS[first], LETTERS[gold], info, score))
    return write_scored_run(folder, "slm-eval", out, model=folder.name,
                            env_args={"task": "int_index"})


def math_run(folder: Path, reply) -> Path:
    rng, out = random.Random(0), []
    for index, row in enumerate(load_rows("math_500", use_hub=False)):
        text = f"The answer is $\\boxed{{{reply(rng, row)}}}$"
        info = {"id": row["id"], "benchmark": "math_500", "behaviour_version": BEHAVIOUR_VERSION}
        out.append(scored_row(index, text, row["answer"], info,
                              score_reply(text, row, MATH, "exact_match")))
    return write_scored_run(folder, "slm-eval", out, model=folder.name,
                            env_args={"task": "math_500"})


@pytest.fixture(scope="module")
def runs(archive_cache, tmp_path_factory) -> dict:
    root = tmp_path_factory.mktemp("slm_known_order")
    tasks = {task: mc_rows(task) for task in MC_TASKS}
    return {
        "tasks": tasks,
        "gold": mc_run(root / "gold", lambda rng, choices, gold: gold, tasks),
        "random": mc_run(root / "random", lambda rng, choices, gold: rng.randrange(len(choices)),
                         tasks),
        "math_gold": math_run(root / "math_gold", lambda rng, row: row["answer"]),
        "math_random": math_run(root / "math_random",
                                lambda rng, row: str(rng.randint(0, 10 ** 6))),
    }


def chance(rows: list) -> float:
    """The expected acc of a uniformly random choice, x100."""
    return 100 * sum(1 / len(choices) for _, choices, _ in rows) / len(rows)


def test_gold_scores_100_and_random_its_chance_level(runs, capsys):
    gold = reported(capsys, runs["gold"])
    random_ = reported(capsys, runs["random"])
    for task, rows in runs["tasks"].items():
        assert gold[f"{task} acc_norm x100"].value == 100.0
        estimate = random_[f"{task} acc_norm x100"]
        assert estimate.n == len(rows) and estimate.method == "Wilson"
        assert estimate.low < chance(rows) < estimate.high, (task, estimate.text())
    assert gold["Int Index"].value == pytest.approx(100.0)
    expected = composite.int_index({task: {"acc_norm": chance(rows)}
                                    for task, rows in runs["tasks"].items()}).value
    index = random_["Int Index"]
    assert index.low < expected < index.high and "within tasks" in index.method
    math_gold = reported(capsys, runs["math_gold"])["math_500 exact_match x100"]
    math_random = reported(capsys, runs["math_random"])["math_500 exact_match x100"]
    assert (math_gold.value, math_gold.n) == (100.0, 500)
    assert math_random.value == 0.0 and math_random.low == pytest.approx(0.0)


def test_the_subset_is_labelled(runs):
    from smol_envs_core.report import report_runs

    body = report_runs([runs["gold"]])[0].body
    assert body.subset == "hellaswag: first 600 of 10042 rows"
    cells = {s.column: s.subset for s in body.leaderboard}
    assert cells["slm-eval arc_easy acc_norm"] is None
    assert cells["slm-eval hellaswag acc_norm"] == "first 600 of 10042 rows"
    assert cells["slm-eval Int Index"].startswith("components HellaSwag, ARC; hellaswag: first")


def test_compare_finds_gold_above_random_and_nothing_against_itself(runs, capsys):
    found, verdict = compared(capsys, runs["random"], runs["gold"])
    assert found.headline.name == "Int Index" and found.headline.significant
    assert verdict.startswith("B is higher by ") and "paired bootstrap over rows within tasks" \
        in verdict
    per_task = dict(dict(found.breakdowns)["task"])
    assert sorted(per_task) == sorted(MC_TASKS)
    assert all(d.significant and d.p_value < 1e-10 for d in per_task.values())
    _, verdict = compared(capsys, runs["gold"], runs["gold"])
    assert verdict.startswith("no difference: the runs agree on every paired row")
    math, verdict = compared(capsys, runs["math_random"], runs["math_gold"])
    assert verdict.startswith("B is higher by 100.0 points") and math.headline.table.b_only == 500
