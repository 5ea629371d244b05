"""Program jobs: write the job's files, compile once (30 s), run a fresh process per test.

The runtime table (`runtimes.py`) gives the main file, the argv and the limits; this module
only sequences them inside one slot and assembles the reply (`schema.ProgramReply`).
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Awaitable, Callable
from typing import Any

from smolscript_sandbox.errors import SandboxInfraError
from smolscript_sandbox.hostinfo import runtime_versions
from smolscript_sandbox.limits import Limits
from smolscript_sandbox.process import run_sandboxed
from smolscript_sandbox.runtimes import Program, build_program
from smolscript_sandbox.schema import (
    CompileResult,
    ProgramJob,
    ProgramReply,
    RunResult,
    StageTimes,
)
from smolscript_sandbox.slots import Slot, SlotPool
from smolscript_sandbox.verdict import classify, decode_diagnostic, test_result

# Called with each event of a job as it happens (the streamed endpoint sends them on):
# {"compile": CompileResult, "toolchain": {...}, "stages": StageTimes so far} once compiled,
# {"test": i, "result": RunResult} as each test ends. A caller that has seen enough cancels
# the job (its processes are killed).
OnEvent = Callable[[dict[str, Any]], Awaitable[None]]


def _infra(message: str, n_tests: int) -> ProgramReply:
    """A whole-job infra_error reply (every test marked infra_error too)."""
    return ProgramReply(
        status="infra_error",
        error=message,
        compile=CompileResult(status="infra_error", stderr=message),
        tests=[RunResult(status="infra_error", stderr=message) for _ in range(n_tests)],
    )


def _write_files(slot: Slot, program: Program) -> None:
    """Write the program's files into the slot's job folder, readable by the slot uid."""
    for name, text in program.files.items():
        path = slot.job_dir / name
        path.write_text(text, encoding="utf-8")
        os.chmod(path, 0o644)
        if slot.identity.uid is not None:
            os.chown(path, slot.identity.uid, slot.identity.gid)


async def _compile(slot: Slot, program: Program, limits: Limits) -> CompileResult:
    """Run the compile argv once with a writable job folder; returns the compile record."""
    if program.compile_argv is None:
        return CompileResult(status="ok")
    raw = await run_sandboxed(
        list(program.compile_argv),
        job_dir=slot.job_dir,
        identity=slot.identity,
        limits=limits,
        writable_job=True,
        extra_env=program.env,
        cpu_meter=slot.meter,
        extra_ro_binds=program.compile_binds,
    )
    status = classify(raw, limits)
    if status == "infra_error":
        return CompileResult(status="infra_error", stderr=raw.setup_error, time_s=raw.time_s)
    text = decode_diagnostic(raw.stdout + raw.stderr)
    truncated = raw.stdout_overflow or raw.stderr_truncated
    if status != "ok":
        return CompileResult(status="compile_error", reason=status, stderr=text,
                             time_s=raw.time_s, truncated=truncated)
    return CompileResult(status="ok", stderr=text, time_s=raw.time_s, truncated=truncated)


def _with_oom(result: RunResult, slot: Slot, oom_before: int) -> RunResult:
    """A failed run during which the slot cgroup's OOM killer killed a process (a SIGKILL,
    which alone reads as a crash or a hard CPU limit, or a survivor left waiting for the
    killed one until the wall limit) is a `memory_limit`."""
    if (
        slot.cgroup is not None
        and result.status in ("runtime_error", "timeout")
        and slot.cgroup.oom_kills() > oom_before
    ):
        return result.model_copy(update={"status": "memory_limit"})
    return result


def _job_time_up(job_time_s: float) -> RunResult:
    """A test that did not run because the job's total time bound was reached."""
    return RunResult(
        status="timeout",
        stderr=f"not run: the job time limit ({job_time_s:g} s for compile and all tests) "
        "was reached",
    )


async def run_program_job(
    pool: SlotPool, job: ProgramJob, job_time_s: float = float("inf"),
    on_event: OnEvent | None = None,
) -> ProgramReply:
    """Execute one program job in a free slot.

    Never raises for candidate behaviour; toolchain or sandbox faults become infra_error.
    Raises JobRejected (from build_program) for a malformed job (unknown runtime, no main
    file), which the HTTP layer turns into a 422. `job_time_s` bounds the whole job once it
    has a slot: a test cut by it, and every test after it, is a `timeout`. `on_event`, when
    given, hears the compile record and each test's record as they happen (`OnEvent`); the
    reply is the same either way.
    """
    stdins = tuple(test.stdin for test in job.tests)
    try:
        program = build_program(job)
    except SandboxInfraError as exc:  # a toolchain binary is missing here
        return _infra(exc.reason, len(stdins))
    try:
        versions = await asyncio.to_thread(runtime_versions, job.runtime)
        reply = await _execute(pool, program, stdins, job_time_s, _with_toolchain(on_event,
                                                                                  versions))
        return reply.model_copy(update={"toolchain": versions})
    except Exception as exc:  # noqa: BLE001 - a fault of the service, never of the candidate
        return _infra(f"sandbox failure: {type(exc).__name__}: {exc}", len(stdins))


