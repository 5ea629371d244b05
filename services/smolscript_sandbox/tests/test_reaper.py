"""The orphan reaper never takes a child that asyncio still waits for, pid reuse included
(issue 43, item 4).

Under load a JavaScript reference came back with asyncio's "exit status already read: will
report returncode 255". The cause: a run's owner forgot its pid only after it had finished
reading the run's pipes (up to seconds after asyncio had reaped it); when the kernel handed the
same pid to the next sandbox meanwhile (pids wrap at pid_max, 32768 here, and a loaded host
forks fast), the old owner's `untrack` removed the new run's entry, and the next orphan sweep
reaped the new run's bwrap before asyncio could. The test forces that pid reuse through
`ns_last_pid` and runs the sweep at the worst moment.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import time
from pathlib import Path

import pytest
from smolscript_sandbox.reaper import Reaper, use_pidfd_watcher

pytestmark = pytest.mark.integration

NS_LAST_PID = Path("/proc/sys/kernel/ns_last_pid")


def _state(pid: int) -> str:
    text = Path(f"/proc/{pid}/stat").read_text()
    return text[text.rfind(")") + 2]


async def _spawn(reaper: Reaper, program: Path, seconds: str) -> asyncio.subprocess.Process:
    """Start `program seconds` the way `process.run_sandboxed` does: tracked from its spawn."""
    with reaper.spawning():
        proc = await asyncio.create_subprocess_exec(str(program), seconds)
        reaper.track(proc.pid)
    return proc


async def _reused_pid_scenario(program: Path) -> int | None:
    """The second run's exit status as asyncio reads it, or None when its pid could not be
    made the first run's (another process on the host took it first)."""
    reaper = Reaper()
    first = await _spawn(reaper, program, "0")
    await first.wait()  # reaped by asyncio; its owner still reads its pipes, still tracks it
    NS_LAST_PID.write_text(str(first.pid - 1))
    second = await _spawn(reaper, program, "0.3")
    if second.pid != first.pid:
        second.kill()
        await second.wait()
        return None
    reaper.untrack(first.pid)  # the first run's owner is done with its pid
    while _state(second.pid) != "Z":  # the loop is held: the second exits, nobody reads it yet
        time.sleep(0.01)
    reaper.reap_orphans()  # another slot's sweep runs before the loop sees the exit
    return await second.wait()


def test_a_reused_pid_stays_with_the_run_that_holds_it(tmp_path):
    if os.geteuid() != 0 or not os.access(NS_LAST_PID, os.W_OK):
        pytest.skip("forcing a pid needs root (as CI and the service have)")
    program = tmp_path / "bwrap"  # the reaper takes zombies by bwrap's name
    shutil.copy("/usr/bin/sleep", program)
    previous = asyncio.get_child_watcher()
    try:
        for _ in range(20):  # other processes may take the pid first: try again
            loop = asyncio.new_event_loop()
            try:
                use_pidfd_watcher(loop)
                code = loop.run_until_complete(_reused_pid_scenario(program))
            finally:
                loop.close()
            if code is not None:
                break
        else:
            pytest.skip("the host never left the forced pid free")
    finally:
        asyncio.set_child_watcher(previous)
    assert code == 0  # asyncio read the real status (not the 255 of a status taken away)
