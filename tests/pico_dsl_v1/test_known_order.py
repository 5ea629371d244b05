"""Known-order checks on pico-dsl-v1's real scorer over the whole 480-row benchmark: gold
answers score 100, a random answerer scores at its chance level (0: a random four-line string
never equals the oracle's) within its interval, an answerer right on a seeded half scores 50
within its interval, and `smol-envs compare` finds gold vs random significant, the half-gold
run's every flip, and a run vs itself no difference."""

from __future__ import annotations

import random
import string
from pathlib import Path

import pytest
from pico_dsl_v1.data import load_benchmark_rows
from pico_dsl_v1.scorer import BEHAVIOUR_VERSION, score_reply

from tests.support.scored_runs import compared, reported, scored_row, write_scored_run

pytestmark = pytest.mark.unit


def gold(lines: list[str]) -> str:
    return "<answer>\n" + "\n".join(lines) + "\n</answer>"


def noise(lines: list[str], rng: random.Random) -> str:
    """Four random lines of the target lines' lengths, in a well-formed answer block."""
    return gold(["".join(rng.choice(string.ascii_letters) for _ in line) for line in lines])


def run(folder: Path, answer) -> Path:
    rows = []
    for index, row in enumerate(load_benchmark_rows()):
        reply = answer(index, row)
        info = {"id": row["id"], "slice": row["slice"], "complexity_level":
                row["complexity_level"], "target_lines": row["target_lines"],
                "behaviour_version": BEHAVIOUR_VERSION}
        rows.append(scored_row(index, reply, "\n".join(row["target_lines"]), info,
                               score_reply(reply, row["target_lines"])))
    return write_scored_run(folder, "pico-dsl-v1", rows, model=folder.name)


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("pico_known_order")
    rng = random.Random(0)
    half = {i for i in range(480) if random.Random(i).random() < 0.5}
    return {"gold": run(root / "gold", lambda i, row: gold(row["target_lines"])),
            "random": run(root / "random", lambda i, row: noise(row["target_lines"], rng)),
            "half": run(root / "half", lambda i, row: gold(row["target_lines"]) if i in half
                        else noise(row["target_lines"], random.Random(i))),
            "half_rows": half}


def test_gold_scores_100_and_random_its_chance_level(runs, capsys):
    figures = reported(capsys, runs["gold"])
    exact = figures["exact_match x100"]
    assert (exact.value, exact.n, exact.method) == (100.0, 480, "Wilson")
    assert exact.low > 99.0 and exact.high == pytest.approx(100.0)
    chance = reported(capsys, runs["random"])["exact_match x100"]
    assert chance.value == 0.0 and chance.low == pytest.approx(0.0) and chance.high < 1.0
    half = reported(capsys, runs["half"])["exact_match x100"]
    expected = 100 * len(runs["half_rows"]) / 480
    assert half.value == pytest.approx(expected) and half.low < 50.0 < half.high


def test_compare_finds_gold_above_random_and_nothing_against_itself(runs, capsys):
    found, verdict = compared(capsys, runs["random"], runs["gold"])
    assert verdict.startswith("B is higher by 100.0 points, 95% interval ")
    assert found.headline.p_value < 1e-100 and found.headline.table.b_only == 480
    assert verdict.endswith("N=480 paired)")
    same, verdict = compared(capsys, runs["gold"], runs["gold"])
    assert not same.headline.significant and same.headline.p_value == 1.0
    assert verdict.startswith("no difference: the runs agree on every paired row (N=480)")
    assert "smallest detectable difference is about 1.2 points" in verdict  # 6 flips of 480


def test_compare_lists_every_flip_of_the_half_gold_run(runs, capsys):
    found, verdict = compared(capsys, runs["gold"], runs["half"])
    rows = load_benchmark_rows()
    missed = sorted(rows[i]["id"] for i in range(480) if i not in runs["half_rows"])
    assert sorted(found.a_better) == missed and found.b_better == ()
    assert verdict.startswith(f"B is lower by {100 * len(missed) / 480:.1f} points")
    by_slice = dict(found.breakdowns)["slice"]
    assert [slice_ for slice_, _ in by_slice] == sorted({r["slice"] for r in rows})
    assert sum(d.diff.n for _, d in by_slice) == 480 and all(d.significant for _, d in by_slice)
