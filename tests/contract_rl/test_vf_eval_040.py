"""Each v1 taskset through verifiers 0.4's own `vf-eval`, against the local model server.

0.4's `vf-eval` defaults to a hosted endpoint, the `bash` harness, a remote sandbox runtime and
an upload of the run; the command below (the one each environment README documents) keeps it
local and uploads nothing: `--client.base-url` / `--client.api-key-var` name the local server,
`--env.agent.harness.id null` and `--env.agent.runtime.type subprocess` run the taskset's own
loop here, `--no-push` uploads nothing (and `uv` must be on the PATH). A few rows each.
"""

from __future__ import annotations

import importlib
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.contract_rl import venv040

pytestmark = pytest.mark.e2e

KEY_VAR = "SMOL_ENVS_LOCAL_API_KEY"
ROWS = 2


def vf_eval_040(env_id: str, base_url: str, model: str, out: Path, *options: str
                ) -> subprocess.CompletedProcess:
    """Run 0.4's vf-eval on `env_id` (ROWS tasks, one at a time) with the local-only flags."""
    vf_eval = venv040.python().parent / "vf-eval"
    uv = shutil.which("uv")
    assert uv is not None, "0.4's vf-eval needs uv on the PATH"
    command = [str(vf_eval), env_id, "-m", model, "-n", str(ROWS), "-c", "1",
               "--client.base-url", base_url, "--client.api-key-var", KEY_VAR,
               "--env.agent.harness.id", "null", "--env.agent.runtime.type", "subprocess",
               "--no-push", "--sampling.max-tokens", "64", "-o", str(out), *options]
    env = {**venv040.environ(), KEY_VAR: "EMPTY", "PRIME_API_KEY": "",
           "PATH": f"{Path(uv).parent}{os.pathsep}{os.environ['PATH']}"}
    return subprocess.run(command, cwd=out, env=env, capture_output=True, text=True,
                          timeout=900)


def traces(out: Path) -> list[dict]:
    """Every trace of the run under `out` (traces.jsonl: one episode per line)."""
    (path,) = out.glob("*/traces.jsonl")
    return [t for line in path.read_text().splitlines() for t in json.loads(line)["traces"]]


def smolscript_options() -> tuple[str, ...]:
    from smolscript_sandbox.testing import TEST_URL, ensure_service

    ensure_service()
    return ("--env.taskset.task.service-url", TEST_URL)


def smoltalkbench_options(base_url: str, model: str) -> tuple[str, ...]:
    return ("--env.taskset.dataset", "fixture", "--env.taskset.task.judge-base-url", base_url,
            "--env.taskset.task.judge-api-key-var", KEY_VAR,
            "--env.taskset.task.judge-model", model, "--env.taskset.task.judge-max-retries", "1",
            # SmolLM2 puts a few percent on the labels: it needs the constrained re-ask
            "--env.taskset.task.judge-label-bias", "tokens")


@pytest.mark.parametrize("env_id, reward", [
    ("pico-dsl-v1", "exact_match"), ("smolscript", "passed"), ("smoltalkbench", "win_prob"),
])
def test_each_taskset_runs_under_vf_eval_040(env_id: str, reward: str, local_model_base_url: str,
                                             local_model_name: str, tmp_path: Path) -> None:
    options = {"pico-dsl-v1": (), "smolscript": (),
               "smoltalkbench": smoltalkbench_options(local_model_base_url, local_model_name)}
    extra = smolscript_options() if env_id == "smolscript" else options[env_id]
    done = vf_eval_040(env_id, local_model_base_url, local_model_name, tmp_path, *extra)
    assert done.returncode == 0, (done.stdout[-2000:], done.stderr[-3000:])
    seen = traces(tmp_path)
    print(f"\nverifiers 0.4 vf-eval {env_id} x{len(seen)}: " + ", ".join(
        f"ok={t['ok']} {reward}={(t['rewards'].get(reward) or {}).get('score')}" for t in seen))
    assert len(seen) == ROWS
    for trace in seen:
        assert trace["ok"], trace["errors"]
        assert list(trace["rewards"]) == [reward]
        assert 0.0 <= trace["rewards"][reward]["score"] <= 1.0
        assert trace["info"]["behaviour_version"] == importlib.import_module(
            env_id.replace("-", "_") + ".scorer").BEHAVIOUR_VERSION


def test_smol_slm_eval_refuses_under_vf_eval_040(local_model_base_url: str,
                                                 local_model_name: str, tmp_path: Path) -> None:
    """smol-slm-eval is evaluation-only and exports a refusing taskset: 0.4's vf-eval stops, naming
    the reason, instead of running benchmark rows as a taskset."""
    done = vf_eval_040("smol-slm-eval", local_model_base_url, local_model_name, tmp_path)
    assert done.returncode != 0
    assert "evaluation-only" in (done.stdout + done.stderr).lower()
