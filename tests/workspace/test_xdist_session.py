"""The suite under pytest-xdist (`-n 2`): workers share one real model server, and the end
check (tests/conftest.py) neither kills a server another worker still uses nor leaves one
behind, also when the worker that started it ends first; a leak is still caught."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import psutil
import pytest
from smol_envs_core import procman
from smol_envs_core.server import serve

from tests.support.ports import free_port

pytestmark = pytest.mark.integration
REPO = Path(__file__).resolve().parents[2]

CONFTEST = f"""
import sys
sys.path.insert(0, {str(REPO)!r})
from tests.conftest import (  # noqa: F401
    local_model_base_url, pytest_configure, pytest_sessionfinish)
pytest_plugins = ["tests.support.scoring_service"]
"""
# Two tests, one per worker, sharing the model server and the scoring service. Each waits
# until the other has its answers; then the worker that did not start the scoring service
# ends, and the one that did keeps asking the service for its health for 10 s more (the
# first worker's end must not stop it), then ends too.
SHARED = """
import os, time
import httpx, psutil
from smol_envs_core import procman
from smolscript_sandbox.testing import TEST_URL, config_for

def _meet(name, tmp_path_factory, base_url):
    root = tmp_path_factory.getbasetemp().parent
    reply = httpx.post(base_url + "/completions", timeout=120,
                       json={"prompt": "1 2 3", "max_tokens": 2, "temperature": 0})
    assert reply.status_code == 200
    (root / name).write_text("answered")
    other = "b" if name == "a" else "a"
    for _ in range(1200):
        if (root / other).exists():
            break
        time.sleep(0.1)
    record = procman.read_record(config_for().state_dir)
    if psutil.Process(record.pid).ppid() != os.getpid():
        (root / "user-done").write_text("")
        return
    for _ in range(1200):
        if (root / "user-done").exists():
            break
        time.sleep(0.1)
    for _ in range(20):  # meanwhile the other worker's session ends
        assert httpx.get(TEST_URL + "/health", timeout=30).status_code == 200
        time.sleep(0.5)

def test_a(tmp_path_factory, local_model_base_url, scoring_service):
    _meet("a", tmp_path_factory, local_model_base_url)

def test_b(tmp_path_factory, local_model_base_url, scoring_service):
    _meet("b", tmp_path_factory, local_model_base_url)
"""
LEAKY = """
import subprocess, sys

def test_leaves_a_service_behind(tmp_path):
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)",
                             "smolscript_sandbox serve"], start_new_session=True)
    (tmp_path.parent.parent.parent / "leaked.pid").write_text(str(proc.pid))

def test_other():
    pass
"""


def _inner_xdist(tmp_path: Path, tests: str, port: int,
                 service_port: int | None = None) -> subprocess.CompletedProcess:
    """An inner pytest session over `tests` with two xdist workers, its own model port (and
    scoring service port, when given) and no tag inherited from this session."""
    (tmp_path / "conftest.py").write_text(CONFTEST)
    (tmp_path / "test_inner.py").write_text(tests)
    env = {k: v for k, v in os.environ.items() if k != procman.SESSION_ENV}
    env["SMOL_ENVS_MODEL_PORT"] = str(port)
    if service_port is not None:
        env["SMOLSCRIPT_SANDBOX_TEST_URL"] = f"http://127.0.0.1:{service_port}"
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "2",
         "--rootdir", str(tmp_path), "--basetemp", str(tmp_path / "base"), str(tmp_path)],
        capture_output=True, text=True, env=env, cwd=tmp_path, timeout=300, check=False)


def test_workers_share_the_services_and_the_last_one_out_leaves_nothing(tmp_path):
    """Before: the first worker to end killed the scoring service the other one had started
    and still used (its end check took it for a leak)."""
    from smolscript_sandbox.testing import config_for

    port, service_port = free_port(), free_port()
    done = _inner_xdist(tmp_path, SHARED, port, service_port)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "2 passed" in done.stdout, done.stdout
    assert procman.running(serve.state_dir(port)) is None
    service_state = config_for(f"http://127.0.0.1:{service_port}").state_dir
    assert procman.running(service_state) is None
    assert procman.port_is_free("127.0.0.1", port)
    assert procman.port_is_free("127.0.0.1", service_port)


def test_a_leak_under_xdist_still_fails_the_run(tmp_path):
    done = _inner_xdist(tmp_path, LEAKY, free_port())
    assert done.returncode == 1, done.stdout + done.stderr
    assert "still running (killed now)" in done.stdout
    pid = int((tmp_path / "leaked.pid").read_text())
    assert not psutil.pid_exists(pid) or psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
