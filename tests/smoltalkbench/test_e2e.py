"""End to end: `vf-eval smoltalkbench` on the fixture, SmolLM2 as model and judge, then report."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from smol_envs_core.adapters.reasoning import split_reasoning
from smoltalkbench import cli, data, judge
from smoltalkbench.env import METRICS

pytestmark = pytest.mark.e2e

REPO = Path(__file__).resolve().parents[2]
ROWS = 6  # three per group: the run's cost is dominated by judge prompts on the shared CPU


def fixture_subset(path: Path) -> Path:
    """The packaged fixture's first three rows of each group, as a local .jsonl benchmark."""
    lines = data.fixture_path().read_text(encoding="utf-8").splitlines()
    groups = {"everyday": [], "school": []}
    for line in lines:
        groups[json.loads(line)["group"]].append(line)
    path.write_text("\n".join(groups["everyday"][:3] + groups["school"][:3]) + "\n")
    return path


def test_vf_eval_fixture_with_local_model_as_judge(
    local_model_base_url, local_model_name, tmp_path, capsys, monkeypatch
):
    # The local server computes one request at a time: queueing judge calls there only lets
    # them time out (measured under load), so the judge goes one call at a time.
    env_args = {
        "dataset": str(fixture_subset(tmp_path / "fixture6.jsonl")),
        "judge_model": local_model_name,
        "judge_base_url": local_model_base_url,
        "judge_api_key_var": "",
        "judge_max_concurrent": 1,
        "judge_timeout_s": 120,
        "judge_label_bias": "tokens",  # SmolLM2 puts a few percent on the labels: constrain it
    }
    vf_eval = str(Path(sys.executable).parent / "vf-eval")
    command = [vf_eval, "smoltalkbench", "-m", local_model_name, "-b", local_model_base_url]
    command += ["-k", "SMOLTALKBENCH_MODEL_KEY", "-n", str(ROWS), "-r", "1", "-t", "40"]
    command += ["-c", "4", "-s", "-C", "judge", "-d", "-o", str(tmp_path / "out")]
    command += ["-a", json.dumps(env_args)]
    run = subprocess.run(
        command,
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=420,
        env={**os.environ, "SMOLTALKBENCH_MODEL_KEY": "EMPTY"},
    )
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]

    (results,) = (tmp_path / "out").rglob("results.jsonl")
    assert (results.parent / "metadata.json").is_file()
    saved = [json.loads(line) for line in results.read_text().splitlines()]
    assert len(saved) == ROWS
    assert sorted(row["info"]["group"] for row in saved) == ["everyday"] * 3 + ["school"] * 3
    # A model-side failure (server gone) would be recorded as judge_error, but it is no e2e run.
    assert [row.get("error") for row in saved] == [None] * ROWS
    for row in saved:
        for metric in METRICS:
            assert metric.__name__ in row, metric.__name__
        assert row["judge"]["reason"]
        assert row["reward"] == row["win_prob"]
        # The length rule counts the answer as the judge saw it (trace off, neutralised).
        answer = split_reasoning(row["completion"][-1]["content"]).answer or ""
        instruction = row["prompt"][-1]["content"]
        seen = judge.neutralize(answer.strip(), judge.fence_tag(instruction))
        assert row["reply_chars"] == (len(seen) if seen.strip() else 0)

    monkeypatch.setenv("COLUMNS", "150")
    assert cli.main([str(results)]) == 0
    printed = capsys.readouterr().out
    judged = sum(1 for row in saved if not row["judge_error"])
    assert f"{judged} / {ROWS}" in printed and "by category" in printed
    assert (results.parent / "smoltalkbench_report.png").is_file()
    with capsys.disabled():  # show the run's report in the test log
        print(f"\nresults: {results}\n{printed}")