def _with_toolchain(on_event: OnEvent | None, versions: dict[str, str]) -> OnEvent | None:
    """`on_event` with the toolchain versions added to the compile event."""
    if on_event is None:
        return None

    async def send(event: dict[str, Any]) -> None:
        await on_event({**event, "toolchain": versions} if "compile" in event else event)
    return send


async def _execute(
    pool: SlotPool, program: Program, stdins: tuple[str, ...], job_time_s: float,
    on_event: OnEvent | None = None,
) -> ProgramReply:
    """Compile once and run each test in a fresh sandboxed process, inside one slot, until
    the job's time bound (the compile has its own 30 s limit inside it)."""
    stages: dict[str, float] = {}
    async with pool.acquire(stages) as slot:
        deadline = time.monotonic() + job_time_s
        _write_files(slot, program)
        clock = _StageClock(slot)
        compiled = await _compile(slot, program, program.compile_limits)
        clock.lap(stages, "compile", sandboxes=int(program.compile_argv is not None))
        if compiled.status == "infra_error":
            return _infra(f"compile sandbox failed: {compiled.stderr}", len(stdins))
        if on_event is not None:  # the stages so far: what a caller that stops early keeps
            await on_event({"compile": compiled, "stages": StageTimes(**_rounded(stages))})
        if compiled.status != "ok":
            reply = ProgramReply(status="compile_error", compile=compiled, tests=[])
        else:
            tests, ran = await _run_tests(slot, program, stdins, deadline, job_time_s,
                                          on_event)
            clock.lap(stages, "run", sandboxes=ran)
            status = "infra_error" if any(t.status == "infra_error" for t in tests) else "ok"
            reply = ProgramReply(status=status, compile=compiled, tests=tests)
    return reply.model_copy(update={"stages": StageTimes(**_rounded(stages))})


async def _run_tests(slot: Slot, program: Program, stdins: tuple[str, ...], deadline: float,
                     job_time_s: float, on_event: OnEvent | None = None
                     ) -> tuple[list[RunResult], int]:
    """Run each test in a fresh sandboxed process until the job's deadline (monotonic);
    returns the per-test records and how many processes were started. Each record goes to
    `on_event` as soon as it is known."""
    run_limits = program.run_limits
    tests: list[RunResult] = []
    ran = 0
    for stdin in stdins:
        left = deadline - time.monotonic()
        if left <= 0:
            tests.append(_job_time_up(job_time_s))
            await _tell(on_event, len(tests) - 1, tests[-1])
            continue
        oom_before = slot.cgroup.oom_kills() if slot.cgroup is not None else 0
        cpu_before = slot.meter.read() if slot.meter is not None else None
        ran += 1
        try:
            raw = await asyncio.wait_for(
                run_sandboxed(
                    list(program.run_argv),
                    job_dir=slot.job_dir,
                    identity=slot.identity,
                    limits=run_limits,
                    stdin=stdin.encode("utf-8"),
                    extra_env=program.env,
                    cpu_meter=slot.meter,
                ),
                timeout=left,
            )
        except TimeoutError:
            tests.append(_job_time_up(job_time_s))
            await _tell(on_event, len(tests) - 1, tests[-1])
            continue
        result = _with_oom(test_result(raw, run_limits), slot, oom_before)
        if cpu_before is not None:
            used = round(slot.meter.read() - cpu_before, 4)
            result = result.model_copy(update={"sandbox_cpu_s": used})
        tests.append(result)
        await _tell(on_event, len(tests) - 1, result)
    return tests, ran


async def _tell(on_event: OnEvent | None, index: int, result: RunResult) -> None:
    if on_event is not None:
        await on_event({"test": index, "result": result})


class _StageClock:
    """Elapsed and slot CPU time (`accounting.CpuMeter`) since the last lap."""

    def __init__(self, slot: Slot) -> None:
        self.meter = slot.meter
        self.wall = time.perf_counter()
        self.cpu = self.meter.read() if self.meter is not None else 0.0

    def lap(self, stages: dict[str, float], name: str, sandboxes: int) -> None:
        """Record `<name>_s`, `<name>_cpu_s` (with a meter) and add to `sandboxes`."""
        wall = time.perf_counter()
        stages[f"{name}_s"] = wall - self.wall
        if self.meter is not None:
            cpu = self.meter.read()
            stages[f"{name}_cpu_s"] = cpu - self.cpu
            self.cpu = cpu
        self.wall = wall
        stages["sandboxes"] = stages.get("sandboxes", 0) + sandboxes


def _rounded(stages: dict[str, float]) -> dict[str, float]:
    return {key: round(value, 4) for key, value in stages.items()}
