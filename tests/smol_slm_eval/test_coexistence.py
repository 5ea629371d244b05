"""smol-slm-eval and PyPI's slm-eval 0.0.1 (the seed's suite, module `slm_eval`) in one virtual
environment: the reason for the rename to smol-slm-eval, checked for real.

A fresh venv gets our wheel and the core's (built here, installed with their published
dependencies) and PyPI's `slm-eval==0.0.1` without its dependencies (importing `slm_eval` needs
none; its evaluator is not run here). Then, inside that venv: both distributions are installed
with no file in common, both modules import from the venv with their own versions, verifiers
0.3.1's loader finds our environment by its id, and `vf-eval slm-eval` (which now imports the
namesake's module) ends with the one line naming the new id.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration

REPO = Path(__file__).resolve().parents[2]
PACKAGE = REPO / "environments" / "smol_slm_eval"
CORE = REPO / "packages" / "smol_envs_core"
TINY_ARC = REPO / "tests" / "support" / "data" / "arc_easy_tiny.jsonl"
PEER = "slm-eval==0.0.1"
# Run inside the venv: what is installed, where each module comes from, and verifiers' loader.
CHECK = """
import importlib.metadata as md, json, sys
import slm_eval, smol_slm_eval
from verifiers.legacy.utils.env_utils import load_environment
env = load_environment("smol-slm-eval", task="arc_easy", data_path=sys.argv[1])
files = {name: sorted(str(f) for f in md.files(name)) for name in ("slm-eval", "smol-slm-eval")}
print(json.dumps({
    "versions": {name: md.version(name) for name in files},
    "peer_version": slm_eval.__version__,
    "modules": [slm_eval.__file__, smol_slm_eval.__file__],
    "shared_files": sorted(set(files["slm-eval"]) & set(files["smol-slm-eval"])),
    "rows": len(env.get_eval_dataset()),
    "env_module": type(env).__module__,
}))
"""


@pytest.fixture(scope="module")
def venv(tmp_path_factory) -> Path:
    """The venv holding both distributions; its folder."""
    uv = shutil.which("uv")
    assert uv, "uv is needed to build and install the wheels"
    root = tmp_path_factory.mktemp("coexistence")
    dist, venv = root / "dist", root / "venv"
    env = {**os.environ, "UV_PYTHON_DOWNLOADS": "never"}
    for package in (PACKAGE, CORE):
        subprocess.run([uv, "build", "-q", "--wheel", "--out-dir", str(dist), str(package)],
                       check=True, timeout=300, env=env)
    python = venv / "bin" / "python"
    steps = ([uv, "venv", "-q", "--python", sys.executable, str(venv)],
             [uv, "pip", "install", "-q", "--python", str(python),
              *map(str, sorted(dist.glob("*.whl"))), "verifiers==0.3.1"],  # classic vf-eval
             [uv, "pip", "install", "-q", "--python", str(python), "--no-deps", PEER])
    for step in steps:
        done = subprocess.run(step, capture_output=True, text=True, timeout=900, env=env)
        assert done.returncode == 0, f"{' '.join(step)}:\n{done.stderr[-3000:]}"
    return venv


def venv_environ(venv: Path) -> dict[str, str]:
    """This process's environment without the workspace's venv or debug switch."""
    drop = ("PYTHONPATH", "VIRTUAL_ENV", "SMOL_ENVS_DEBUG")
    return {**{k: v for k, v in os.environ.items() if k not in drop}, "CI": "1",
            "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1"}


def test_both_distributions_install_and_import_side_by_side(venv: Path, tmp_path: Path):
    done = subprocess.run([str(venv / "bin" / "python"), "-c", CHECK, str(TINY_ARC)],
                          cwd=tmp_path, env=venv_environ(venv), capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    ours = tomllib.loads((PACKAGE / "pyproject.toml").read_text())["project"]["version"]
    assert seen["versions"] == {"slm-eval": "0.0.1", "smol-slm-eval": ours}
    assert seen["peer_version"] == "0.0.1"  # its own metadata lookup finds itself, not ours
    site = venv / "lib" / f"python{sys.version_info.major}.{sys.version_info.minor}"
    assert [Path(m).relative_to(site / "site-packages").parts[0] for m in seen["modules"]] == [
        "slm_eval", "smol_slm_eval"]
    assert seen["shared_files"] == []
    assert seen["rows"] == 3 and seen["env_module"] == "smol_slm_eval.env"
    scripts = {name: (venv / "bin" / name).read_text() for name in ("slm-eval", "smol-slm-eval")}
    assert "from slm_eval.__main__ import" in scripts["slm-eval"]
    assert "from smol_slm_eval.cli import main" in scripts["smol-slm-eval"]


def test_our_command_runs_beside_the_namesakes(venv: Path, tmp_path: Path):
    done = subprocess.run([str(venv / "bin" / "smol-slm-eval"), "tasks"], cwd=tmp_path,
                          env=venv_environ(venv), capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "arc_easy" in done.stdout and "int_index" in done.stdout


def test_vf_eval_slm_eval_names_the_new_id_with_the_namesake_installed(venv: Path,
                                                                       tmp_path: Path):
    """vf-eval imports the namesake's `slm_eval` (no load_environment): one line, exit 1."""
    done = subprocess.run([str(venv / "bin" / "vf-eval"), "slm-eval", "-b",
                           "http://127.0.0.1:9/v1", "-k", "SMOL_ENVS_LOCAL_API_KEY", "-m", "x",
                           "-n", "1"], cwd=tmp_path, env=venv_environ(venv),
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 1, done.stderr[-3000:]
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert lines[-1] == (
        "smol-envs: error: the environment 'slm-eval' is now 'smol-slm-eval': run vf-eval "
        "smol-slm-eval with the same arguments (its README says why it was renamed)"), lines
    assert "Traceback" not in done.stderr, done.stderr[-3000:]
