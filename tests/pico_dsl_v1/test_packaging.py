"""Packaging: the wheel, installed in a fresh venv outside the repo with only its published
dependencies (the shared smol-envs-core wheel among them), loads the 480 rows."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from .conftest import BENCHMARK, REPO

pytestmark = pytest.mark.integration
PACKAGE = REPO / "environments" / "pico_dsl_v1"
CORE = REPO / "packages" / "smol_envs_core"
CHECK = (
    "import pico_dsl_v1, sys; from pico_dsl_v1 import load_environment; "
    "env = load_environment(); ds = env.get_eval_dataset(); "
    "print(len(ds), len(env.get_dataset()), pico_dsl_v1.__file__)"
)


def test_wheel_installed_alone_loads_the_benchmark(tmp_path: Path) -> None:
    uv = shutil.which("uv")
    assert uv, "uv is needed to build and install the wheel"
    dist = tmp_path / "dist"
    for package in (PACKAGE, CORE):
        subprocess.run(
            [uv, "build", "--wheel", "--out-dir", str(dist), str(package)], check=True,
            timeout=180,
        )
    wheel = next(dist.glob("pico_dsl_v1-*.whl"))
    core = next(dist.glob("smol_envs_core-*.whl"))
    with zipfile.ZipFile(wheel) as archive:
        packaged = archive.read("pico_dsl_v1/data/pico_dsl_v1_benchmark.jsonl")
    assert packaged == BENCHMARK.read_bytes()
    venv = tmp_path / "venv"
    subprocess.run([uv, "venv", "--python", sys.executable, str(venv)], check=True, timeout=120)
    python = venv / "bin" / "python"
    subprocess.run(
        # The classic API's check: verifiers 0.3.1 (the pins admit 0.4, which has no classic
        # load_environment; tests/workspace/test_wheel_installs.py covers 0.4).
        [uv, "pip", "install", "--python", str(python), str(wheel), str(core),
         "verifiers==0.3.1"], check=True,
        timeout=600,
    )
    clean_env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    result = subprocess.run(
        [str(python), "-c", CHECK], cwd=tmp_path, env=clean_env, capture_output=True, text=True,
        timeout=300,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr[-2000:]
    count, train_count, location = result.stdout.split()[-3:]
    assert (count, train_count) == ("480", "480")
    assert Path(location).is_relative_to(venv) and not Path(location).is_relative_to(REPO)
