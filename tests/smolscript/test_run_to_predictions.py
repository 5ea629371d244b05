"""`scripts/smolscript_run_to_predictions.py`: a vf-eval run's evaluated code becomes predictions
that `smolscript evaluate` assembles back to the very same code, on the real packaged edition."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest
from smolscript.assemble import assemble_completion, assemble_prediction, body_of_reference
from smolscript.data import load_references, load_tasks

pytestmark = pytest.mark.unit

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "smolscript_run_to_predictions.py"


@pytest.fixture(scope="module")
def script():
    spec = importlib.util.spec_from_file_location("_run_to_predictions", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def _row(task_id: str, code: str | None, status: str = "wrong_answer",
         syntax_ok: bool = True) -> dict:
    return {"info": {"id": task_id, "evaluated_code": code,
                     "verdict": {"status": status, "syntax_ok": syntax_ok, "passed": False}}}


def test_every_reference_continuation_round_trips(script):
    tasks = load_tasks("default")
    refs = load_references("default")
    rows = [_row(t["id"], assemble_completion(
        t, body_of_reference(t, refs[t["id"]]["reference_solution"])).code) for t in tasks]
    predictions, problems, equivalent = script.to_predictions(rows[::-1], "default-0.3.0")
    assert problems == [] and equivalent == []
    assert [p["id"] for p in predictions] == [t["id"] for t in tasks]  # dataset order
    by_id = {t["id"]: t for t in tasks}
    for line, row in zip(predictions, rows, strict=True):
        assert assemble_prediction(by_id[line["id"]], line["code"]).code \
            == row["info"]["evaluated_code"]


def test_rejected_and_fence_failures_stay_failures(script):
    py = next(t for t in load_tasks("default") if t["language"] == "python")
    html = next(t for t in load_tasks("default") if t["language"] == "html")
    fenced = "def solve(xs):\nreturn 1\n```\n"
    assert assemble_prediction(py, fenced).code is None  # the case the exception is for
    rows = [_row(py["id"], fenced, "compile_error", False), _row(html["id"], None)]
    predictions, problems, equivalent = script.to_predictions(rows, "default")
    assert problems == [] and equivalent == [py["id"]]
    rejected = next(p for p in predictions if p["id"] == html["id"])
    assert assemble_prediction(html, rejected["code"]).code is None


def test_code_that_would_change_is_refused(script, tmp_path):
    py = next(t for t in load_tasks("default") if t["language"] == "python")
    fenced = "def solve(xs):\nreturn 1\n```\n"
    rows = [_row(py["id"], fenced, "wrong_answer", True),  # compiled in the run: not equivalent
            _row(py["id"], "x"), _row("python-nonexistent", "x")]
    _, problems, _ = script.to_predictions(rows, "default")
    assert problems == [f"{py['id']}: prediction would assemble to different code",
                        f"{py['id']}: more than one rollout",
                        "python-nonexistent: not a task of edition default"]
    run = tmp_path / "results.jsonl"
    run.write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = tmp_path / "predictions.jsonl"
    assert script.main([str(tmp_path), "--output", str(out)]) == 2
    assert not out.exists()
