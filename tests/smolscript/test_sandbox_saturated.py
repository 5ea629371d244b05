"""Verdicts do not depend on load (issue 43, item 4): every reference of the default edition
(276 programs in seven languages, 74 HTML, CSS and DOM pages: 350) passes through the real
service at high concurrency while busy-loop processes keep every CPU of the machine saturated.

At load average about 10 a JavaScript reference once came back `runtime_error` (asyncio logged
"exit status already read: will report returncode 255") and a browser slot's setup timed out.
A wrong verdict here, or any infrastructure error, fails the test: the sandbox exists so that
a verdict never depends on what else the machine is doing.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import time

import pytest
from smolscript import data
from smolscript.assemble import assemble_prediction
from smolscript.errors import ScoringInfraError
from smolscript.scoring import score_code
from smolscript_sandbox.client import SandboxClient
from smolscript_sandbox.testing import TEST_URL

pytestmark = [pytest.mark.integration, pytest.mark.usefixtures("browser_service")]

CONCURRENCY = 48  # jobs in flight: several times the service's slots, so they queue too
BUSY_PER_CPU = 3  # busy loops per usable CPU, beside the service and this test


def _spin() -> None:
    while True:
        pass


def _busy_loops(count: int) -> list[multiprocessing.Process]:
    loops = [multiprocessing.Process(target=_spin, daemon=True) for _ in range(count)]
    for proc in loops:
        proc.start()
    return loops


async def _score_all(tasks: list[dict], hidden: dict, refs: dict) -> dict[str, str]:
    """Each task's outcome: "passed", or why not (the failing verdict or the infra error)."""
    gate = asyncio.Semaphore(CONCURRENCY)
    outcomes: dict[str, str] = {}
    async with SandboxClient(TEST_URL, max_concurrency=CONCURRENCY) as client:

        async def one(task: dict) -> None:
            code = assemble_prediction(task, refs[task["id"]]["reference_solution"]).code
            async with gate:
                try:
                    verdict = await score_code(task, hidden[task["id"]], code, client,
                                               credit_rate=False)
                except ScoringInfraError as exc:
                    outcomes[task["id"]] = f"infra: {exc}"
                    return
            failed = [t for t in verdict.get("tests", []) if not t.get("passed")]
            outcomes[task["id"]] = "passed" if verdict["passed"] else (
                f"{verdict.get('status')}: {verdict.get('reason')} {failed[:1]}")

        await asyncio.gather(*(one(task) for task in tasks))
    return outcomes


def test_every_reference_passes_on_a_saturated_machine():
    tasks, hidden, refs = data.load_tasks(), data.load_hidden(), data.load_references()
    assert len(tasks) == 350
    cpus = len(os.sched_getaffinity(0))
    loops = _busy_loops(BUSY_PER_CPU * cpus)
    try:
        time.sleep(2.0)  # the loops are running before the first job
        started = time.monotonic()
        outcomes = asyncio.run(_score_all(tasks, hidden, refs))
        wall_s = time.monotonic() - started
        load = os.getloadavg()
    finally:
        for proc in loops:
            proc.kill()
        for proc in loops:
            proc.join()
    failed = {tid: why for tid, why in outcomes.items() if why != "passed"}
    print(f"saturated run: {len(tasks)} references, concurrency {CONCURRENCY}, "
          f"{len(loops)} busy loops on {cpus} CPUs, load average {load[0]:.1f}/{load[1]:.1f}, "
          f"wall {wall_s:.0f} s, passed {len(tasks) - len(failed)}/{len(tasks)}")
    assert not failed, failed
