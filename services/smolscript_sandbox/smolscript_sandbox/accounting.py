"""Exact CPU accounting per slot (cgroup v1 `cpuacct`): the CPU limit of each run (the total
of all its processes, `process.watch`) and the stage timings of job replies.

Each program slot gets `<own cpuacct cgroup>/smolscript-<port>/slot<i>`; the launcher of
`isolation.launch_argv` joins it (beside the slot's memory, pids and cpu cgroups) before it
drops privileges, so every process of a compile or test run, and everything they fork, is
counted. `cpuacct.usage` is the kernel's own count of the CPU time of the group's tasks in
nanoseconds (Linux's cgroup-v1 cpuacct controller: exact scheduler runtime, not sampled
ticks). One slot runs one job at a time and the stages of a job run one after another, so the
difference of two readings around a stage is that stage's CPU. Where no writable cpuacct
hierarchy exists (cgroup v2 only, a read-only /sys/fs/cgroup in a container) there are no
meters and the replies omit their CPU figures.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from pathlib import Path

from smolscript_sandbox.cgroups import V1_ROOT, own_cgroup

CONTROLLER = "cpuacct"


@dataclass(frozen=True)
class CpuMeter:
    """One slot's cpuacct cgroup."""

    path: Path

    @property
    def procs_file(self) -> str:
        """The `cgroup.procs` file the launcher writes its pid to."""
        return str(self.path / "cgroup.procs")

    def read(self) -> float:
        """CPU seconds used so far by every task that was ever in this group (user + system);
        0.0 if the group cannot be read."""
        try:
            return int((self.path / "cpuacct.usage").read_text()) / 1e9
        except (OSError, ValueError):
            return 0.0

    def remove(self) -> None:
        """Remove the group, and the service's parent once no slot is left (best effort)."""
        for path in (self.path, self.path.parent):
            with contextlib.suppress(OSError):
                path.rmdir()


def setup_meters(name: str, count: int, root: Path = V1_ROOT) -> list[CpuMeter] | None:
    """Create (or reuse) `count` cpuacct groups `name/slot<i>` under this process's own
    cpuacct cgroup; None where no writable cpuacct v1 hierarchy exists (never raises)."""
    own = own_cgroup(CONTROLLER)
    base = root / CONTROLLER
    if own is None or not (base / "cpuacct.usage").exists():
        return None
    parent = base / own.lstrip("/") / name
    meters = []
    try:
        parent.mkdir(exist_ok=True)
        for i in range(count):
            path = parent / f"slot{i}"
            path.mkdir(exist_ok=True)
            meters.append(CpuMeter(path))
    except OSError:
        return None
    return meters
