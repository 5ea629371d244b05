"""`smol-envs compare RUN_A RUN_B`: what it refuses (other environments, datasets, behaviour
versions, gold answers, judges), how it pairs (unmatched rows counted, several rollouts
averaged) and where it writes, with the installed environments' real compare hooks."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from smol_envs_core import cli
from smol_envs_core.report.compare import compare_runs

from tests.workspace.report_runs import (
    pico_run,
    smol_slm_eval_run,
    smolscript_run,
    smoltalkbench_run,
)

pytestmark = pytest.mark.unit


def _rows(folder: Path) -> list[dict]:
    return [json.loads(line) for line in (folder / "results.jsonl").read_text().splitlines()]


def _rewrite(folder: Path, rows: list[dict], **metadata) -> Path:
    (folder / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    meta = json.loads((folder / "metadata.json").read_text())
    (folder / "metadata.json").write_text(json.dumps({**meta, **metadata}))
    return folder


def _error(capsys, argv: list[str]) -> str:
    assert cli.main(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1
    return captured.err


def test_other_environments_and_folders_of_several_runs_are_refused(tmp_path, capsys):
    pico, slm = pico_run(tmp_path / "p"), smol_slm_eval_run(tmp_path / "s")
    err = _error(capsys, ["compare", str(pico), str(slm)])
    assert "refusing to compare a pico-dsl-v1 run" in err and "different environments" in err
    err = _error(capsys, ["compare", str(tmp_path), str(pico)])
    assert "holds 2 runs; compare takes one run folder each" in err


def test_another_dataset_build_is_refused(tmp_path, capsys):
    a = smolscript_run(tmp_path / "a")
    b = smolscript_run(tmp_path / "b")
    rows = _rows(b)
    for row in rows:
        row["info"]["dataset_sha256"] = "0" * 64
    _rewrite(b, rows)
    err = _error(capsys, ["compare", str(a), str(b)])
    assert "refusing to compare runs of different datasets: A has sha256" in err


def test_another_gold_answer_for_a_shared_row_is_refused(tmp_path, capsys):
    a, b = pico_run(tmp_path / "a"), pico_run(tmp_path / "b")
    for folder in (a, b):
        rows = _rows(folder)
        for row in rows:
            row["info"]["target_lines"] = [f"{row['info']['id']} line {i}" for i in range(4)]
        _rewrite(folder, rows)
    compare_runs(a, b)  # the same targets pair
    rows[0]["info"]["target_lines"] = ["w", "x", "y", "z"]
    _rewrite(b, rows)
    err = _error(capsys, ["compare", str(a), str(b)])
    assert f"row {rows[0]['info']['id']!r} has another gold answer in B" in err


def test_another_judge_is_another_measurement(tmp_path, capsys):
    a, b = smoltalkbench_run(tmp_path / "a"), smoltalkbench_run(tmp_path / "b")
    _rewrite(b, _rows(b), env_args={"dataset": "fixture", "judge_model": "some-large-judge"})
    err = _error(capsys, ["compare", str(a), str(b)])
    assert "refusing to compare runs of different datasets" in err and "some-large-judge" in err


def test_behaviour_versions_are_refused_unless_allowed(tmp_path, capsys):
    a, b = pico_run(tmp_path / "a"), pico_run(tmp_path / "b")
    _rewrite(b, _rows(b), behaviour_version="9.9.9")
    err = _error(capsys, ["compare", str(a), str(b)])
    assert "different behaviour versions" in err and "--allow-mixed-versions" in err
    found = compare_runs(a, b, allow_mixed_versions=True)
    assert any(n.startswith("mixed behaviour versions allowed") for n in found.notes)


def test_unmatched_rows_are_counted_and_left_out(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "300")
    a, b = pico_run(tmp_path / "a"), pico_run(tmp_path / "b")
    rows = _rows(b)
    dropped = [rows[0]["info"]["id"], rows[1]["info"]["id"]]
    _rewrite(b, rows[2:])
    assert cli.main(["compare", str(a), str(b)]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "rows paired 6" in out and "rows unmatched (left out) 2 only in A, 0 only in B" in out
    assert f"A only {', '.join(sorted(dropped))}; B only -" in out


def test_several_rollouts_of_a_row_are_averaged(tmp_path):
    a, b = pico_run(tmp_path / "a"), pico_run(tmp_path / "b")
    rows = _rows(b)
    second = json.loads(json.dumps(rows[0]))
    second["metrics"]["exact_match"] = 1.0 - second["metrics"]["exact_match"]
    _rewrite(b, [*rows, second])
    found = compare_runs(a, b)
    assert found.paired == 8 and found.headline.p_value is None  # 0.5 is not a 0/1 outcome
    assert "paired bootstrap" in found.headline.diff.method
    assert any(n.startswith("B: N counts examples, not rollouts: 8 examples") for n in found.notes)


def test_markdown_goes_to_the_file_named(tmp_path, capsys):
    a = pico_run(tmp_path / "a")
    b = shutil.copytree(a, tmp_path / "b")
    rows = _rows(b)
    for row in rows:
        row["metrics"]["exact_match"] = 1.0
    _rewrite(b, rows)
    page = tmp_path / "out" / "compare.md"
    assert cli.main(["compare", str(a), str(b), "--markdown", str(page)]) == 0
    assert f"Markdown written to {page}" in capsys.readouterr().out
    text = page.read_text()
    # 6 of 8 rows flipped, all one way: the exact test's p is 2 / 2^6
    assert text.startswith("## compare: pico-dsl-v1\n\n**B is higher by 75.0 points, 95% "
                           "interval ")
    assert "(McNemar exact p=0.0312, N=8 paired)**" in text
    assert "| exact_match x100 | 25.0 | 100.0 | 75.0 |" in text
    assert "| B higher than A | 6 |" in text


def test_errored_rollouts_are_excluded_not_paired(tmp_path, capsys, monkeypatch):
    """A rollout that errored in one run is left out of the pairing (listed as excluded with
    its error), never compared as a 0."""
    monkeypatch.setenv("COLUMNS", "300")
    a, b = pico_run(tmp_path / "a"), pico_run(tmp_path / "b")
    rows = _rows(b)
    rows[0].update(error="ModelEndpointError: connection refused", metrics={}, reward=0.0)
    _rewrite(b, rows)
    comparison = compare_runs(a, b)
    assert comparison.excluded == ((f"B {rows[0]['info']['id']}",
                                    "errored rollout: ModelEndpointError: connection refused"),)
    assert comparison.headline.diff.n == 7
    assert cli.main(["compare", str(a), str(b)]) == 0
    assert "rows paired 7" in " ".join(capsys.readouterr().out.split())
