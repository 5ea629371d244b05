"""Per-slot cgroups (v1): one memory (+swap), pids and CPU-quota limit over every process of a
job and every tmpfs page it writes (issue 18, items 1 and 2).

Each program slot gets `<own cgroup>/smolscript-<port>/slot<i>` in the memory, pids and cpu
hierarchies, created under the service's own cgroup (so inside a container, under the
container's). The launcher (`isolation.launch_argv`) writes itself into the slot's
`cgroup.procs` files before it drops privileges, so every process of a compile or test run
starts inside them; tmpfs pages are charged to the memory cgroup of the process that wrote
them. Where no writable cgroup v1 hierarchy exists (cgroup v2 only, a read-only /sys/fs/cgroup
in a container), `setup_slot_cgroups` says so and the service runs with per-process rlimits
only, except in a container: there the container's own cgroup (memory, pids and CPU quota
set by the engine, read-only inside) bounds the whole service, which is a per-job bound when
the container runs one program slot, the production layout (`container_cgroups`). The health
record's `memory.accounting` tells which is in force and `memory.per_job` whether one job's
memory and CPU are bounded apart from every other job's.
"""

from __future__ import annotations

import contextlib
import os
import signal
from dataclasses import dataclass
from pathlib import Path

V1_ROOT = Path("/sys/fs/cgroup")
CONTROLLERS = ("memory", "pids", "cpu")
CFS_PERIOD_US = 100_000
CPU_SHARES = 1024  # the kernel's weight of one process at nice 0


@dataclass(frozen=True)
class SlotLimits:
    """What one slot may use in total: bytes of memory (and memory+swap), processes, CPUs."""

    memory_bytes: int
    pids: int
    cpus: float


@dataclass(frozen=True)
class SlotCgroup:
    """One slot's cgroup directories, by controller."""

    dirs: dict[str, Path]

    @property
    def procs_files(self) -> tuple[str, ...]:
        """The `cgroup.procs` files a process writes its pid to, one per controller."""
        return tuple(str(d / "cgroup.procs") for d in self.dirs.values())

    def oom_kills(self) -> int:
        """How many processes the kernel's OOM killer has killed in this cgroup so far."""
        return _oom_kills(self.dirs["memory"])

    def kill_all(self) -> None:
        """SIGKILL every process still in the slot (whatever uid it runs as)."""
        with contextlib.suppress(OSError):
            for pid in (self.dirs["pids"] / "cgroup.procs").read_text().split():
                with contextlib.suppress(ProcessLookupError, ValueError):
                    os.kill(int(pid), signal.SIGKILL)

    def remove(self) -> None:
        """Remove the slot's directories, and the service's parent once no slot is left
        (only works once they are empty; best effort)."""
        for path in self.dirs.values():
            with contextlib.suppress(OSError):
                path.rmdir()
            with contextlib.suppress(OSError):
                path.parent.rmdir()


@dataclass(frozen=True)
class ContainerCgroup:
    """The container's own memory cgroup, as the engine mounts it inside (read-only): read for
    OOM kills only. Processes are in it from the start, so there is nothing to join
    (`procs_files` is empty), and nothing to kill or remove (the pid namespace of each
    sandbox takes its processes down)."""

    memory_dir: Path = V1_ROOT / "memory"
    procs_files: tuple[str, ...] = ()

    def oom_kills(self) -> int:
        """How many processes the kernel's OOM killer has killed in the container so far."""
        return _oom_kills(self.memory_dir)

    def kill_all(self) -> None:
        """Nothing: the container's cgroup also holds the service."""

    def remove(self) -> None:
        """Nothing: the engine owns the container's cgroup."""


def _oom_kills(memory_dir: Path) -> int:
    """The `oom_kill` counter of a v1 memory cgroup (0 when unreadable: kernels before 4.13)."""
    with contextlib.suppress(OSError, ValueError):
        for line in (memory_dir / "memory.oom_control").read_text().splitlines():
            key, _, value = line.partition(" ")
            if key == "oom_kill":
                return int(value)
    return 0


def _read_int(path: Path) -> int | None:
    with contextlib.suppress(OSError, ValueError):
        return int(path.read_text().split()[0])
    return None


