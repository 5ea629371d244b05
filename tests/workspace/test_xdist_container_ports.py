"""The suite under `pytest -n 2` (what `.ci/run` runs): each worker session starts its own
container fixtures, so each worker's containers get their own block of ports, and so their own
names (tests/support/sandbox_targets.py). Checked in a real two-worker pytest run that reads
the ports each worker sees (no container is started)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.sandbox_targets import CONTAINER_PORT_BLOCK, container_port

REPO = Path(__file__).resolve().parents[2]
SPAN = 7  # CONTAINER_PORT .. CONTAINER_PORT+6: the most the container suites use

TESTS = f"""
import os, sys
import pytest
sys.path.insert(0, {str(REPO)!r})
from tests.support import sandbox_targets

@pytest.mark.parametrize("i", range(8))
def test_port(i):
    with open(os.environ["RECORD"], "a") as out:
        out.write(f"{{os.environ['PYTEST_XDIST_WORKER']}} {{sandbox_targets.CONTAINER_PORT}}\\n")
"""


@pytest.mark.unit
def test_container_port_blocks():
    assert container_port(8800, None) == 8800
    assert container_port(8800, "gw0") == 8800
    assert container_port(8800, "gw1") == 8800 + CONTAINER_PORT_BLOCK >= 8800 + SPAN
    with pytest.raises(ValueError, match="worker id"):
        container_port(8800, "master")


@pytest.mark.integration
def test_two_workers_see_disjoint_container_ports(tmp_path):
    (tmp_path / "test_ports.py").write_text(TESTS)
    record = tmp_path / "record.txt"
    env = {k: v for k, v in os.environ.items() if k != "SMOLSCRIPT_SANDBOX_CONTAINER_PORT"}
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:randomly", "-p", "no:cacheprovider",
         "-n", "2", "--rootdir", str(tmp_path), str(tmp_path)],
        cwd=tmp_path, env={**env, "RECORD": str(record)}, capture_output=True, text=True,
        timeout=300)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    seen = {tuple(line.split()) for line in record.read_text().splitlines()}
    assert seen == {("gw0", "8800"), ("gw1", str(8800 + CONTAINER_PORT_BLOCK))}, seen
