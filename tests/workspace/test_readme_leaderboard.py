"""The root README's leaderboard block is exactly what `smol-envs report results/baselines
--update-readme README.md` renders from the committed baseline runs (a stale or hand-edited
table fails here; regenerate it with that command)."""

from __future__ import annotations

from pathlib import Path

import pytest
from smol_envs_core.report import report_runs
from smol_envs_core.report.markdown import REGENERATE, readme_block, split_readme
from smol_envs_core.report.model import ResultsError
from smol_envs_core.report.read import read_results

pytestmark = pytest.mark.unit

REPO = Path(__file__).resolve().parents[2]
BASELINES = REPO / "results" / "baselines"


def test_the_readme_leaderboard_is_what_the_report_renders():
    if not BASELINES.is_dir() or not any(BASELINES.rglob("results.jsonl")):
        pytest.fail(f"{BASELINES.relative_to(REPO)}/ holds no run folders: commit the baseline "
                    f"runs there, then regenerate the README's block with `{REGENERATE}`")
    _head, block, _tail = split_readme((REPO / "README.md").read_text(encoding="utf-8"))
    expected = "\n" + readme_block(report_runs([BASELINES], allow_mixed_versions=True), REPO)
    assert block == expected, f"the README's leaderboard is stale: run `{REGENERATE}`"


def test_an_environment_results_document_is_read_through_its_format_reader(tmp_path):
    """`smolscript evaluate`'s results.json in a baseline folder is read by the core reader
    through the `smol_envs.results_format` entry point, with the metadata.json beside it (the
    model label and wall time the leaderboard shows) laid over the document's own."""
    run = BASELINES / "gemma-3-270m" / "smolscript-default-0.4.0"
    results = read_results(run, expect="smolscript")
    assert results.path == run / "results.json" and len(results.rows) == 350
    assert results.provenance.model == "gemma-3-270m"  # metadata.json's label, not the file name
    assert results.provenance.wall_time_s and results.provenance.wall_time_s > 60
    assert {r.info["language"] for r in results.rows} >= {"python", "rust", "css"}
    unknown = tmp_path / "results.json"
    unknown.write_text('{"format": "other-v1", "results": []}')
    with pytest.raises(ResultsError, match="not a results document of a known format"):
        read_results(tmp_path)