def container_cgroups(count: int, reason: str) -> tuple[list[ContainerCgroup] | None, dict]:
    """Inside a container without writable cgroups: the container's own limits as the
    accounting of `count` program slots. `reason` says why no slot cgroup could be made.

    Returns (one `ContainerCgroup` per slot, the accounting record), or (None, the rlimits-only
    record) when the container's memory limit cannot be read or is unlimited. `per_job` is
    True only for one program slot: with more, the slots share the container's limits.
    """
    memory = V1_ROOT / "memory"
    limit = _read_int(memory / "memory.limit_in_bytes")
    if limit is None or limit >= 1 << 60:  # the kernel's "unlimited" is near 2**63
        return None, _fallback(f"{reason}; no container memory limit either")
    quota = _read_int(V1_ROOT / "cpu" / "cpu.cfs_quota_us")
    period = _read_int(V1_ROOT / "cpu" / "cpu.cfs_period_us")
    pids = _read_int(V1_ROOT / "pids" / "pids.max")
    record = {
        "accounting": "container cgroup (one program slot)" if count == 1
        else f"container cgroup shared by {count} program slots",
        "per_job": count == 1,
        "slot_limit_bytes": limit,
        "slot_pids": pids,
        "slot_cpus": quota / period if quota and quota > 0 and period else None,
        "cgroup": "the container's own",
    }
    if count > 1:
        record["reason"] = (f"{reason}: {count} program slots share the container's memory and "
                            "CPU; run one slot per container for a per-job bound")
    return [ContainerCgroup(memory)] * count, record


def own_cgroup(controller: str, proc_cgroup: str = "/proc/self/cgroup") -> str | None:
    """This process's cgroup path in the v1 hierarchy of `controller`, or None."""
    with contextlib.suppress(OSError):
        for line in Path(proc_cgroup).read_text().splitlines():
            _id, names, path = line.split(":", 2)
            if controller in names.split(","):
                return path
    return None


def setup_slot_cgroups(
    name: str, count: int, limits: SlotLimits
) -> tuple[list[SlotCgroup] | None, dict]:
    """Create (or reuse) `count` slot cgroups named `name/slot<i>` with `limits`.

    Returns (the slots' cgroups, or None when no writable v1 hierarchy of every controller
    exists; the accounting record for /health). Never raises for a host without cgroups.
    """
    parents: dict[str, Path] = {}
    for controller in CONTROLLERS:
        own = own_cgroup(controller)
        base = V1_ROOT / controller
        if own is None or not (base / "cgroup.procs").exists():
            return None, _fallback(f"no cgroup v1 {controller} hierarchy")
        parent = base / own.lstrip("/") / name
        try:
            parent.mkdir(exist_ok=True)
        except OSError as exc:
            return None, _fallback(f"cgroup {controller} not writable ({exc.strerror})")
        parents[controller] = parent
    swap = (parents["memory"] / "memory.memsw.limit_in_bytes").exists()
    slots = []
    try:
        # In cgroup v1 a group competes with the processes beside it as if it were one
        # process: weigh the service's group as `count` processes, or on a busy host all its
        # slots together would get the share of a single one.
        _write(parents["cpu"] / "cpu.shares", CPU_SHARES * count)
        for i in range(count):
            dirs = {c: parents[c] / f"slot{i}" for c in CONTROLLERS}
            for path in dirs.values():
                path.mkdir(exist_ok=True)
            _set_memory(dirs["memory"], limits.memory_bytes, swap)
            _write(dirs["pids"] / "pids.max", limits.pids)
            _write(dirs["cpu"] / "cpu.cfs_period_us", CFS_PERIOD_US)
            _write(dirs["cpu"] / "cpu.cfs_quota_us", int(limits.cpus * CFS_PERIOD_US))
            slots.append(SlotCgroup(dirs=dirs))
    except OSError as exc:
        return None, _fallback(f"cannot set cgroup limits ({exc})")
    return slots, {
        "accounting": "cgroup-v1 memory+swap" if swap else "cgroup-v1 memory (no swap accounting)",
        "per_job": True,
        "slot_limit_bytes": limits.memory_bytes,
        "slot_pids": limits.pids,
        "slot_cpus": limits.cpus,
        "cgroup": str(parents["memory"]),
    }


def _set_memory(path: Path, limit: int, swap: bool) -> None:
    """memory (and memory+swap, which may never be below memory) limits, in a valid order."""
    memsw = path / "memory.memsw.limit_in_bytes"
    try:
        _write(path / "memory.limit_in_bytes", limit)
    except OSError:
        if not swap:
            raise
        _write(memsw, limit)  # raising a reused slot's limit: memory+swap first
        _write(path / "memory.limit_in_bytes", limit)
    if swap:
        _write(memsw, limit)


def _write(path: Path, value: int) -> None:
    path.write_text(str(value))


def _fallback(reason: str) -> dict:
    """The accounting record when no per-slot cgroup can be used."""
    return {
        "accounting": "rlimits only",
        "per_job": False,
        "cause": reason,
        "reason": f"{reason}: memory is limited per process (address space), not per job",
        "slot_limit_bytes": None,
        "slot_pids": None,
        "slot_cpus": None,
    }
