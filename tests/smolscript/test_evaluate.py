"""Predictions evaluator: checkpoints, resume checks, file lock, interruption, infra stop.

These tests drive the real evaluator over a small edition written to a temporary folder and
a test double of the scoring client that runs the job's Python file unsandboxed (the real bwrap
service is exercised in test_evaluate_service.py).
"""

from __future__ import annotations

import asyncio
import io
import json
from contextlib import redirect_stdout
from unittest import mock

import pytest
from filelock import FileLock
from smolscript import cli, report
from smolscript.evaluate import EvaluationError, InfraStop, evaluate_predictions
from smolscript.types import encode_stdin
from smolscript_sandbox.errors import SandboxInfraError
from smolscript_sandbox.verdict import normalize_stdout

from tests.support.smolscript_edition import INT_SIGNATURE, adder_tasks, write_edition

pytestmark = pytest.mark.unit

N = 6


@pytest.fixture
def edition(tmp_path, monkeypatch):
    refs = write_edition(tmp_path / "data", adder_tasks(N))
    monkeypatch.setenv("SMOLSCRIPT_DATA_DIR", str(tmp_path / "data"))
    preds = tmp_path / "preds.jsonl"
    preds.write_text("".join(json.dumps({"id": r["id"], "code": r["reference_solution"]}) + "\n"
                             for r in refs))
    return tmp_path, preds


class InProcessPython:
    """Test double of SandboxClient: runs the job's harnessed main.py in-process (stdin and
    stdout redirected), unsandboxed."""

    def __init__(self, fail_at: int | None = None):
        self.calls = 0
        self.fail_at = fail_at

    async def __aenter__(self):
        return self

    async def __aexit__(self, *exc):
        return None

    async def run_program_job(self, job):
        await asyncio.sleep(0)  # a real client yields to the event loop while it waits
        self.calls += 1
        if self.calls == self.fail_at:
            raise SandboxInfraError("slot died")
        tests = []
        for test in job.tests:  # trusted test sources only
            out = io.StringIO()
            with mock.patch("sys.stdin", io.StringIO(test.stdin)), redirect_stdout(out):
                exec(job.files["main.py"], {"__name__": "__main__"})  # noqa: S102
            tests.append({"status": "ok", "stdout": normalize_stdout(out.getvalue()),
                          "stderr": "", "exit_code": 0, "time_s": 0.01})
        return {"status": "ok", "compile": {"status": "ok"}, "tests": tests}


def run(preds, out, client, **kw):
    return evaluate_predictions(preds, out, client_factory=lambda: client, **kw)


def test_references_score_100_with_tests_kept(edition):
    tmp, preds = edition
    doc = run(preds, tmp / "r.json", InProcessPython(), languages=["python"])
    assert doc["status"] == "complete"
    assert doc["summary"]["filtered_macro_score"] == 100.0
    assert doc["summary"]["smolscript_score"] is None  # one language: never the official score
    first = doc["results"]["python-easy-001"]
    assert first["passed"] and len(first["tests"]) == 3
    assert first["tests"][2] == {**first["tests"][2], "stdout": "3", "expected": "3"}
    assert encode_stdin([2], INT_SIGNATURE) == "2\n"


def test_existing_output_requires_resume_and_matching_settings(edition):
    tmp, preds = edition
    out = tmp / "r.json"
    run(preds, out, InProcessPython(), languages=["python"])
    with pytest.raises(EvaluationError, match="--resume"):
        run(preds, out, InProcessPython(), languages=["python"])
    with pytest.raises(EvaluationError, match="differ"):
        run(preds, out, InProcessPython(), languages=["python"], difficulties=["easy"],
            resume=True)
    client = InProcessPython()
    run(preds, out, client, languages=["python"], resume=True)
    assert client.calls == 0  # everything was already scored


def test_interrupted_run_resumes_to_the_same_results(edition):
    tmp, preds = edition
    out = tmp / "r.json"

    def ctrl_c_after_three(done, _total):
        if done == 3:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run(preds, out, InProcessPython(), languages=["python"], concurrency=1,
            progress=ctrl_c_after_three)
    partial = json.loads(out.read_text())
    assert partial["status"] == "partial" and partial["summary"] is None
    assert len(partial["results"]) == 3
    client = InProcessPython()
    resumed = run(preds, out, client, languages=["python"], resume=True, concurrency=1)
    assert client.calls == N - 3
    straight = run(preds, tmp / "s.json", InProcessPython(), languages=["python"], concurrency=4)
    assert resumed["results"] == straight["results"]
    assert resumed["summary"] == straight["summary"]


