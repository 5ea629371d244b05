"""Where smolscript scoring spends its CPU, by stage, from real process accounting (shared by
`bench_smolscript_rl.py` and `bench_smolscript_validation.py`).

`Recorder` wraps the sandbox client's job calls (keeping each reply's stage timings) and the
host's verdict functions (timing them with `time.thread_time`); `stage_table` prints CPU
seconds by stage: isolation set-up, compile, run, browser, verdict, and beside them the
service's own Python and the rest of the scoring process.
"""

from __future__ import annotations

import time
from typing import Any


class Recorder:
    """Wraps the client's job calls and the host verdict functions to record what a run
    cost: the service's stage timings per job and this process's CPU in the verdicts."""

    def __init__(self) -> None:
        self.program: list[Any] = []
        self.browser: list[Any] = []
        self.verdict_cpu = 0.0
        self.browser_tests = 0
        self.stopped = 0  # program jobs stopped at a failing test (reward-only scoring)
        self.active = True  # False: stop recording (the wrappers stay in place)

    def install(self) -> None:
        """Wrap `SandboxClient`'s job calls and `smolscript.verdict`'s judges (process-wide)."""
        from smolscript import verdict
        from smolscript_sandbox.client import SandboxClient

        original_program = SandboxClient.run_program_job
        original_until = SandboxClient.run_program_job_until
        original_browser = SandboxClient.run_browser_job

        async def run_program_job(client, job):
            reply = await original_program(client, job)
            if self.active:
                self.program.append(reply)
            return reply

        async def run_browser_job(client, job):
            reply = await original_browser(client, job)
            if self.active:
                self.browser.append(reply)
                self.browser_tests += len(job.probes)
            return reply

        async def run_program_job_until(client, job, keep_going):
            reply, stopped = await original_until(client, job, keep_going)
            if self.active:
                self.program.append(reply)
                self.stopped += stopped
            return reply, stopped

        SandboxClient.run_program_job = run_program_job
        SandboxClient.run_program_job_until = run_program_job_until
        SandboxClient.run_browser_job = run_browser_job
        for name in ("judge_program", "judge_browser"):
            setattr(verdict, name, self._timed(getattr(verdict, name)))

    def _timed(self, judge):
        def run(*args, **kwargs):
            started = time.thread_time()
            try:
                return judge(*args, **kwargs)
            finally:
                if self.active:
                    self.verdict_cpu += time.thread_time() - started
        return run


def stage_table(rec: Recorder, health0: dict, health1: dict,
                host_cpu: float, completions: int | None = None) -> dict[str, float] | None:
    """Print CPU seconds by stage, in total and per test executed (and per completion when
    `completions` is given); returns {stage: CPU s} (None where the service reports no
    cpuacct figures). A job stopped early counts what its events told (`client.
    _stopped_stages`: the test cancelled after the failing one is not counted)."""
    start_cpu = health1.get("sandbox_start_cpu_s")
    stages = [r.stages for r in rec.program if r.stages is not None]
    tests = sum(len(r.tests) for r in rec.program) + rec.browser_tests
    if start_cpu is None or any(s.run_cpu_s is None and s.compile_cpu_s is None
                                for s in stages):
        print("the service reports no cpuacct figures here: no per-stage CPU table")
        return None
    compiles = sum(s.compile_cpu_s is not None and s.compile_s > 0 for s in stages)
    sandboxes = sum(s.sandboxes for s in stages)
    runs = sandboxes - compiles
    compile_total = sum(s.compile_cpu_s or 0.0 for s in stages)
    run_total = sum(s.run_cpu_s or 0.0 for s in stages)
    slot_work = sum(s.setup_cpu_s + s.cleanup_cpu_s for s in stages)
    rows = [
        ("isolation setup", slot_work + sandboxes * start_cpu,
         f"{sandboxes} sandboxes x {start_cpu * 1000:.1f} ms + slot setup/sweep "
         f"{slot_work:.1f} s"),
        ("compile", compile_total - compiles * start_cpu, f"{compiles} compiles"),
        ("run", run_total - runs * start_cpu, f"{runs} test processes"),
        ("browser", health1["cpu_s"]["browsers"] - health0["cpu_s"]["browsers"],
         f"{len(rec.browser)} browser jobs, {rec.browser_tests} probes' tests"),
        ("verdict", rec.verdict_cpu, "host judge_program/judge_browser"),
        ("service (Python)", health1["cpu_s"]["service"] - health0["cpu_s"]["service"],
         "the service's event loop, HTTP, schema"),
        ("host (rest)", host_cpu - rec.verdict_cpu, "rubric, assembly, HTTP client"),
    ]
    stopped = f", {rec.stopped} program jobs stopped at a failing test" if rec.stopped else ""
    print(f"CPU by stage ({tests} tests executed: {tests - rec.browser_tests} program test "
          f"runs, {rec.browser_tests} browser tests{stopped}):")
    per = f" ms per completion ({completions}) |" if completions else ""
    print(f"| stage | CPU s | ms per test |{per} what |")
    print("|---|---|---|---|" + ("---|" if completions else ""))

    def cells(cpu: float) -> str:
        each = f" {cpu / completions * 1000:.1f} |" if completions else ""
        return f"{cpu:.1f} | {cpu / max(tests, 1) * 1000:.1f} |{each}"

    for name, cpu, what in rows:
        print(f"| {name} | {cells(cpu)} {what} |")
    total = sum(cpu for _, cpu, _ in rows)
    print(f"| total | {cells(total)} |")
    return {name: cpu for name, cpu, _ in rows}
