"""The workspace's own `vf-eval` (verifiers 0.3.1) as the end-to-end tests run it: a real
subprocess against an OpenAI-compatible endpoint, and the run folder that `-s` saved."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

VF_EVAL = Path(sys.executable).parent / "vf-eval"
KEY_VAR = "SMOL_ENVS_LOCAL_API_KEY"  # the local server takes any key; vf-eval wants a variable


def vf_eval(env_id: str, base_url: str, model: str, env_args: dict, *options: str,
            env: dict[str, str] | None = None, cwd: Path | None = None,
            timeout: float = 600, program: Path = VF_EVAL) -> subprocess.CompletedProcess:
    """Run `vf-eval ENV_ID -b BASE_URL -k KEY_VAR -m MODEL -a JSON OPTIONS...` in `cwd`, output
    captured as text; its result, whatever the exit status. The environment is this process's
    without SMOL_ENVS_DEBUG (errors as users see them: one line), plus KEY_VAR and `env`;
    `program` is another venv's vf-eval (default: this interpreter's).

    Raises:
        subprocess.TimeoutExpired: the run took more than `timeout` seconds.
    """
    command = [str(program), env_id, "-b", base_url, "-k", KEY_VAR, "-m", model,
               "-a", json.dumps(env_args), *options]
    inherited = {k: v for k, v in os.environ.items() if k != "SMOL_ENVS_DEBUG"}
    return subprocess.run(command, capture_output=True, text=True, timeout=timeout, cwd=cwd,
                          env={**inherited, KEY_VAR: "EMPTY", **(env or {})})


def latest_run(out: Path, env_id: str) -> Path:
    """The newest run folder that `vf-eval ENV_ID -s -o OUT` saved (`OUT/evals/ENV_ID--MODEL/
    RUN`). Raises FileNotFoundError when there is none."""
    folders = sorted((out / "evals").glob(f"{env_id}--*/*"), key=os.path.getmtime)
    if not folders:
        raise FileNotFoundError(f"no {env_id} run under {out / 'evals'}")
    return folders[-1]
