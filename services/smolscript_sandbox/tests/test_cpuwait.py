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


# Work split over short-lived children or threads (issue 25, item 2): each variant burns
# 5 x 0.2 s of CPU in pieces that have ended by the time it is sampled, then sleeps.
_BURN = "t = time.process_time()\nwhile time.process_time() - t < 0.2: pass\n"
_SPLIT_WORK = {
    "fork": "import os, time\nfor _ in range(5):\n    pid = os.fork()\n    if pid == 0:\n"
            + "".join("        " + line + "\n" for line in _BURN.splitlines())
            + "        os._exit(0)\n    os.waitpid(pid, 0)\n",
    "thread": "import threading, time\ndef burn():\n    t = time.thread_time()\n"
              "    while time.thread_time() - t < 0.2: pass\nfor _ in range(5):\n"
              "    th = threading.Thread(target=burn)\n    th.start()\n    th.join()\n",
    "exec": "import subprocess, sys, time\nfor _ in range(5):\n"
            f"    subprocess.run([sys.executable, '-c', {'import time' + chr(10) + _BURN!r}],"
            " check=True)\n",
}


@pytest.mark.parametrize("variant", sorted(_SPLIT_WORK))
def test_cpu_of_ended_children_and_threads_is_counted(variant):
    """Without a cpuacct meter the watchdog has only `sample`: ended threads (the process's
    own stat) and reaped children (its cutime/cstime) must count, not only live threads."""
    code = _SPLIT_WORK[variant] + "print('done', flush=True)\ntime.sleep(60)\n"
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE)
    try:
        assert proc.stdout.readline() == b"done\n"
        live_threads_only = sum(
            int(open(f"/proc/{proc.pid}/task/{tid}/schedstat").read().split()[0])
            for tid in os.listdir(f"/proc/{proc.pid}/task")) / 1e9
        cpu, _ = sample(tree_pids(proc.pid))
        assert cpu >= 0.95, (variant, cpu)  # 5 x 0.2 s, tick-rounded
        assert live_threads_only < 0.5, (variant, live_threads_only)  # what was counted before
    finally:
        proc.kill()
        proc.wait()
