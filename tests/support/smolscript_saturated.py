"""Score smolscript references through the real service while busy-loop processes keep every
usable CPU saturated: shared by the suite's standing test (a stratified sample,
tests/smolscript/test_sandbox_saturated.py) and the full-size benchmark (every reference of
the edition, benchmarks/bench_smolscript_saturated.py), so that both run one code path.

A verdict must not depend on load (issue 43, item 4): at load average about 10 a JavaScript
reference once came back `runtime_error` and a browser slot's set-up timed out.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

CONCURRENCY = 48  # jobs in flight: several times the service's slots, so they queue too
BUSY_PER_CPU = 3  # busy loops per usable CPU, beside the service and the caller


def _spin() -> None:
    while True:
        pass


@dataclass(frozen=True)
class SaturatedRun:
    """What one saturated run found.

    outcomes: task id -> "passed", or why not (the failing verdict, or "infra: ..." for an
        infrastructure error).
    wall_s: seconds from the first job sent to the last verdict.
    load: the 1/5/15-minute load averages at the end of the scoring, before the loops stop.
    loops, cpus: busy-loop processes run, CPUs usable by this process.
    """

    outcomes: dict[str, str]
    wall_s: float
    load: tuple[float, float, float]
    loops: int
    cpus: int

    @property
    def failed(self) -> dict[str, str]:
        """The outcomes that are not "passed", by task id."""
        return {tid: why for tid, why in self.outcomes.items() if why != "passed"}

    def line(self) -> str:
        """One line of figures: references, concurrency, loops, load, wall, passed."""
        return (f"saturated run: {len(self.outcomes)} references, concurrency {CONCURRENCY}, "
                f"{self.loops} busy loops on {self.cpus} CPUs, load average "
                f"{self.load[0]:.1f}/{self.load[1]:.1f}, wall {self.wall_s:.1f} s, passed "
                f"{len(self.outcomes) - len(self.failed)}/{len(self.outcomes)}")


async def _score_all(tasks: Sequence[Mapping[str, Any]], hidden: Mapping[str, Any],
                     refs: Mapping[str, Any], url: str) -> dict[str, str]:
    """Each task's outcome (see `SaturatedRun.outcomes`), at most CONCURRENCY jobs in flight."""
    from smolscript.assemble import assemble_prediction
    from smolscript.errors import ScoringInfraError
    from smolscript.verdict import score_code
    from smolscript_sandbox.client import SandboxClient

    gate = asyncio.Semaphore(CONCURRENCY)
    outcomes: dict[str, str] = {}
    async with SandboxClient(url, max_concurrency=CONCURRENCY) as client:

        async def one(task: Mapping[str, Any]) -> None:
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


def run_saturated(tasks: Sequence[Mapping[str, Any]], hidden: Mapping[str, Any],
                  refs: Mapping[str, Any], url: str) -> SaturatedRun:
    """Score the reference of every task in `tasks` (public rows; `hidden` and `refs` by task
    id, as `smolscript.data.load_hidden` / `load_references` give them) through the service
    at `url` while BUSY_PER_CPU busy loops per usable CPU run; the loops are stopped before
    returning, also on an error. Raises what the client raises for anything but a scoring
    infrastructure error (those are outcomes)."""
    cpus = len(os.sched_getaffinity(0))
    loops = [multiprocessing.Process(target=_spin, daemon=True)
             for _ in range(BUSY_PER_CPU * cpus)]
    for proc in loops:
        proc.start()
    try:
        time.sleep(2.0)  # the loops are running before the first job
        started = time.monotonic()
        outcomes = asyncio.run(_score_all(tasks, hidden, refs, url))
        wall_s = time.monotonic() - started
        load = os.getloadavg()
    finally:
        for proc in loops:
            proc.kill()
        for proc in loops:
            proc.join()
    return SaturatedRun(outcomes, round(wall_s, 2), load, len(loops), cpus)
