"""The report's reader of verifiers 0.4 run folders (`traces.jsonl`): the mapping onto the rows
a 0.3.1 results.jsonl gives, and a rollout that failed kept as an error, never as a score.

A run folder written by the real 0.4 `vf-eval` is read end to end in
tests/contract_rl/test_vf_eval_040.py (report and compare); here, folders laid out the same way
(verifiers 0.4.0's episode and trace fields) with chosen values.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from smol_envs_core.report.read import find_runs, read_results

pytestmark = pytest.mark.unit


def trace(score: float, ok: bool = True, errors: tuple = ()) -> dict:
    return {"id": f"t{score}", "verifiers": {"version": "0.4.0"}, "ok": ok,
            "errors": list(errors),
            "rewards": {"exact_match": {"score": score, "weight": 1.0}},
            "metrics": {"format_valid": 1.0}, "info": {"behaviour_version": "1.0.0"},
            "timing": {"start": 100.0, "agent": {"start": 100.5, "end": 104.0}}}


def write_run(folder: Path, episodes: list[dict]) -> Path:
    run = folder / "pico-dsl-v1--m--null--abc"
    (run / "configs" / "resolved").mkdir(parents=True)
    (run / "configs" / "resolved" / "eval.json").write_text(json.dumps({
        "env": {"taskset": {"id": "pico-dsl-v1", "split": "eval"}}, "model": "M",
        "client": {"base_url": "http://127.0.0.1:1/v1"}}))
    (run / "traces.jsonl").write_text("".join(json.dumps(e) + "\n" for e in episodes))
    return run


def episode(name: str, *traces: dict, ok: bool = True) -> dict:
    data = {"name": name, "row_id": name, "slice_name": "repeat", "complexity_level": "L1"}
    return {"id": f"e-{name}", "env": {"id": "pico-dsl-v1"}, "ok": ok, "errors": [],
            "task": {"type": "PicoTask", "data": data}, "traces": list(traces)}


def test_traces_read_as_rows_with_rewards_metrics_and_task_data(tmp_path: Path) -> None:
    run = write_run(tmp_path, [episode("a", trace(1.0)), episode("b", trace(0.0))])
    assert find_runs([tmp_path])[0] == [run / "traces.jsonl"]
    results = read_results(run)
    assert [r.info["id"] for r in results.rows] == ["a", "b"]
    assert [r.metrics["exact_match"] for r in results.rows] == [1.0, 0.0]
    assert [r.metrics["reward"] for r in results.rows] == [1.0, 0.0]
    assert results.rows[0].metrics["format_valid"] == 1.0
    assert results.rows[0].info["slice_name"] == "repeat" and not results.rows[0].error
    assert results.metadata["env_id"] == "pico-dsl-v1" and results.metadata["model"] == "M"
    assert results.metadata["verifiers"] == "0.4.0" and results.metadata["time"] == 4.0
    assert results.provenance.behaviour_versions == ("1.0.0",)
    assert results.provenance.endpoint == "http://127.0.0.1:1/v1"


def test_a_failed_rollout_is_an_error_not_a_score(tmp_path: Path) -> None:
    failed = trace(0.0, ok=False, errors=({"type": "ModelError", "message": "endpoint down"},))
    run = write_run(tmp_path, [episode("a", trace(1.0)), episode("b", failed, ok=False)])
    rows = read_results(run).rows
    assert rows[0].error is None
    assert "endpoint down" in rows[1].error
    unnamed = write_run(tmp_path / "x", [episode("c", trace(0.0, ok=False))])
    assert read_results(unnamed).rows[0].error == "rollout not ok"


def test_a_run_of_another_environment_is_refused_by_an_environment_reader(tmp_path) -> None:
    from smol_envs_core.report.model import ReportError

    run = write_run(tmp_path, [episode("a", trace(1.0))])
    with pytest.raises(ReportError, match="is a pico-dsl-v1 run, not smolscript"):
        read_results(run, expect="smolscript")
