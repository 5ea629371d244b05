"""CPU time and run-queue wait of a sandboxed process tree, from the scheduler's own counters.

Time verdicts must not depend on machine load. The kernel counts, per thread, the time it ran
and the time it was runnable but waiting for a CPU (`/proc/<pid>/task/<tid>/schedstat`: first
and second fields, nanoseconds, Linux's scheduler statistics, CONFIG_SCHED_INFO). These are
exact, where RLIMIT_CPU is checked against tick-sampled time that under load runs ahead (here:
SIGXCPU at 2.65 s of real CPU for a 3 s limit, load 13 on 2 cores). `process.py` judges "too
slow" by the exact CPU time and extends the wall deadline by the run-queue wait, so that the
wall limit measures only time spent neither running nor waiting to run (sleeping, blocked).
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


def sample(pids: list[int]) -> tuple[float, float]:
    """(CPU seconds, longest run-queue wait in seconds) of the live threads of `pids`.

    The CPU time is the sum over threads (a thread that already ended is not counted); the
    wait is the longest of any one thread (a single-threaded program: exactly its own).
    """
    ran = longest = 0
    for pid in pids:
        with contextlib.suppress(OSError):
            for tid in os.listdir(f"{_PROC}/{pid}/task"):
                with contextlib.suppress(OSError, ValueError, IndexError):
                    with open(f"{_PROC}/{pid}/task/{tid}/schedstat", "rb") as f:
                        fields = f.read().split()
                    ran += int(fields[0])
                    longest = max(longest, int(fields[1]))
    return ran / 1e9, longest / 1e9
