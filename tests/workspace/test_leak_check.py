"""The suite's end check (tests/conftest.py) fails a session that leaves a service running: a
positive control on an inner pytest session that leaks a tagged process on purpose."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import psutil
import pytest
from smol_envs_core.procman import SESSION_ENV

pytestmark = pytest.mark.integration
REPO = Path(__file__).resolve().parents[2]

CONFTEST = f"""
import sys
sys.path.insert(0, {str(REPO)!r})
from tests.conftest import pytest_configure, pytest_sessionfinish  # noqa: F401
"""
LEAKY = """
import subprocess, sys

def test_leaves_a_service_behind(tmp_path):
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)",
                             "smolscript_sandbox serve"], start_new_session=True)
    (tmp_path.parent.parent / "leaked.pid").write_text(str(proc.pid))
"""


@pytest.mark.parametrize("leak", [True, False])
def test_a_leaked_service_fails_the_session_and_is_killed(tmp_path, leak):
    (tmp_path / "conftest.py").write_text(CONFTEST)
    (tmp_path / "test_inner.py").write_text(LEAKY if leak else "def test_clean():\n    pass\n")
    env = {k: v for k, v in os.environ.items() if k != SESSION_ENV}
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--rootdir",
         str(tmp_path), "--basetemp", str(tmp_path / "base"), str(tmp_path)],
        capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120, check=False)
    if not leak:
        assert done.returncode == 0, done.stdout + done.stderr
        return
    assert done.returncode == 1, done.stdout + done.stderr
    assert "still running (killed now)" in done.stdout and "smolscript_sandbox serve" in done.stdout
    pid = int((tmp_path / "leaked.pid").read_text())
    assert not psutil.pid_exists(pid) or psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
