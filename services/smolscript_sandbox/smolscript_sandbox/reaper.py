"""Child subreaper and stray-process cleanup, so that no zombie or job process outlives a job.

The service registers itself as a child subreaper (prctl PR_SET_CHILD_SUBREAPER): anything a
sandbox orphans is re-parented to the service instead of init (in practice bwrap's monitor
process, which can outlive the bwrap process the service waited for). After each job the
slot's uid is swept (every remaining process of that uid is killed) and orphaned zombies are
reaped. Zombies of processes that asyncio is still waiting for are left to asyncio (tracked).
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import os
import subprocess
import sys
from collections import Counter
from collections.abc import Iterator

PR_SET_CHILD_SUBREAPER = 36
KILL = "/usr/bin/kill"


class Reaper:
    """Tracks the service's own live children and reaps everything else that becomes a zombie."""

    def __init__(self) -> None:
        # A count per pid, not a set: a run's owner forgets its pid only after it has read the
        # run's pipes, seconds after asyncio reaped it under load, and the kernel may have
        # handed the same pid to the next sandbox meanwhile (pids wrap at pid_max). With a set,
        # the old owner's `untrack` dropped the new run's entry and the next sweep reaped the
        # new run's bwrap before asyncio could: "exit status already read: will report
        # returncode 255" (issue 43, item 4; services/smolscript_sandbox/tests/test_reaper.py).
        self._tracked: Counter[int] = Counter()
        self._spawning = 0
        self._deferred = False
        self.subreaper = False

    def become_subreaper(self) -> bool:
        """Mark this process as a child subreaper; returns whether the kernel accepted it."""
        libc = ctypes.CDLL(None, use_errno=True)
        self.subreaper = libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
        return self.subreaper

    @contextlib.contextmanager
    def spawning(self) -> Iterator[None]:
        """Wrap a spawn (track the new pid inside it): until the new pid is tracked,
        `reap_orphans` must not run. A reap asked for meanwhile runs when the last spawn in
        flight ends, so that a busy service (a spawn in flight most of the time) still reaps."""
        self._spawning += 1
        try:
            yield
        finally:
            self._spawning -= 1
            if not self._spawning and self._deferred:
                self.reap_orphans()

    def track(self, pid: int) -> None:
        """Remember a child that asyncio waits for (never reap it here). Each `track` needs
        its own `untrack`: a pid handed out again while its first holder still tracks it
        stays protected until both have let it go."""
        self._tracked[pid] += 1

    def untrack(self, pid: int) -> None:
        """Forget one `track` of a child once asyncio has collected it."""
        if self._tracked[pid] > 1:
            self._tracked[pid] -= 1
        else:
            del self._tracked[pid]

    def reap_orphans(self) -> int:
        """waitpid every zombie child of ours that nobody tracks; returns how many were reaped.

        Call it from the event loop thread (spawns and tracking happen there). While a spawn is
        in flight (that child's pid is not tracked yet) it is deferred to the spawn's end.
        """
        if self._spawning:
            self._deferred = True
            return 0
        self._deferred = False
        reaped = 0
        for pid in child_pids():
            if pid in self._tracked:
                continue
            state, name = _state_and_name(pid)
            # Only bwrap's helpers are ever orphaned to us; other children (Playwright's
            # driver, subprocess.run) are waited for by their own owners.
            if state == "Z" and name == "bwrap":
                with contextlib.suppress(ChildProcessError):
                    os.waitpid(pid, os.WNOHANG)
                    reaped += 1
        return reaped


def child_pids() -> set[int]:
    """Pids of this process's children (all threads), from /proc/self/task/*/children."""
    pids: set[int] = set()
    for task in os.listdir("/proc/self/task"):
        with contextlib.suppress(OSError):
            with open(f"/proc/self/task/{task}/children", encoding="ascii") as fh:
                pids.update(int(p) for p in fh.read().split())
    return pids


def _state_and_name(pid: int) -> tuple[str, str]:
    """(state letter, command name) of `pid` from /proc/<pid>/stat, ("", "") if gone."""
    try:
        with open(f"/proc/{pid}/stat", encoding="utf-8", errors="replace") as fh:
            line = fh.read()
    except OSError:
        return "", ""
    name = line[line.find("(") + 1 : line.rfind(")")]
    return line[line.rfind(")") + 2 : line.rfind(")") + 3], name


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


def kill_uid(uid: int) -> None:
    """SIGKILL every process running as `uid` (never 0).

    Runs `kill -9 -1` as that uid: the kernel signals every process the uid may signal (its
    own, including non-dumpable ones that hide their /proc entry), except the kill itself.
    """
    if uid == 0:
        raise ValueError("refusing to sweep uid 0")
    subprocess.run(
        ["setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups", "--", KILL, "-9", "-1"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        check=False,
        timeout=10,
    )


def use_pidfd_watcher(loop: asyncio.AbstractEventLoop) -> bool:
    """Wait for asyncio's subprocesses through pid file descriptors on `loop`; returns whether
    this call installed that watcher.

    Python 3.11's default child watcher starts a thread per subprocess, and `Thread.start`
    holds the event loop until the thread runs (about 1 ms per sandboxed process on a busy
    host, during which no other slot is served). asyncio's `PidfdChildWatcher` (Linux 5.3+)
    waits in the loop itself; Python 3.12 and later choose it by themselves, so nothing is
    done there, nor where the kernel has no pidfds.
    """
    if sys.version_info >= (3, 12) or not hasattr(os, "pidfd_open"):
        return False
    try:
        os.close(os.pidfd_open(os.getpid()))
    except OSError:
        return False
    watcher = asyncio.PidfdChildWatcher()
    watcher.attach_loop(loop)
    asyncio.set_child_watcher(watcher)
    return True


REAPER = Reaper()
