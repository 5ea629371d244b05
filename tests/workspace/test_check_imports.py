"""The import-boundary evidence script: it passes on this tree and fails on a tree that breaks
each rule (a positive control, so that a checker that sees nothing cannot pass)."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "scripts" / "check_imports.py"


def _checker():
    spec = importlib.util.spec_from_file_location("check_imports", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


@pytest.mark.integration  # runs the script in a subprocess
def test_the_workspace_keeps_its_boundaries():
    done = subprocess.run([sys.executable, str(SCRIPT)], capture_output=True, text=True,
                          timeout=120, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    for rule in ("no environment imports another", "imports no smolscript module",
                 "runtime imports nothing of its builder", "imports no environment",
                 "import none of each other", "no import cycles"):
        assert any(line.startswith("ok") and rule in line for line in lines), (rule, lines)
    assert "  smolscript_sandbox (" in done.stdout and "FAIL" not in done.stdout


@pytest.mark.unit
def test_a_tree_that_breaks_the_rules_fails(tmp_path, capsys):
    checker = _checker()
    files = {
        "services/smolscript_sandbox/smolscript_sandbox/app.py":
            "def f():\n    from smolscript.verdict import score_code\n",
        "environments/smolscript/smolscript/__init__.py": "",
        "environments/smolscript/smolscript/verdict.py": "from smolscript import build\n",
        "environments/smolscript/smolscript/build.py": "from . import verdict\n",
        "environments/pico_dsl_v1/pico_dsl_v1/env.py": "import smoltalkbench.judge\n",
        "environments/smoltalkbench/smoltalkbench/judge.py": "",
        "packages/smol_envs_core/smol_envs_core/report/build.py":
            "def f():\n    from ..adapters import policy\n",
        "packages/smol_envs_core/smol_envs_core/adapters/policy.py": "",
        "packages/smol_envs_core/smol_envs_core/errors.py": "import smol_envs_core.server.serve\n",
        "packages/smol_envs_core/smol_envs_core/server/serve.py": "from .. import errors\n",
        "packages/smol_envs_core/smol_envs_core/evalrun/run.py": "from ..server import serve\n",
    }
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    assert checker.main(["--root", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert "FAIL no environment imports another" in out
    assert "pico_dsl_v1.env -> smoltalkbench.judge (env.py:1)" in out
    assert "FAIL the scoring service (smolscript_sandbox) imports no smolscript module" in out
    assert "smolscript_sandbox.app -> smolscript.verdict (app.py:2)" in out  # a lazy import
    assert "smolscript.build <-> smolscript.verdict" in out
    assert "smolscript <-> smolscript_sandbox" not in out
    assert "FAIL the core's adapters, server, report import none of each other" in out
    assert "smol_envs_core.report.build -> smol_envs_core.adapters.policy (build.py:2)" in out
    assert "smol_envs_core.errors -> smol_envs_core.server.serve (errors.py:1)" in out
    assert "evalrun.run ->" not in out  # evalrun composes the parts: allowed
