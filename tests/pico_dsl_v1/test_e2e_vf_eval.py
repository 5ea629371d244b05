"""End to end: `vf-eval pico-dsl-v1` against the real local SmolLM2-135M-Instruct server."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from pico_dsl_v1.metrics import METRIC_NAMES
from pico_dsl_v1.scorer import BEHAVIOUR_VERSION

pytestmark = pytest.mark.e2e


def test_vf_eval_saves_every_metric(
    tmp_path: Path, local_model_base_url: str, local_model_name: str
) -> None:
    vf_eval = Path(sys.executable).parent / "vf-eval"
    command = [
        str(vf_eval), "pico-dsl-v1", "-b", local_model_base_url, "-k", "SMOL_ENVS_LOCAL_API_KEY",
        "-m", local_model_name, "-n", "12", "-r", "1", "-t", "96", "-T", "0", "-s", "-d",
        "-o", str(tmp_path),
    ]  # fmt: skip
    result = subprocess.run(
        command, capture_output=True, text=True, timeout=590, env={**os.environ, "CI": "1"}
    )
    assert result.returncode == 0, result.stderr[-3000:]
    [results] = list(tmp_path.rglob("results.jsonl"))
    metadata = json.loads((results.parent / "metadata.json").read_text())
    rows = [json.loads(line) for line in results.read_text().splitlines() if line.strip()]
    assert len(rows) == 12
    expected = {*METRIC_NAMES, "empty_response"}
    for row in rows:
        assert expected <= set(row["metrics"]), set(row["metrics"]) ^ expected
        assert row["error"] is None
        assert row["reward"] == row["metrics"]["exact_match"]
        assert all(0.0 <= row["metrics"][name] <= 1.0 for name in expected)
        assert row["info"]["behaviour_version"] == BEHAVIOUR_VERSION  # which scoring made it
    assert {row["info"]["slice"] for row in rows} == {
        "copy_case", "punctuation", "deletion", "repeat", "noop_suffix", "composite",
    }  # fmt: skip
    assert expected <= set(metadata["avg_metrics"])
    assert metadata["behaviour_version"] == BEHAVIOUR_VERSION
    run = metadata["run"]  # when, how and where (issue 44): the report shows it, not a file time
    assert run["started_at"] < run["ended_at"] and run["command"].split()[0].endswith("vf-eval")
    assert run["machine"]["cores"] >= 1 and len(run["machine"]["load_average"]) == 3
    summary = {name: round(metadata["avg_metrics"][name], 3) for name in sorted(expected)}
    print("vf-eval pico-dsl-v1 SmolLM2-135M-Instruct n=12:", json.dumps(summary))
