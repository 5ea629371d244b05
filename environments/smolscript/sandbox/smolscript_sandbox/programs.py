"""Program jobs: write the harnessed source, compile once (30 s), run a fresh process per test.

The language table (`smolscript.languages`, via `toolchain.py`) gives the files and the argv;
this module only sequences them inside one slot and assembles the reply (CONTRACT.md).
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from smolscript_sandbox.limits import COMPILE_LIMITS, RUN_LIMITS, Limits
from smolscript_sandbox.process import run_sandboxed
from smolscript_sandbox.slots import Slot, SlotPool
from smolscript_sandbox.toolchain import Program, ToolchainMissing, build_program
from smolscript_sandbox.verdict import classify, decode_diagnostic, test_result


@dataclass(frozen=True)
class ProgramJob:
    """A validated program job: language id, candidate source, entry point (None: the source
    is a complete stdin/stdout program, no harness), signature and the tests' stdin texts."""

    language: str
    source: str
    entry_point: str | None
    signature: dict | None
    stdins: tuple[str, ...]


def _infra(message: str, n_tests: int) -> dict:
    """A whole-job infra_error reply (every test marked infra_error too)."""
    test = {
        "status": "infra_error",
        "stdout": "",
        "stderr": message,
        "exit_code": None,
        "time_s": 0.0,
        "truncated": False,
    }
    return {
        "status": "infra_error",
        "error": message,
        "compile": {"status": "infra_error", "stderr": message, "time_s": 0.0},
        "tests": [dict(test) for _ in range(n_tests)],
    }


def _write_files(slot: Slot, program: Program) -> None:
    """Write the program's files into the slot's job folder, readable by the slot uid."""
    for name, text in program.files.items():
        path = slot.job_dir / name
        path.write_text(text, encoding="utf-8")
        os.chmod(path, 0o644)
        if slot.identity.uid is not None:
            os.chown(path, slot.identity.uid, slot.identity.gid)


async def _compile(slot: Slot, program: Program, limits: Limits) -> dict:
    """Run the compile argv once with a writable job folder; returns the compile record."""
    if program.compile_argv is None:
        return {"status": "ok", "stderr": "", "time_s": 0.0}
    raw = await run_sandboxed(
        list(program.compile_argv),
        job_dir=slot.job_dir,
        identity=slot.identity,
        limits=limits,
        writable_job=True,
        extra_env=program.env,
    )
    status = classify(raw, limits)
    if status == "infra_error":
        return {"status": "infra_error", "stderr": raw.setup_error, "time_s": raw.time_s}
    text = decode_diagnostic(raw.stdout + raw.stderr)
    if status != "ok":
        return {"status": "compile_error", "reason": status, "stderr": text, "time_s": raw.time_s}
    return {"status": "ok", "stderr": text, "time_s": raw.time_s}


async def run_program_job(
    pool: SlotPool,
    job: ProgramJob,
    run_limits: Limits = RUN_LIMITS,
    compile_limits: Limits = COMPILE_LIMITS,
) -> dict:
    """Execute one program job in a free slot; the reply follows CONTRACT.md.

    Never raises for candidate behaviour; toolchain or sandbox faults become infra_error.
    Raises ValueError (from build_program) for a malformed job (unknown language, bad
    signature), which the HTTP layer turns into a 422.
    """
    try:
        program = build_program(job.language, job.source, job.entry_point, job.signature)
    except ToolchainMissing as exc:
        return _infra(str(exc), len(job.stdins))
    try:
        return await _execute(pool, program, job.stdins, run_limits, compile_limits)
    except Exception as exc:  # noqa: BLE001 - a fault of the service, never of the candidate
        return _infra(f"sandbox failure: {type(exc).__name__}: {exc}", len(job.stdins))


async def _execute(
    pool: SlotPool,
    program: Program,
    stdins: tuple[str, ...],
    run_limits: Limits,
    compile_limits: Limits,
) -> dict:
    """Compile once and run each test in a fresh sandboxed process, inside one slot."""
    async with pool.acquire() as slot:
        _write_files(slot, program)
        compiled = await _compile(slot, program, compile_limits)
        if compiled["status"] == "infra_error":
            return _infra(f"compile sandbox failed: {compiled['stderr']}", len(stdins))
        if compiled["status"] != "ok":
            return {"status": "compile_error", "compile": compiled, "tests": []}
        tests = []
        for stdin in stdins:
            raw = await run_sandboxed(
                list(program.run_argv),
                job_dir=slot.job_dir,
                identity=slot.identity,
                limits=run_limits,
                stdin=stdin.encode("utf-8"),
                extra_env=program.env,
            )
            tests.append(test_result(raw, run_limits))
    status = "infra_error" if any(t["status"] == "infra_error" for t in tests) else "ok"
    return {"status": status, "compile": compiled, "tests": tests}
