"""Known-order checks on SmolTalkBench's real scorer with a real local judge (SmolLM2-135M on the
local server) over six of the packaged fixture prompts (three per group: every judgement costs
several calls of the one-request-at-a-time local server).

What "gold" and "chance" mean for a pairwise judge against reference replies: the best honest
answer we can write down is the reference itself, and a reply equal to the reference is a tie,
so gold scores 50, not 100 (the pair order is seeded per instruction, so the judge's label bias
averages out over the prompts: 50 must lie within the interval). The chance floor is the empty
reply: it loses without a judge call (win_prob 0, a model outcome). What a 135M judge cannot
give is evidence that the judge tells good replies from bad ones; these checks test the
mechanics (order randomization, the empty-reply rule, the report and the paired comparison),
not the judge's taste. `smol-envs compare` must find reference vs empty significant and a run
vs itself not."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from smoltalkbench import data, judge
from smoltalkbench.judge_client import JudgeClient, JudgeConfig
from smoltalkbench.scorer import BEHAVIOUR_VERSION, score_reply

from tests.support.scored_runs import compared, reported, scored_row, write_scored_run

pytestmark = pytest.mark.integration

ROWS = 6


def _win_probs(folder: Path) -> list[float]:
    lines = (folder / "results.jsonl").read_text().splitlines()
    return [round(json.loads(line)["win_prob"], 3) for line in lines]


async def _judged(client: JudgeClient, replies: list[str], rows: list[dict]) -> list:
    return [await score_reply(reply, row["instruction"], row["output"], client,
                              judge.DEFAULT_LENGTH_PENALTY_CHARS)
            for reply, row in zip(replies, rows, strict=True)]


def run(folder: Path, replies: list[str], rows: list[dict], client: JudgeClient,
        judge_model: str) -> Path:
    out = []
    scores = asyncio.run(_judged(client, replies, rows))
    for index, (reply, row, score) in enumerate(zip(replies, rows, scores, strict=True)):
        info = {"id": row["id"], "group": row["group"], "category": row["category"],
                "reference_chars": len(row["output"]), "behaviour_version": BEHAVIOUR_VERSION}
        out.append({**scored_row(index, reply, row["output"], info, score),
                    "judge": score.details})
    return write_scored_run(folder, "smoltalkbench", out, model=folder.name,
                            env_args={"dataset": "fixture", "judge_model": judge_model})


@pytest.fixture(scope="module")
def runs(local_model_base_url, local_model_name, tmp_path_factory) -> dict[str, Path]:
    rows = [json.loads(line) for line in data.fixture_path().read_text().splitlines()]
    rows = [r for r in rows if r["group"] == "everyday"][:3] + \
        [r for r in rows if r["group"] == "school"][:3]
    client = JudgeClient(JudgeConfig(model=local_model_name, base_url=local_model_base_url,
                                     api_key_var=None, max_concurrent=1, timeout_s=120,
                                     label_bias="tokens"))
    root = tmp_path_factory.mktemp("smoltalkbench_known_order")
    return {"reference": run(root / "reference", [r["output"] for r in rows], rows, client,
                             local_model_name),
            "empty": run(root / "empty", [""] * len(rows), rows, client, local_model_name)}


def test_the_reference_ties_and_the_empty_reply_scores_0(runs, capsys):
    tie = reported(capsys, runs["reference"])["win rate x100 (length-penalized)"]
    assert tie.n == ROWS and tie.method == "t"
    assert tie.low < 50.0 < tie.high, (tie.text(), _win_probs(runs["reference"]))
    empty = reported(capsys, runs["empty"])
    assert empty["win rate x100 (length-penalized)"].value == 0.0
    assert empty["judged / total"] == f"{ROWS} / {ROWS}"


def test_the_small_judge_is_flagged_on_the_leaderboard(runs):
    from smol_envs_core.report import report_runs

    (cell,) = report_runs([runs["reference"]])[0].body.leaderboard
    assert cell.subset == f"{ROWS} rows of the packaged offline fixture, not the benchmark"
    assert "not a valid measurement" in cell.caveat


def test_compare_finds_the_reference_above_empty_and_nothing_against_itself(runs, capsys):
    found, verdict = compared(capsys, runs["empty"], runs["reference"])
    assert found.headline.significant and verdict.startswith("B is higher by "), \
        (verdict, _win_probs(runs["reference"]))
    assert "paired bootstrap over rows" in verdict and found.a_better == ()
    _, verdict = compared(capsys, runs["reference"], runs["reference"])
    assert verdict.startswith("no difference: the runs agree on every paired row (N=6)")
