"""The CPU limit judges what all of a test's processes used (issue 25, item 2), through the
real scoring service and host judge: work split over short-lived forked children, threads or
exec'd programs counts as the same work in one process does.

Each correct answer burns `pieces` x `each_s` of CPU; 3 s of CPU is the per-test limit.
"""

from __future__ import annotations

import pytest
from smolscript.frames import new_nonce
from smolscript.verdict import program_job
from smolscript_sandbox.client import SandboxClient
from smolscript_sandbox.testing import TEST_URL

from tests.smolscript.test_verdict_policies import INT_N, task, verdict

# exclusive: a job must reach 3 s of CPU before its 5 s wall limit, so it needs a core to itself
# (beside another worker's load it got 2.5-2.7 CPU-s in 5.3 s and ended on the wall limit).
pytestmark = [pytest.mark.integration, pytest.mark.exclusive,
              pytest.mark.usefixtures("scoring_service")]

_HEAD = "import os\nimport subprocess\nimport sys\nimport threading\nimport time\n\n\n"
_PIECE = {  # one piece of work of `each` CPU seconds, ended before the next starts
    "fork": ("    pid = os.fork()\n    if pid == 0:\n        t = time.process_time()\n"
             "        while time.process_time() - t < each:\n            pass\n"
             "        os._exit(0)\n    os.waitpid(pid, 0)\n"),
    "thread": ("    def burn():\n        t = time.thread_time()\n"
               "        while time.thread_time() - t < each:\n            pass\n"
               "    th = threading.Thread(target=burn)\n    th.start()\n    th.join()\n"),
    "exec": ("    code = f'import time\\nt = time.process_time()\\n"
             "while time.process_time() - t < {each}: pass'\n"
             "    subprocess.run([sys.executable, '-c', code], check=True)\n"),
}


def split_work(variant: str, pieces: int, each_s: float) -> str:
    """A correct identity `solve(n)` that first burns `pieces` pieces of `each_s` CPU-s."""
    return (_HEAD + f"def piece(each):\n{_PIECE[variant]}\n\n"
            f"def solve(n):\n    for _ in range({pieces}):\n        piece({each_s})\n"
            "    return n\n")


@pytest.mark.parametrize("variant", sorted(_PIECE))
async def test_twenty_short_pieces_over_the_limit_are_a_timeout(variant):
    """20 x 0.2 s = 4 s of CPU in pieces that each end quickly: over the 3 s limit."""
    got = await verdict("python", INT_N, split_work(variant, 20, 0.2), [((7,), 7)])
    test = got["tests"][0]
    assert (got["passed"], test["status"]) == (False, "timeout"), (variant, test)


@pytest.mark.parametrize("variant", sorted(_PIECE))
async def test_the_timeout_is_the_cpu_limit_on_the_total(variant):
    """20 x 0.17 s = 3.4 s (under the 5 s wall limit when run alone): the service's record
    shows the whole job's CPU time at the limit (the live threads alone never reach it)."""
    code = split_work(variant, 20, 0.17)
    hidden = {"tests": [{"args": [7], "expected": 7}]}
    async with SandboxClient(TEST_URL) as client:
        reply = await client.run_program_job(
            program_job(task("python", INT_N), hidden, code, new_nonce()))
    run = reply.tests[0]
    assert run.status == "timeout" and run.cpu_s >= 3.0, (variant, run)


@pytest.mark.parametrize("variant", sorted(_PIECE))
async def test_short_pieces_under_the_limit_still_pass(variant):
    got = await verdict("python", INT_N, split_work(variant, 5, 0.2), [((7,), 7)])
    assert got["passed"], (variant, got["tests"])


async def test_single_process_verdicts_are_unchanged():
    """One process: 2 s of CPU passes, 4 s is a timeout on CPU, as before."""
    spin = _HEAD + ("def solve(n):\n    while time.process_time() < n / 10:\n        pass\n"
                    "    return n\n")
    got = await verdict("python", INT_N, spin, [((20,), 20), ((40,), 40)])
    assert [t["status"] for t in got["tests"]] == ["ok", "timeout"], got["tests"]
    assert got["tests"][0]["passed"] and got["tests"][1]["time_s"] < 4.5
