"""CPU time and run-queue wait of a sandboxed process tree, from the scheduler's own counters.

Time verdicts must not depend on machine load. The kernel counts, per thread, the time it ran
and the time it was runnable but waiting for a CPU (`/proc/<pid>/task/<tid>/schedstat`: first
and second fields, nanoseconds, Linux's scheduler statistics, CONFIG_SCHED_INFO). These are
exact, where RLIMIT_CPU is checked against tick-sampled time that under load runs ahead (here:
SIGXCPU at 2.65 s of real CPU for a 3 s limit, load 13 on 2 cores). `process.py` judges "too
slow" by the exact CPU time and extends the wall deadline by the run-queue wait, so that the
wall limit measures only time spent neither running nor waiting to run (sleeping, blocked).
Ended threads and reaped children count too (`/proc/<pid>/stat`, below), so that work split
over short-lived processes or threads is not missed; the job's exact total, where the host has
it, is the slot's cpuacct meter (`accounting.py`), which `process.py` reads beside this.
Reading is best effort: a process that ended, or a kernel without schedstat, reads as 0 (the
RLIMIT_CPU backstop and the plain wall limit then apply).
"""

from __future__ import annotations

import contextlib
import os

_PROC = "/proc"


def _parent_map() -> dict[int, int]:
    """pid -> parent pid of every process visible here (one pass over /proc/<pid>/stat)."""
    parents: dict[int, int] = {}
    for name in os.listdir(_PROC):
        if not name.isdigit():
            continue
        with contextlib.suppress(OSError, ValueError, IndexError):
            with open(f"{_PROC}/{name}/stat", "rb") as f:
                stat = f.read()
            # The command name may hold spaces and parentheses: fields follow the last ')'.
            parents[int(name)] = int(stat[stat.rindex(b")") + 2 :].split()[1])
    return parents


def tree_pids(root: int) -> list[int]:
    """`root` and all its descendants that are alive now (pids as this namespace sees them)."""
    children: dict[int, list[int]] = {}
    for pid, parent in _parent_map().items():
        children.setdefault(parent, []).append(pid)
    found, stack = [], [root]
    while stack:
        pid = stack.pop()
        found.append(pid)
        stack.extend(children.get(pid, ()))
    return found


_TICK_S = 1.0 / os.sysconf("SC_CLK_TCK")


def _stat_cpu(pid: int) -> tuple[float, float]:
    """(own, reaped children's) CPU seconds of process `pid` from `/proc/<pid>/stat`.

    `utime + stime` (fields 14-15) cover every thread the process ever had, ended ones
    included; `cutime + cstime` (16-17) every child it has waited for, with their own waited
    children (proc(5)). Linux scales both pairs to the scheduler's exact runtime
    (`cputime_adjust`), in clock ticks. Raises OSError, ValueError or IndexError.
    """
    with open(f"{_PROC}/{pid}/stat", "rb") as f:
        stat = f.read()
    fields = stat[stat.rindex(b")") + 2 :].split()  # fields[0] is field 3 (state)
    utime, stime, cutime, cstime = (int(fields[i]) for i in range(11, 15))
    return (utime + stime) * _TICK_S, (cutime + cstime) * _TICK_S


def sample(pids: list[int]) -> tuple[float, float]:
    """(CPU seconds, longest run-queue wait in seconds) of the processes `pids`.

    The CPU time counts, per process, its live threads' exact runtimes (schedstat) or, when
    larger, its whole-process time (threads that already ended), plus the time of the
    children it has reaped: short-lived children and threads count once they end, not only
    while they run. (A job's exact total is its slot's cpuacct meter, `accounting.py`; this
    is what the watchdog has where there is none.) The wait is the longest of any one live
    thread (a single-threaded program: exactly its own).
    """
    total = 0.0
    longest = 0
    for pid in pids:
        ran = 0
        with contextlib.suppress(OSError):
            for tid in os.listdir(f"{_PROC}/{pid}/task"):
                with contextlib.suppress(OSError, ValueError, IndexError):
                    with open(f"{_PROC}/{pid}/task/{tid}/schedstat", "rb") as f:
                        fields = f.read().split()
                    ran += int(fields[0])
                    longest = max(longest, int(fields[1]))
        own, reaped = 0.0, 0.0
        with contextlib.suppress(OSError, ValueError, IndexError):
            own, reaped = _stat_cpu(pid)
        total += max(ran / 1e9, own) + reaped
    return total, longest / 1e9
