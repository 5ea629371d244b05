"""The vLLM tier (marker `vllm`, issue 41): every run of the quick suite through `smol-envs eval
FOLDER --engine vllm --limit 2 --judge FOLDER` against a real vLLM server that the command
starts and stops itself; the model judges smoltalkbench on the same vLLM server, so the judge's
label-bias ids come from vLLM's own /tokenize.

Needs a vLLM installation and a Hugging Face folder, named by
- SMOL_ENVS_VLLM_PYTHON: the python of a venv where `import vllm` works (README: Engines);
- SMOL_ENVS_VLLM_MODEL: a Hugging Face checkpoint folder (config.json, *.safetensors,
  tokenizer), e.g. the packaged SmolLM2 saved with transformers' `save_pretrained`.
Without them it is skipped, saying so (CI has neither). On 2 CPU cores: vLLM is ready in about
4 min cold and the suite runs for many more; run it alone (`pytest -m vllm -s`)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import psutil
import pytest
from smol_envs_core.evalrun import engines, suites
from smol_envs_core.evalrun.model import is_hf_folder
from smol_envs_core.evalrun.run import complete

REPO = Path(__file__).resolve().parents[2]
LIMIT = 2
PYTHON = os.environ.get(engines.VLLM_PYTHON_VAR)
MODEL = os.environ.get("SMOL_ENVS_VLLM_MODEL")

pytestmark = [
    pytest.mark.vllm,
    pytest.mark.skipif(not PYTHON, reason=f"no vLLM installation: set {engines.VLLM_PYTHON_VAR} "
                                          "to its python (README: Engines)"),
    pytest.mark.skipif(not MODEL or not is_hf_folder(Path(MODEL)),
                       reason="set SMOL_ENVS_VLLM_MODEL to a Hugging Face checkpoint folder"),
]


def _vllm_processes(port: str) -> list[int]:
    live = []
    for proc in psutil.process_iter(["cmdline"]):
        cmd = proc.info["cmdline"] or []
        if engines.VLLM_MODULE in cmd and port in cmd:
            live.append(proc.pid)
    return live


def test_the_quick_suite_runs_on_vllm_with_no_errored_row_and_stops_it(tmp_path):
    out = tmp_path / "runs"
    environ = {k: v for k, v in os.environ.items() if k != "SMOL_ENVS_DEBUG"}
    done = subprocess.run(
        [sys.executable, "-m", "smol_envs_core.cli", "eval", MODEL, "--engine", "vllm",
         "--vllm-python", PYTHON, "--suite", "quick", "--limit", str(LIMIT), "--judge", MODEL,
         "--output", str(out)],
        cwd=REPO, capture_output=True, text=True, timeout=5400, env={**environ, "CI": "1"})
    print(done.stdout)  # the summary table (pytest -s shows it)
    print(done.stderr[-4000:])
    assert done.returncode == 0, done.stderr[-3000:]
    record = json.loads((out / "manifest.json").read_text())
    version = engines.Vllm(Path(PYTHON)).version()
    assert record["engine"]["name"] == "vllm" and record["engine"]["version"] == version
    assert record["model"]["kind"] == "hf-folder" and record["model"]["folder"]
    assert record["judge"]["model"]["folder"] == record["model"]["folder"]
    assert record["ended"]
    assert set(record["runs"]) == {r.name for r in suites.RUNS}
    for run in suites.RUNS:
        assert complete(out / run.name), f"{run.name}: missing or errored rows"
        assert record["runs"][run.name]["rows"] == run.rows_for("quick", LIMIT)
    port = record["model"]["served_at"].rsplit(":", 1)[1].split("/")[0]
    assert _vllm_processes(port) == []
    assert not (engines.state_dir(int(port)) / "process.json").exists()
