"""Wall-clock bounds that machine load cannot shorten: awaiting with a deadline that grows by
the time the host's CPUs were oversubscribed meanwhile.

A browser job is made of steps of several processes (the service, Playwright's driver,
Chromium's browser and renderer), so a per-thread CPU reading like the program watchdog's
(`cpuwait.py`) does not apply. The kernel's pressure stall information does: the `some` line
of `/proc/pressure/cpu` counts, in microseconds, the wall time during which at least one
runnable task waited for a CPU (Linux 4.20+, Documentation/accounting/psi.rst). A step given
`base_s` seconds gets `base_s` plus the stall time that passed while it ran, up to
`ceiling_s`: on an idle host exactly `base_s`, on a saturated one up to the ceiling, so that
a correct page is never cut short by other work (issue 43, item 4: at load average about 10 a
browser slot's trusted setup ran past its fixed 3 s). Where the file is missing (kernels
without PSI, some containers) the bound is the plain `base_s`.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable
from typing import TypeVar

T = TypeVar("T")
PSI_CPU = "/proc/pressure/cpu"


def stall_s(path: str = PSI_CPU) -> float | None:
    """Seconds during which some runnable task waited for a CPU since boot (PSI `some`
    total), or None when the host does not report it."""
    try:
        with open(path, encoding="ascii") as fh:
            for line in fh:
                if line.startswith("some "):
                    total = line.rsplit("total=", 1)[1]
                    return int(total) / 1e6
    except (OSError, IndexError, ValueError):
        return None
    return None


async def bounded(aw: Awaitable[T], base_s: float, ceiling_s: float,
                  psi_path: str = PSI_CPU) -> T:
    """Await `aw` for at most `base_s` seconds plus the host's CPU stall time meanwhile,
    never more than `ceiling_s` (seconds, wall clock); returns its result. `psi_path`: the
    pressure file read (`stall_s`).

    Raises TimeoutError (after cancelling `aw`) when the bound passes, and whatever `aw`
    raises. Cancelling the caller cancels `aw`.
    """
    task = asyncio.ensure_future(aw)
    start, stall0 = time.monotonic(), stall_s(psi_path)
    limit = base_s
    try:
        while True:
            remaining = start + limit - time.monotonic()
            if remaining > 0:
                done, _ = await asyncio.wait({task}, timeout=remaining)
                if done:
                    return task.result()
                continue
            stall1 = stall_s(psi_path)
            stalled = stall1 - stall0 if stall0 is not None and stall1 is not None else 0.0
            grown = min(base_s + stalled, ceiling_s)
            if grown <= limit + 1e-3:
                raise TimeoutError(f"step exceeded {limit:.1f} s "
                                   f"({base_s:.1f} s + {stalled:.1f} s of CPU stall)")
            limit = grown
    finally:
        if not task.done():
            task.cancel()
            with contextlib.suppress(BaseException):
                await task
