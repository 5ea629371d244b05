"""The pool of job slots: each slot has its own uid, cgroup and job folder, one job at a time.

A job acquires a slot, gets a fresh empty folder (0700, owned by the slot uid: a new tmpfs
where the service may mount one, else a new directory), and on release the slot's stray
processes are killed (its cgroup, then its uid), orphaned zombies reaped and the folder wiped.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import os
import shutil
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path

from smolscript_sandbox.accounting import CpuMeter
from smolscript_sandbox.cgroups import SlotCgroup
from smolscript_sandbox.isolation import Identity
from smolscript_sandbox.limits import COMPILE_LIMITS
from smolscript_sandbox.reaper import REAPER, kill_uid
from smolscript_sandbox.statedir import mount_job_tmpfs, unmount

DEFAULT_UID_BASE = 61000
UID_SEARCH = 1000  # how far above the base to look for uids no other service holds
_LEASES: list[int] = []  # open lock fds: held for the life of the process


def lease_uids(count: int, base: int, lease_dir: Path) -> list[int]:
    """Reserve `count` uids from `base` up that no other service on this host holds.

    Each uid is held by an exclusive flock on `lease_dir/<uid>.lock` until the process
    exits, so two services (say, a test run and a benchmark) never share a slot uid (a slot's
    sweep kills every process of its uid). Raises RuntimeError when none are left.
    """
    lease_dir.mkdir(parents=True, exist_ok=True)
    os.chmod(lease_dir, 0o700)
    got: list[int] = []
    for uid in range(base, base + UID_SEARCH):
        if len(got) == count:
            break
        fd = os.open(lease_dir / f"{uid}.lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            continue
        _LEASES.append(fd)
        got.append(uid)
    if len(got) < count:
        raise RuntimeError(f"only {len(got)} free slot uids from {base}; {count} needed")
    return got


@dataclass(frozen=True)
class Slot:
    """One job slot: index, identity its processes run as (uid, cgroups), its private folder,
    its cgroup (None: rlimits only), whether its job folder is a tmpfs of its own and its
    CPU meter (`accounting.py`; None: no stage CPU figures)."""

    index: int
    identity: Identity
    root: Path
    cgroup: SlotCgroup | None = None
    tmpfs: bool = False
    meter: CpuMeter | None = None

    @property
    def job_dir(self) -> Path:
        """The folder bound at /job inside the sandbox for the current job."""
        return self.root / "job"


def make_slots(
    count: int,
    jobs_dir: Path,
    mode: str,
    uids: list[int] | None = None,
    cgroups: list[SlotCgroup] | None = None,
    meters: list[CpuMeter] | None = None,
) -> list[Slot]:
    """Create `count` slots under `jobs_dir`; `uids` (leased) in `bwrap+uid` mode; `cgroups`
    and CPU `meters` (one per slot) where the host has them. Job folders are tmpfs mounts in
    `bwrap+uid` mode.

    Raises ValueError for a count below 1 or too few uids.
    """
    if count < 1:
        raise ValueError(f"slot count must be at least 1, got {count}")
    if mode == "bwrap+uid" and (uids is None or len(uids) < count):
        raise ValueError("bwrap+uid mode needs one leased uid per slot")
    jobs_dir.mkdir(parents=True, exist_ok=True)
    os.chmod(jobs_dir, 0o711)  # slot uids may traverse, never list
    slots = []
    for i in range(count):
        cgroup = cgroups[i] if cgroups else None
        meter = meters[i] if meters else None
        procs = (cgroup.procs_files if cgroup is not None else ()) + (
            (meter.procs_file,) if meter is not None else ())
        if mode == "bwrap+uid":
            identity = Identity(uid=uids[i], gid=uids[i], cgroup_procs=procs)
        else:
            identity = Identity(uid=None, gid=None, cgroup_procs=procs)
        root = jobs_dir / f"slot{i}"
        root.mkdir(exist_ok=True)
        os.chmod(root, 0o711)
        slots.append(Slot(index=i, identity=identity, root=root, cgroup=cgroup,
                          tmpfs=mode == "bwrap+uid", meter=meter))
    return slots


def _fresh_dir(slot: Slot) -> None:
    """Give the slot an empty job folder owned by the slot uid, mode 0700: a new tmpfs (no
    host path in the job's mountinfo, wiped by unmounting), else a new directory."""
    if slot.tmpfs:
        slot.job_dir.mkdir(mode=0o700, exist_ok=True)
        if mount_job_tmpfs(slot.job_dir, COMPILE_LIMITS.tmpfs_bytes, slot.identity.uid):
            return
    shutil.rmtree(slot.job_dir, ignore_errors=True)
    slot.job_dir.mkdir(mode=0o700)
    if slot.identity.uid is not None:
        os.chown(slot.job_dir, slot.identity.uid, slot.identity.gid)


def sweep(slot: Slot) -> None:
    """Kill the slot's remaining processes and wipe its folder (runs in a worker thread)."""
    if slot.cgroup is not None:
        slot.cgroup.kill_all()
    if slot.identity.uid is not None:
        kill_uid(slot.identity.uid)
    if slot.tmpfs:
        unmount(slot.job_dir)
    shutil.rmtree(slot.job_dir, ignore_errors=True)


class SlotPool:
    """An asyncio pool of slots; `acquire()` waits for a free one."""

    def __init__(self, slots: list[Slot]) -> None:
        self.slots = slots
        self._free: asyncio.Queue[Slot] = asyncio.Queue()
        for slot in slots:
            self._free.put_nowait(slot)
        self.busy = 0

    @contextlib.asynccontextmanager
    async def acquire(self, stages: dict[str, float] | None = None) -> AsyncIterator[Slot]:
        """Yield a slot with a fresh job folder; always sweep and return it afterwards.

        `stages`, when given, receives the seconds spent waiting for the slot (`slot_wait_s`),
        preparing its folder (`setup_s`, `setup_cpu_s`) and sweeping it (`cleanup_s`,
        `cleanup_cpu_s`); the CPU figures are the service thread's own (`time.thread_time`).
        """
        stages = {} if stages is None else stages
        started = time.perf_counter()
        slot = await self._free.get()
        stages["slot_wait_s"] = time.perf_counter() - started
        self.busy += 1
        try:
            stages["setup_s"], stages["setup_cpu_s"] = await _timed(_fresh_dir, slot)
            yield slot
        finally:
            # The release runs to its end even when a cancel lands during the sweep (a
            # streamed job whose client leaves just after its last test): cut short, it
            # would leave the slot busy for good.
            release = asyncio.ensure_future(self._release(slot, stages))
            _RELEASING.add(release)
            release.add_done_callback(_RELEASING.discard)
            await asyncio.shield(release)

    async def _release(self, slot: Slot, stages: dict[str, float]) -> None:
        """Sweep `slot` and hand it back (kept out of use when the sweep fails)."""
        stages["cleanup_s"], stages["cleanup_cpu_s"] = await _timed(sweep, slot)
        REAPER.reap_orphans()
        self.busy -= 1
        self._free.put_nowait(slot)


_RELEASING: set[asyncio.Task] = set()  # slot releases still running after a cancel


async def _timed(work: Callable[[Slot], None], slot: Slot) -> tuple[float, float]:
    """Run `work(slot)` in a worker thread; (elapsed seconds, that thread's CPU seconds)."""

    def run() -> float:
        cpu = time.thread_time()
        work(slot)
        return time.thread_time() - cpu

    started = time.perf_counter()
    cpu = await asyncio.to_thread(run)
    return time.perf_counter() - started, cpu