def test_infra_error_stops_the_run_without_a_score(edition):
    tmp, preds = edition
    out = tmp / "r.json"
    with pytest.raises(InfraStop, match="no score"):
        run(preds, out, InProcessPython(fail_at=3), languages=["python"], concurrency=1)
    doc = json.loads(out.read_text())
    assert doc["status"] == "stopped" and doc["summary"] is None
    assert "slot died" in doc["error"]
    assert "python-easy-002" not in doc["results"] and len(doc["results"]) < N


def test_an_infra_stop_counts_only_the_tasks_it_scored(edition):
    """The first three tasks have no prediction (recorded at once, never sent); the scorer
    fails on the first task it is sent: nothing was scored, and the stop line says so."""
    tmp, preds = edition
    last_three = tmp / "last_three.jsonl"
    last_three.write_text("".join(preds.read_text().splitlines(keepends=True)[3:]))
    with pytest.raises(InfraStop) as stop:
        run(last_three, tmp / "r.json", InProcessPython(fail_at=1), languages=["python"],
            concurrency=1)
    assert str(stop.value).startswith(
        f"stopped on an infrastructure error (no score given): 0 of {N} selected tasks scored, "
        f"3 without a prediction (never sent), {N - 3} not scored: ")
    doc = json.loads((tmp / "r.json").read_text())
    assert doc["status"] == "stopped" and doc["summary"] is None
    assert {r["status"] for r in doc["results"].values()} == {report.MISSING_PREDICTION}


def test_one_process_per_output(edition):
    tmp, preds = edition
    out = tmp / "r.json"
    with FileLock(str(out) + ".lock"), pytest.raises(EvaluationError, match="another process"):
        run(preds, out, InProcessPython(), languages=["python"])


def test_bad_predictions_are_refused(edition):
    tmp, _preds = edition
    bad = tmp / "bad.jsonl"
    bad.write_text('{"id": "nope", "code": "x"}\n')
    with pytest.raises(EvaluationError, match="not in edition"):
        run(bad, tmp / "r.json", InProcessPython(), languages=["python"])
    bad.write_text('{"id": "python-easy-000"}\n')
    with pytest.raises(EvaluationError, match="expected"):
        run(bad, tmp / "r.json", InProcessPython(), languages=["python"])


def test_missing_predictions_are_counted_and_withhold_the_score(edition):
    tmp, preds = edition
    some = tmp / "some.jsonl"
    some.write_text("".join(preds.read_text().splitlines(keepends=True)[:2]))
    doc = run(some, tmp / "r.json", InProcessPython(), languages=["python"])
    summary = doc["summary"]
    assert doc["results"]["python-easy-005"]["status"] == "missing_prediction"
    assert summary["missing_predictions"] == N - 2 and summary["tasks_missing"] == N - 2
    assert summary["tasks_scored"] == 2 and not summary["complete"]
    assert summary["filtered_macro_score"] is None and summary["smolscript_score"] is None
    assert summary["status"] == f"partial: {N - 2} task(s) missing, no score"
    assert summary["partial_macro_over_scored"] == pytest.approx(100.0)  # the two given pass
    assert report.missing_line(summary) == (
        f"{N - 2} of {N} selected tasks missing ({N - 2} without a prediction): partial run, "
        "the score is withheld")
    assert json.loads((tmp / "r.json").read_text())["summary"] == summary


def test_the_cli_prints_what_the_json_says_about_missing_predictions(edition, capsys):
    tmp, preds = edition
    some = tmp / "some.jsonl"
    some.write_text("".join(preds.read_text().splitlines(keepends=True)[:3]))
    run(some, tmp / "r.json", InProcessPython(), languages=["python"])
    assert cli.main(["report", str(tmp / "r.json"), "--chart", str(tmp / "c.png")]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert f"partial: {N - 3} task(s) missing, no score" in out
    assert f"{N - 3} of {N} selected tasks missing ({N - 3} without a prediction)" in out
    assert "SmolScript Score" not in out and "(official)" not in out
