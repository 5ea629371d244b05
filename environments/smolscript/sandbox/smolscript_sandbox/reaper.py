"""Child subreaper and stray-process cleanup, so that no zombie or job process outlives a job.

The service registers itself as a child subreaper (prctl PR_SET_CHILD_SUBREAPER): anything a
sandbox orphans is re-parented to the service instead of init (in practice bwrap's monitor
process, which can outlive the bwrap process the service waited for). After each job the
slot's uid is swept (every remaining process of that uid is killed) and orphaned zombies are
reaped. Zombies of processes that asyncio is still waiting for are left to asyncio (tracked).
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
from collections.abc import Iterator

PR_SET_CHILD_SUBREAPER = 36


class Reaper:
    """Tracks the service's own live children and reaps everything else that becomes a zombie."""

    def __init__(self) -> None:
        self._tracked: set[int] = set()
        self._spawning = 0
        self.subreaper = False

    def become_subreaper(self) -> bool:
        """Mark this process as a child subreaper; returns whether the kernel accepted it."""
        libc = ctypes.CDLL(None, use_errno=True)
        self.subreaper = libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
        return self.subreaper

    @contextlib.contextmanager
    def spawning(self) -> Iterator[None]:
        """Wrap a spawn: until the new pid is tracked, `reap_orphans` must not run."""
        self._spawning += 1
        try:
            yield
        finally:
            self._spawning -= 1

    def track(self, pid: int) -> None:
        """Remember a child that asyncio waits for (never reap it here)."""
        self._tracked.add(pid)

    def untrack(self, pid: int) -> None:
        """Forget a child once asyncio has collected it."""
        self._tracked.discard(pid)

    def reap_orphans(self) -> int:
        """waitpid every zombie child of ours that nobody tracks; returns how many were reaped.

        Call it from the event loop thread (spawns and tracking happen there); it does nothing
        while a spawn is in flight, since that child's pid is not tracked yet.
        """
        if self._spawning:
            return 0
        me = os.getpid()
        reaped = 0
        for pid, ppid, state, _uid, name in list_processes():
            # Only bwrap's helpers are ever orphaned to us; other children (Playwright's
            # driver, subprocess.run) are waited for by their own owners.
            if ppid == me and state == "Z" and name == "bwrap" and pid not in self._tracked:
                with contextlib.suppress(ChildProcessError):
                    os.waitpid(pid, os.WNOHANG)
                    reaped += 1
        return reaped


def list_processes() -> list[tuple[int, int, str, int, str]]:
    """(pid, ppid, state letter, real uid, command name) of every process visible in /proc."""
    rows = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/status", encoding="utf-8", errors="replace") as fh:
                fields = dict(line.split(":", 1) for line in fh if ":" in line)
        except OSError:
            continue
        try:
            rows.append(
                (
                    int(entry),
                    int(fields["PPid"].strip()),
                    fields["State"].strip()[:1],
                    int(fields["Uid"].split()[0]),
                    fields["Name"].strip(),
                )
            )
        except (KeyError, ValueError, IndexError):
            continue
    return rows


def kill_uid(uid: int) -> int:
    """SIGKILL every live process whose real uid is `uid` (never 0); returns how many."""
    if uid == 0:
        raise ValueError("refusing to sweep uid 0")
    killed = 0
    for pid, _ppid, state, puid, _name in list_processes():
        if puid == uid and state != "Z":
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
                killed += 1
    return killed


REAPER = Reaper()
