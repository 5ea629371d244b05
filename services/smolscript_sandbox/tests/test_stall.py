"""The load-aware bound of browser steps (`stall.py`): a step gets its base time plus the CPU
stall the host reports meanwhile, up to a ceiling; without stall (or without the pressure
file) exactly its base."""

from __future__ import annotations

import asyncio
import time

import pytest
from smolscript_sandbox.stall import bounded, stall_s

pytestmark = pytest.mark.unit

PSI = ("some avg10=0.00 avg60=0.00 avg300=0.00 total={}\n"
       "full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n")


def test_reads_the_some_total_in_seconds(tmp_path):
    path = tmp_path / "cpu"
    path.write_text(PSI.format(2_500_000))
    assert stall_s(str(path)) == 2.5
    assert stall_s(str(tmp_path / "missing")) is None


async def _elapsed(path, step_s: float, saturate: bool) -> tuple[float, bool]:
    """(seconds until `bounded` returned or timed out, whether it timed out) for a step of
    `step_s` seconds under a base of 0.2 s and a ceiling of 1.0 s."""
    stop = asyncio.Event()

    async def stall() -> None:  # a saturated host: stall time passes as fast as wall time
        total = int(stall_s(str(path)) * 1e6)  # a cumulative count: it never goes back
        while not stop.is_set():
            total += 50_000
            path.write_text(PSI.format(total))
            await asyncio.sleep(0.05)

    writer = asyncio.create_task(stall()) if saturate else None
    started = time.monotonic()
    try:
        await bounded(asyncio.sleep(step_s), 0.2, 1.0, psi_path=str(path))
        timed_out = False
    except TimeoutError:
        timed_out = True
    finally:
        stop.set()
        if writer is not None:
            await writer
    return time.monotonic() - started, timed_out


async def test_idle_host_gets_the_base(tmp_path):
    path = tmp_path / "cpu"
    path.write_text(PSI.format(0))
    elapsed, timed_out = await _elapsed(path, 5.0, saturate=False)
    assert timed_out and 0.2 <= elapsed < 0.6
    elapsed, timed_out = await _elapsed(tmp_path / "missing", 5.0, saturate=False)
    assert timed_out and 0.2 <= elapsed < 0.6


async def test_stall_extends_a_step_up_to_the_ceiling(tmp_path):
    path = tmp_path / "cpu"
    path.write_text(PSI.format(0))
    elapsed, timed_out = await _elapsed(path, 0.5, saturate=True)  # past the base, finishes
    assert not timed_out and 0.5 <= elapsed < 0.9
    elapsed, timed_out = await _elapsed(path, 5.0, saturate=True)  # a hang still ends
    assert timed_out and 1.0 <= elapsed < 1.6
