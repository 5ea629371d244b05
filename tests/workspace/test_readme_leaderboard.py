"""The root README's leaderboard block is exactly what `smol-envs report results/baselines
--update-readme README.md` renders from the committed baseline runs (a stale or hand-edited
table fails here; regenerate it with that command)."""

from __future__ import annotations

from pathlib import Path

import pytest
from smol_envs_core.report import report_runs
from smol_envs_core.report.markdown import REGENERATE, readme_block, split_readme

pytestmark = pytest.mark.unit

REPO = Path(__file__).resolve().parents[2]
BASELINES = REPO / "results" / "baselines"


def test_the_readme_leaderboard_is_what_the_report_renders():
    if not BASELINES.is_dir() or not any(BASELINES.rglob("results.jsonl")):
        pytest.fail(f"{BASELINES.relative_to(REPO)}/ holds no run folders: commit the baseline "
                    f"runs there, then regenerate the README's block with `{REGENERATE}`")
    _head, block, _tail = split_readme((REPO / "README.md").read_text(encoding="utf-8"))
    expected = "\n" + readme_block(report_runs([BASELINES]), REPO)
    assert block == expected, f"the README's leaderboard is stale: run `{REGENERATE}`"
