"""`smol-envs eval --resume` (issue 41): only the missing or errored rows of a run are run again,
kept rows are never rescored, and the merged folder reads as one run made in one go; a resume
across a behaviour version or selection change is refused. The e2e tests run the real command
against a real local model server of this module's own and count the requests its log records
(the shared server's other users, such as the other xdist worker, would add to the count)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from smol_envs_core.adapters.resume_guard import refuse_mixed_resume
from smol_envs_core.errors import SmolEnvsError
from smol_envs_core.evalrun import resume
from smol_envs_core.report import report_runs
from smol_envs_core.server import serve

from tests.core.evalrun.test_eval_command import REPO, _eval
from tests.support.model_server import port_of

RUN = "smol-slm-eval-arc_easy"
MODEL_ID = "SmolLM2-135M-Instruct"


def _rows(folder: Path) -> list[dict]:
    return [json.loads(line) for line in (folder / "results.jsonl").read_text().splitlines()]


def _write_rows(folder: Path, rows: list[dict]) -> None:
    (folder / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))


def _requests(base_url: str) -> int:
    """Model requests (POST lines) the server's log holds so far."""
    log = serve.state_dir(port_of(base_url)) / "server.log"
    return sum(" request POST " in line for line in log.read_text(errors="replace").splitlines())


def _counted_eval(base_url: str, out: Path, *extra: str):
    before = _requests(base_url)
    done = _eval(base_url, "--model-id", MODEL_ID, "--env", RUN, "--limit", "4", "--output",
                 str(out), *extra)
    return done, _requests(base_url) - before


def _timeless(row: dict) -> dict:
    return {k: v for k, v in row.items() if k != "timing"}


@pytest.mark.e2e
def test_resume_runs_only_the_missing_and_errored_rows_and_reads_as_one_run(
        own_model_base_url, tmp_path):
    straight, whole = tmp_path / "straight", tmp_path / "resumed"
    done, straight_requests = _counted_eval(own_model_base_url, straight)
    assert done.returncode == 0, done.stderr[-3000:]
    rows = _rows(straight / RUN)
    assert [r["example_id"] for r in rows] == [0, 1, 2, 3]
    # The same run, cut short: row 3 never saved, row 1's rollout failed on infrastructure.
    shutil.copytree(straight, whole)
    cut = [dict(r, error="ModelError -> APIConnectionError: Connection error.")
           if r["example_id"] == 1 else r for r in rows if r["example_id"] != 3]
    _write_rows(whole / RUN, cut)
    assert not resume.complete(whole / RUN)

    done, resumed_requests = _counted_eval(own_model_base_url, whole, "--resume")
    assert done.returncode == 0, done.stderr[-3000:]
    assert f"{RUN}: 2 row(s) kept, 2 to run (1 errored)" in done.stderr
    # The two kept rows cost no request; the two rerun cost what two rows of the straight run
    # did (the same per-process probe, then one request per row).
    assert straight_requests - resumed_requests == 2, (straight_requests, resumed_requests)
    merged = _rows(whole / RUN)
    assert [_timeless(r) for r in merged] == [_timeless(r) for r in rows]
    assert merged[0]["timing"] == rows[0]["timing"]  # kept as saved, not rescored
    meta, meta_straight = (json.loads((f / RUN / "metadata.json").read_text())
                           for f in (whole, straight))
    for key in ("num_examples", "rollouts_per_example", "behaviour_version", "env_args"):
        assert meta[key] == meta_straight[key], key
    assert meta["avg_reward"] == pytest.approx(meta_straight["avg_reward"])
    assert meta["avg_metrics"] == pytest.approx(meta_straight["avg_metrics"])
    assert meta["smol_envs_eval"]["rows"] == 4 and resume.complete(whole / RUN)
    assert meta["smol_envs_eval"]["resumed"] == {"kept_rows": 2}
    a, b = report_runs([straight / RUN])[0], report_runs([whole / RUN])[0]
    assert [s.estimate.text() for s in a.body.leaderboard] == \
        [s.estimate.text() for s in b.body.leaderboard]

    # Nothing left to run: a second resume sends no request.
    done, again = _counted_eval(own_model_base_url, whole, "--resume")
    assert done.returncode == 0 and "1 complete run(s) kept" in done.stderr and again == 0


@pytest.mark.e2e
def test_resume_across_a_behaviour_version_change_is_refused_in_one_line(
        own_model_base_url, tmp_path):
    out = tmp_path / "runs"
    done, _ = _counted_eval(own_model_base_url, out)
    assert done.returncode == 0, done.stderr[-3000:]
    folder = out / RUN
    rows = _rows(folder)[:2]
    for row in rows:  # scored under an older definition
        row["info"]["behaviour_version"] = "0.9.0"
    _write_rows(folder, rows)
    meta = json.loads((folder / "metadata.json").read_text())
    now = meta["behaviour_version"]
    (folder / "metadata.json").write_text(json.dumps({**meta, "behaviour_version": "0.9.0"}))

    done, requests = _counted_eval(own_model_base_url, out, "--resume")
    assert done.returncode == 2, done.stderr[-3000:]
    last = [line for line in done.stderr.splitlines() if line.strip()][-1]
    assert last == (f"smol-envs eval: error: --resume: cannot resume {folder}: its rows were "
                    f"scored under behaviour version 0.9.0, the environment is now at {now} "
                    "(mixing would pool two definitions); rerun it whole into another folder")
    assert "Traceback" not in done.stderr and requests == 0
    assert _rows(folder) == rows  # the saved rows are left as they were


