"""Scoring throughput (issue 13, item 2): the stage timings of program replies, validation's
pass/fail scoring without the credit baselines, and its check order.

The stage timings come from the real host service (its slots' cpuacct cgroups); the credit
case counts the jobs a real client sends to it.
"""

from __future__ import annotations

import pytest
from smolscript.languages import LANGUAGES
from smolscript.verdict import score_code
from smolscript_builder.validate import Check, interleaved, score_check
from smolscript_sandbox.client import SandboxClient
from smolscript_sandbox.schema import JobTest, ProgramJob, ProgramReply

# Reads one line: "spin" burns about 0.4 s of CPU, anything else prints at once.
SPIN = """import sys, time
if sys.stdin.readline().strip() == "spin":
    end = time.process_time() + 0.4
    while time.process_time() < end:
        pass
print("done")
"""


@pytest.mark.integration
async def test_program_replies_carry_measured_stage_timings(host_target):
    health = host_target.health
    if health["memory"]["accounting"] == "rlimits only":
        pytest.skip("no cgroup v1 here: the service has no CPU meters")
    start_cpu = health["sandbox_start_cpu_s"]
    assert 0.0005 < start_cpu < 0.2  # an empty sandbox costs milliseconds of CPU
    job = ProgramJob(runtime="python", files={"main.py": SPIN},
                     tests=[JobTest(stdin="spin\n"), JobTest(stdin="x\n"), JobTest(stdin="y\n")])
    async with SandboxClient(host_target.url) as client:
        reply = await client.run_program_job(job)
    assert reply.status == "ok" and [t.stdout for t in reply.tests] == ["done"] * 3
    stages = reply.stages
    assert stages is not None and stages.sandboxes == 4  # one compile, three test runs
    assert stages.compile_cpu_s > start_cpu / 2 and stages.compile_s > 0
    spin, quick, _ = (t.sandbox_cpu_s for t in reply.tests)
    assert 0.35 <= spin <= 2.0  # the 0.4 s it burnt, within the process accounting
    assert start_cpu / 2 < quick < spin - 0.3
    per_test = sum(t.sandbox_cpu_s for t in reply.tests)
    # the runs' total holds each run (less rounding) and little else: nothing else runs in the
    # slot, only a sandbox's last exit work can land after its own reading
    assert per_test - 0.001 <= stages.run_cpu_s <= per_test + 0.1, (per_test, stages)
    assert stages.run_s >= sum(t.time_s for t in reply.tests)
    assert stages.setup_s > 0 and stages.cleanup_s > 0


@pytest.mark.unit
def test_replies_of_services_without_stage_timings_still_parse():
    reply = ProgramReply.model_validate(
        {"status": "ok", "compile": {"status": "ok"}, "tests": [{"status": "ok", "stdout": "1"}]})
    assert reply.stages is None and reply.tests[0].sandbox_cpu_s is None


def _task() -> dict:
    signature = {"params": [{"name": "n", "type": "int"}], "returns": "int"}
    spec = LANGUAGES["python"]
    return {"id": "throughput/python", "language": "python", "modality": "program",
            "signature": signature, "entry_point": spec.entry_point, "imports": spec.imports,
            "prefix": spec.imports + spec.entry_header(signature)}


class CountingClient:
    """A real client that counts the program jobs it sends."""

    def __init__(self, client: SandboxClient) -> None:
        self.client, self.jobs = client, 0

    async def run_program_job(self, job):
        self.jobs += 1
        return await self.client.run_program_job(job)

    async def run_browser_job(self, job):
        return await self.client.run_browser_job(job)


@pytest.mark.integration
async def test_pass_fail_scoring_skips_the_credit_baselines_with_the_same_verdict(host_target):
    """A negative control passing some tests: the full scoring runs the empty-answer baseline
    for the credited rate, the validation's scoring does not, and `passed` is the same."""
    task = _task()
    hidden = {"tests": [{"args": [n], "expected": e} for n, e in ((0, 0), (1, 1), (2, 4), (3, 9))]}
    code = task["prefix"] + "    return n if n < 2 else n + 1\n"  # right on 0 and 1 only
    async with SandboxClient(host_target.url) as real:
        full, fast = CountingClient(real), CountingClient(real)
        scored = await score_code(task, hidden, code, full)
        quick = await score_code(task, hidden, code, fast, credit_rate=False)
        check = Check(task["id"], "negative_control", code, must_pass=False)
        checked, ran = await score_check(check, task, hidden, fast, score_code)
    assert full.jobs == 2 and fast.jobs == 2  # one baseline run vs. one more check
    assert scored["passed"] is quick["passed"] is checked["passed"] is False
    assert scored["raw_test_pass_rate"] == quick["hidden_test_pass_rate"] == 0.5
    assert [t["passed"] for t in quick["tests"]] == [True, True, False, False]
    assert ran == 4


@pytest.mark.unit
def test_validation_interleaves_languages_and_keeps_every_check_once():
    rows = {"p1": {"language": "python"}, "p2": {"language": "python"},
            "r1": {"language": "rust"}, "h1": {"language": "html"}}
    checks = [Check(t, role, "", role == "reference") for t in ("p1", "p2", "r1", "h1")
              for role in ("reference", "negative_control")]
    order = interleaved(checks, rows)
    assert sorted(order) == list(range(len(checks)))
    assert [rows[checks[i].task_id]["language"] for i in order[:3]] == ["python", "rust", "html"]
    # each language's checks keep their plan order
    python = [i for i in order if rows[checks[i].task_id]["language"] == "python"]
    assert python == sorted(python)


@pytest.mark.unit
async def test_subprocesses_are_waited_for_through_pidfds_without_a_thread_each():
    """The service's child watcher (Python 3.11): no thread per sandboxed process, exit
    codes intact; on 3.12+ asyncio picks the same watcher itself and nothing is installed."""
    import asyncio
    import sys
    import threading

    from smolscript_sandbox.reaper import use_pidfd_watcher

    policy = asyncio.get_event_loop_policy()
    previous = getattr(policy, "_watcher", None)  # restored after: other tests' loops
    installed = False
    try:
        installed = use_pidfd_watcher(asyncio.get_running_loop())
        assert installed == (sys.version_info < (3, 12))
        threads = threading.active_count()
        procs = [await asyncio.create_subprocess_exec("/bin/sh", "-c", f"exit {code}")
                 for code in (0, 3, 7)]
        assert threading.active_count() == threads or not installed
        assert [await p.wait() for p in procs] == [0, 3, 7]
    finally:
        if installed:
            asyncio.get_child_watcher().close()
            asyncio.set_child_watcher(previous)
