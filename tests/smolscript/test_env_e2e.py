"""End to end: `vf-eval smolscript --api-client-type openai_completions` against the local
SmolLM2-135M-Instruct server and the real scoring service, a few tasks of every language,
results saved with `-s`, then `smolscript report` over them; and a run whose scoring service
is down stops instead of scoring."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from smolscript import data
from smolscript.scorer import DECLARATION
from smolscript_sandbox.testing import TEST_URL, ensure_service

from tests.support.vf_eval import vf_eval

pytestmark = pytest.mark.e2e
BIN = Path(sys.executable).parent


def run_vf_eval(base_url: str, model: str, out: Path, env_args: dict
                ) -> subprocess.CompletedProcess:
    """`vf-eval smolscript` on raw completions, every selected task once, saved under `out`."""
    # The scoring service the test started (ensure_service at TEST_URL): without it, vf-eval
    # resolves the default URL and starts a second service of its own, which nobody stops.
    return vf_eval("smolscript", base_url, model, env_args, "--api-client-type",
                   "openai_completions", "-n", "-1", "-r", "1", "-c", "8", "-s", "-d",
                   "-o", str(out), env={"SMOLSCRIPT_SANDBOX_URL": TEST_URL}, timeout=900)


def test_vf_eval_completions_every_language(local_model_base_url, local_model_name, tmp_path):
    ensure_service()
    # 18 tasks; a 64-token budget override keeps generation short (the wiring is under test)
    run = run_vf_eval(local_model_base_url, local_model_name, tmp_path,
                      {"per_language": 2, "max_tokens": 64})
    assert run.returncode == 0, run.stderr[-3000:]
    results = list(tmp_path.rglob("results.jsonl"))
    assert len(results) == 1
    rows = [json.loads(line) for line in results[0].read_text().splitlines()]
    assert sorted({r["info"]["language"] for r in rows}) == sorted(data.LANGUAGE_ORDER)
    assert len(rows) == 2 * len(data.LANGUAGE_ORDER)
    for row in rows:
        info, metrics = row["info"], row["metrics"]
        assert set(DECLARATION.names) <= set(metrics)
        assert row["reward"] == metrics["passed"]
        assert "raw_completion" in info and "evaluated_code" in info
        assert info["template_id"] == "smolscript-completion-v1"
        assert info["max_tokens"] == 64 and info["budget_overridden"]
        assert info["verdict"]["passed"] == bool(metrics["passed"])
        if info["evaluated_code"] is not None and info["language"] != "html":
            # the prompt's header is part of what was evaluated (prefix + continuation),
            # unless the model wrote a complete definition from scratch
            assert info["assembly"]["mode"] in ("continuation", "fenced_body", "from_scratch",
                                                "markup")
    chart = tmp_path / "chart.png"
    report = subprocess.run([str(BIN / "smolscript"), "report", str(results[0]), "--chart",
                             str(chart)], capture_output=True, text=True, timeout=300)
    assert report.returncode == 0, report.stderr
    assert "filtered_macro_score" in report.stdout or "partial" in report.stdout
    assert chart.read_bytes()[:4] == b"\x89PNG"


def test_vf_eval_stops_when_the_scoring_service_is_down(local_model_base_url, local_model_name,
                                                         tmp_path):
    run = run_vf_eval(local_model_base_url, local_model_name, tmp_path,
                      {"languages": ["python"], "num_examples": 2,
                       "service_url": "http://127.0.0.1:9"})
    assert run.returncode != 0
    # one line naming the service (the rollouts run in the vf-eval process, as every other
    # environment's do), never a traceback
    [line] = [x for x in run.stderr.splitlines() if "infrastructure failure" in x]
    assert "http://127.0.0.1:9" in line and "python -m smolscript_sandbox start" in line, line
    assert "Traceback" not in run.stderr
    for results in tmp_path.rglob("results.jsonl"):
        assert results.read_text().strip() == ""  # nothing was scored as a model failure