def _run_folder(folder: Path, rows: list[dict], num_examples: int, **block) -> Path:
    folder.mkdir(parents=True)
    _write_rows(folder, rows)
    meta = {"env_id": "x", "num_examples": num_examples, "rollouts_per_example": 1,
            resume.EVAL_KEY: {"selection": {"env_args": {}, "rows": num_examples}, **block}}
    (folder / "metadata.json").write_text(json.dumps(meta))
    return folder


def _row(example_id: int, **extra) -> dict:
    return {"example_id": example_id, "reward": 1.0, "error": None, "metrics": {}, **extra}


@pytest.mark.unit
def test_a_run_is_complete_only_with_every_row_and_none_errored(tmp_path):
    assert resume.complete(_run_folder(tmp_path / "a", [_row(0), _row(1)], 2))
    assert not resume.complete(_run_folder(tmp_path / "b", [_row(0)], 2))
    assert not resume.complete(_run_folder(tmp_path / "c", [_row(0), _row(1, error="x")], 2))
    judged = _row(1, metrics={"judge_error": 1.0})
    assert not resume.complete(_run_folder(tmp_path / "d", [_row(0), judged], 2))
    assert not resume.complete(_run_folder(tmp_path / "e", [_row(0), _row(1)], 2,
                                           complete=False))


@pytest.mark.unit
def test_kept_rows_come_from_the_run_and_its_failed_part_without_errored_ones(tmp_path):
    _run_folder(tmp_path / "r", [_row(2), _row(0, error="boom")], 5, complete=False)
    _run_folder(tmp_path / "r-FAILED", [_row(0), _row(2), _row(3, metrics={"judge_error": 1})],
                5)
    saved = resume.saved_run(tmp_path, "r")
    assert [r["example_id"] for r in saved.kept] == [0, 2]
    assert (saved.dropped, saved.missing) == (2, 3)
    assert resume.saved_run(tmp_path, "other") is None


@pytest.mark.unit
def test_rows_of_another_selection_are_refused(tmp_path):
    _run_folder(tmp_path / "r", [_row(0)], 4)
    saved = resume.saved_run(tmp_path, "r")
    resume.check_selection(saved, {"env_args": {}, "rows": 4}, tmp_path / "r")
    with pytest.raises(SmolEnvsError, match=r"rows differ: saved .*'rows': 4.*'rows': 10"):
        resume.check_selection(saved, {"env_args": {}, "rows": 10}, tmp_path / "r")


@pytest.mark.unit
def test_the_policy_refuses_to_resume_rows_of_another_version_or_dataset(tmp_path):
    folder = _run_folder(tmp_path / "r", [_row(0, info={"dataset_sha256": "aa"})], 2)
    meta = json.loads((folder / "metadata.json").read_text())
    (folder / "metadata.json").write_text(json.dumps({**meta, "behaviour_version": "1.0.0"}))
    inputs = [{"example_id": i, "info": json.dumps({"dataset_sha256": "aa"})} for i in (0, 1)]
    refuse_mixed_resume(folder, "1.0.0", inputs)  # the same definition: resumed
    refuse_mixed_resume(tmp_path / "fresh", "2.0.0", inputs)  # nothing saved: a fresh run
    with pytest.raises(SmolEnvsError, match="behaviour version 1.0.0, the environment is now "
                                            "at 2.0.0"):
        refuse_mixed_resume(folder, "2.0.0", inputs)
    rebuilt = [{**i, "info": {"dataset_sha256": "bb"}} for i in inputs]
    with pytest.raises(SmolEnvsError, match="rows are of dataset aa, the environment now "
                                            "loads bb"):
        refuse_mixed_resume(folder, "1.0.0", rebuilt)


@pytest.mark.e2e
def test_a_run_cut_by_ctrl_c_keeps_its_rows_and_resume_runs_only_the_rest(tmp_path):
    out, limit = tmp_path / "runs", 10
    command = [sys.executable, "-m", "smol_envs_core.cli", "eval", "smollm2-135m", "--env", RUN,
               "--limit", str(limit), "--output", str(out)]
    environ = {k: v for k, v in os.environ.items() if k != "SMOL_ENVS_DEBUG"}
    proc = subprocess.Popen(command, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env={**environ, "CI": "1"})
    deadline = time.monotonic() + 600
    while time.monotonic() < deadline and proc.poll() is None and not any(
            p.stat().st_size for p in (out / ".partial").rglob("results.jsonl")):
        time.sleep(0.1)
    proc.send_signal(signal.SIGINT)  # the first row is saved, the others are under way
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err[-3000:]
    kept = _rows(out / RUN)
    assert 1 <= len(kept) < limit, len(kept)
    meta = json.loads((out / RUN / "metadata.json").read_text())
    assert meta["smol_envs_eval"]["complete"] is False and not resume.complete(out / RUN)
    last = [line for line in err.splitlines() if line.strip()][-1]
    assert f"and {len(kept)} row(s) of {RUN}; stopped model server" in last, last

    done = subprocess.run([*command, "--resume"], cwd=REPO, capture_output=True, text=True,
                          timeout=900, env={**environ, "CI": "1"})
    assert done.returncode == 0, done.stderr[-3000:]
    assert f"{RUN}: {len(kept)} row(s) kept, {limit - len(kept)} to run" in done.stderr
    merged = _rows(out / RUN)
    assert [r["example_id"] for r in merged] == list(range(limit))
    by_id = {r["example_id"]: r for r in merged}
    assert all(by_id[r["example_id"]] == r for r in kept)  # kept as saved, never rescored
    assert resume.complete(out / RUN)
