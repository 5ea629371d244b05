"""`vf-eval` with a misspelled environment id: one line naming this collection's installed
environments, exit 1, instead of verifiers' 40-line traceback.

vf-eval is verifiers' own command; the line comes from the startup hook the core installs
(`smol_envs_core.pth` -> `smol_envs_core.adapters.vfeval_hook`), so these tests run the
real vf-eval.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from smol_envs_core.adapters import vfeval_hook

REPO = Path(__file__).resolve().parents[2]
INSTALLED = ["pico-dsl-v1", "smol-slm-eval", "smolscript", "smoltalkbench"]


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
        "module pico_dsl); this collection's: pico-dsl-v1, smol-slm-eval, smolscript, "
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


RENAMED_LINE = ("smol-envs: error: the environment 'slm-eval' is now 'smol-slm-eval': run "
                "vf-eval smol-slm-eval with the same arguments (its README says why it was "
                "renamed)")


@pytest.mark.integration
def test_the_former_slm_eval_id_names_the_new_one():
    """`vf-eval slm-eval` (the id before smol-slm-eval 0.3.0): one line naming the new id."""
    done = _vf_eval("slm-eval", "-n", "1")
    assert done.returncode == 1
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert lines == [RENAMED_LINE], done.stderr[-2000:]


@pytest.mark.unit
def test_the_renamed_ids_are_the_collections_entry_points():
    from smol_envs_core.env_ids import canonical_key, renamed_environments

    assert renamed_environments() == {"slm-eval": "smol-slm-eval"}
    assert canonical_key("slm_eval") == canonical_key("slm-eval") == "smol-slm-eval"
    assert canonical_key("pico_dsl_v1") == "pico-dsl-v1"


@pytest.mark.unit
def test_a_former_id_is_recognised_whatever_vf_eval_failed_with():
    """Without the namesake (the module is missing) and with it: PyPI's slm-eval installs a
    module `slm_eval` without `load_environment`, and verifiers 0.3.1 raises a RuntimeError."""
    try:
        raise ValueError("Could not import 'slm-eval' environment. Ensure the package for the "
                         "'slm-eval' environment is installed.") from ModuleNotFoundError(
            "No module named 'slm_eval'", name="slm_eval")
    except ValueError as error:
        missing = error
    namesake = RuntimeError("Failed to load environment 'slm-eval': Module 'slm_eval' does not "
                            "expose load_environment.")
    assert vfeval_hook.unknown_environment_line(missing) == RENAMED_LINE
    assert vfeval_hook.unknown_environment_line(namesake) == RENAMED_LINE
    assert vfeval_hook.unknown_environment_line(RuntimeError(
        "Failed to load environment 'pico-dsl-v1': boom")) is None  # a real failure: traceback
    assert vfeval_hook.renamed_line("slm_eval", {"slm-eval": "smol-slm-eval"}) == (
        RENAMED_LINE.replace("'slm-eval' is", "'slm_eval' is"))
