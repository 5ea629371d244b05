"""The scheduler counters the time verdicts read: CPU time and run-queue wait of a tree."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time

import pytest
from smolscript_sandbox.cpuwait import sample, tree_pids

pytestmark = pytest.mark.integration


def test_a_spinning_grandchild_is_found_and_its_cpu_time_counted():
    parent = subprocess.Popen(
        ["/bin/sh", "-c", f"{sys.executable} -c 'while True: pass' & wait"])
    pids: list[int] = []
    try:
        deadline = time.monotonic() + 10
        while len(tree_pids(parent.pid)) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        pids = tree_pids(parent.pid)
        assert pids[0] == parent.pid and len(pids) == 2
        first, _ = sample(pids)
        time.sleep(0.5)
        second, wait = sample(pids)
        assert second > first and wait >= 0.0
    finally:
        for pid in pids[1:]:  # the spinner this test started
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        parent.kill()
        parent.wait()
    assert sample([parent.pid]) == (0.0, 0.0)  # gone: reads as nothing, never raises
