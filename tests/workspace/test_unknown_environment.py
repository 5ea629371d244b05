"""`vf-eval` with a misspelled environment id: one line naming this collection's installed
environments, exit 1, instead of verifiers' 40-line traceback.

vf-eval is verifiers' own command; the line comes from the startup hook the core installs
(`smol_envs_core.pth` -> `smol_envs_core.vfeval_hook`), so these tests run the real vf-eval.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from smol_envs_core import vfeval_hook

REPO = Path(__file__).resolve().parents[2]
INSTALLED = ["pico-dsl-v1", "slm-eval", "smolscript", "smoltalkbench"]


def _vf_eval(*args: str, **env: str) -> subprocess.CompletedProcess:
    environ = {k: v for k, v in os.environ.items() if k != "SMOL_ENVS_DEBUG"}
    return subprocess.run(["uv", "run", "vf-eval", *args], cwd=REPO, capture_output=True,
                          text=True, timeout=300, env={**environ, "CI": "1", **env})


@pytest.mark.integration
def test_a_misspelled_id_is_one_line_naming_the_installed_environments():
    done = _vf_eval("pico-dsl", "-n", "1")
    assert done.returncode == 1
    assert "Traceback" not in done.stderr, done.stderr[-2000:]
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert lines[-1] == (
        "smol-envs: error: no environment 'pico-dsl' is installed (vf-eval looked for the "
        "module pico_dsl); this collection's: pico-dsl-v1, slm-eval, smolscript, "
        "smoltalkbench (did you mean pico-dsl-v1?)"), done.stderr[-2000:]
    assert len(lines) == 1, done.stderr[-2000:]


@pytest.mark.integration
def test_debugging_shows_verifiers_own_traceback():
    done = _vf_eval("pico-dsl", "-n", "1", SMOL_ENVS_DEBUG="1")
    assert done.returncode == 1
    assert "Traceback" in done.stderr and "Could not import 'pico-dsl'" in done.stderr


@pytest.mark.unit
def test_the_installed_environments_are_the_collections_entry_points():
    assert vfeval_hook.installed_environments() == INSTALLED


@pytest.mark.unit
def test_only_a_missing_environment_module_is_recognised():
    """A real environment whose own import fails on a missing dependency keeps its traceback:
    only the module vf-eval derived from the id counts as a misspelled id."""
    def vf_error(env_id: str, missing: str) -> ValueError:
        try:
            try:
                raise ModuleNotFoundError(f"No module named '{missing}'", name=missing)
            except ModuleNotFoundError as cause:
                raise ValueError(f"Could not import '{env_id}' environment. Ensure the package "
                                 f"for the '{env_id}' environment is installed.") from cause
        except ValueError as error:
            return error

    assert vfeval_hook.unknown_environment(vf_error("pico-dsl", "pico_dsl")) == "pico-dsl"
    assert vfeval_hook.unknown_environment(vf_error("me/pico-dsl", "pico_dsl")) == "me/pico-dsl"
    assert vfeval_hook.unknown_environment(vf_error("smolscript", "httpx")) is None
    assert vfeval_hook.unknown_environment(ValueError("Could not import 'x' environment.")) is None
    assert vfeval_hook.unknown_environment(RuntimeError("boom")) is None


@pytest.mark.unit
def test_the_line_suggests_only_close_names():
    assert vfeval_hook.message("smolscrpt", INSTALLED).endswith("(did you mean smolscript?)")
    assert vfeval_hook.message("gsm8k", INSTALLED).endswith("smoltalkbench")
    assert "(none installed)" in vfeval_hook.message("gsm8k", [])


@pytest.mark.unit
def test_the_requested_environment_is_vf_evals_first_argument():
    assert vfeval_hook.requested_environment(["vf-eval", "pico-dsl", "-n", "1"]) == "pico-dsl"
    assert vfeval_hook.requested_environment(["vf-eval", "--help"]) is None
    assert vfeval_hook.requested_environment(["vf-eval"]) is None
