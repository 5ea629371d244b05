"""How many llama.cpp threads the local model server can use without waiting on other programs.

llama.cpp's CPU backend splits each operation of a decode over its threads and makes them all
meet at a barrier after it, hundreds of times per token. When another program keeps a core
busy, the thread scheduled beside it runs only in time slices and every barrier waits for it.
Measured here (2 cores, one `while True: pass` process beside the server, 16-token greedy
generations, median of 3; `benchmarks/bench_serve_tokens.py -n 16 --rounds 3`): SmolLM2-135M
Q4_1 generated 0.7 tokens/s with 2 fixed threads and 44.2 governed; Gemma 3 270M 0.4 and 24.7.
The remedy is to use only the cores nobody else is using, decided again as the load changes.
The server applies it only with `--governed-threads`: beside a client that works between its
requests the governor takes one thread too often and 2 fixed threads are faster (README,
"Threads").

`ThreadGovernor` samples, every `period_s`, the busy time of the CPUs this process may run on
(`/proc/stat`, the CPUs of `os.sched_getaffinity`) less this process's own CPU time: what the
other programs used. The thread count for the next decode is the cores they left free,
between 1 and the ceiling (`threads_for`). That window looks back: a client that worked until
it sent its request and now waits for the reply would cost the request its second thread. So
each decode also reads the tasks runnable at this instant (`/proc/loadavg`, less the decoding
thread itself) and takes the larger of the two counts (`threads_now`): a program that keeps a
core busy is both in the window and runnable now, a client waiting on us is neither now. The
instant count is machine-wide (a container sees its host's), so on a busy host it never raises
the count above the window's. The thread count never changes a result, as measured: the
logits are bit-identical with 1 and 2 threads and when the count changes between decodes
(`tests/core/server/test_cpushare.py` checks this on SmolLM2; Gemma 3 270M was checked by hand).
"""

from __future__ import annotations

import math
import os
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass

# /proc/stat's per-CPU columns after the name: user nice system idle iowait irq softirq steal
# (guest time is already inside user). Busy is everything but idle and iowait: a virtual
# machine's steal counts as others' load, as it stalls llama.cpp's threads the same way.
IDLE_COLUMNS = (3, 4)
BUSY_COLUMNS = 8
# Other programs' load (in cores) that still counts as a free core: brief wake-ups of daemons
# and of the client waiting on us must not halve the server.
SLACK_CORES = 0.2


@dataclass(frozen=True)
class CpuSample:
    """One reading: monotonic time (s), busy seconds of the watched CPUs since boot, and this
    process's CPU seconds (user + system, every thread)."""

    at_s: float
    busy_s: float
    own_s: float


def busy_seconds(stat_text: str, cpus: Iterable[int], ticks_per_s: float) -> float:
    """Busy seconds since boot of `cpus` (indices) from the text of /proc/stat. Pure.

    Raises ValueError when a watched CPU has no `cpuN` line.
    """
    wanted = set(cpus)
    total, seen = 0, set()
    for line in stat_text.splitlines():
        name, _, rest = line.partition(" ")
        if not name.startswith("cpu") or name == "cpu" or int(name[3:]) not in wanted:
            continue
        values = [int(v) for v in rest.split()[:BUSY_COLUMNS]]
        total += sum(v for i, v in enumerate(values) if i not in IDLE_COLUMNS)
        seen.add(int(name[3:]))
    if seen != wanted:
        raise ValueError(f"/proc/stat has no line for CPUs {sorted(wanted - seen)}")
    return total / ticks_per_s


def others_cores(before: CpuSample, after: CpuSample) -> float:
    """Cores the other programs kept busy on average between two samples (>= 0). Pure.

    Raises ValueError when `after` is not later than `before`.
    """
    wall = after.at_s - before.at_s
    if wall <= 0:
        raise ValueError(f"samples out of order: {before.at_s} then {after.at_s}")
    return max(0.0, (after.busy_s - before.busy_s - (after.own_s - before.own_s)) / wall)


def threads_for(others: float, cores: int, ceiling: int) -> int:
    """Threads for the next decode: the cores `others` leave free (a core busy for more than
    SLACK_CORES counts as taken), at least 1 and at most `ceiling`. Pure."""
    free = math.floor(cores - others + SLACK_CORES)
    return max(1, min(ceiling, free))


def threads_now(window_threads: int, running: int, cores: int, ceiling: int) -> int:
    """The count for this decode: the window's, or more when the tasks runnable now, less the
    decoding thread (`running` counts it), leave more cores free. Pure."""
    return max(window_threads, threads_for(max(0, running - 1), cores, ceiling))


def running_tasks(loadavg_text: str) -> int:
    """Tasks runnable now, from the text of /proc/loadavg (`0.52 0.58 0.59 3/467 12345`: 3).
    Pure. Raises ValueError on another format."""
    fields = loadavg_text.split()
    if len(fields) < 4 or "/" not in fields[3]:
        raise ValueError(f"not /proc/loadavg: {loadavg_text!r}")
    return int(fields[3].split("/")[0])


def read_sample(cpus: Iterable[int]) -> CpuSample:
    """A CpuSample of `cpus` now. Raises OSError when /proc/stat cannot be read, ValueError
    when it has no line for one of `cpus`."""
    with open("/proc/stat", encoding="ascii") as handle:
        text = handle.read()
    busy = busy_seconds(text, cpus, os.sysconf("SC_CLK_TCK"))
    return CpuSample(at_s=time.monotonic(), busy_s=busy, own_s=time.process_time())


def usable_cpus() -> list[int]:
    """The CPUs this process may run on (every CPU where the platform has no affinity)."""
    affinity = getattr(os, "sched_getaffinity", None)
    return sorted(affinity(0)) if affinity else list(range(os.cpu_count() or 1))


class ThreadGovernor:
    """The thread count for the next decode, at most `ceiling` and the usable CPUs, re-read
    every `period_s` by a daemon thread (`start`); `threads()` raises it when the machine is
    idle at that instant (`look_now`; False: the window's count alone). `log`, when given, gets
    one line when the window's count changes (at most one per `LOG_EVERY_S`, naming the changes
    left unsaid) and one when governing stops.

    Before the first period, and whenever /proc/stat cannot be read (not Linux, a renumbered
    /proc in some containers), it answers the top count, as a fixed thread count would. Not
    seen: a container's CPU quota without a cpuset (`docker --cpus`), whose throttling stalls
    the threads while the host's CPUs look free; start the server with `--threads 1` there.
    """

    LOG_EVERY_S = 10.0

    def __init__(self, ceiling: int, period_s: float = 0.25, log=None,
                 look_now: bool = True) -> None:
        if ceiling < 1:
            raise ValueError(f"ceiling must be >= 1, got {ceiling}")
        self.ceiling = ceiling
        self.period_s = period_s
        self.cpus = usable_cpus()
        self._threads = self.top()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._log = log
        self._look_now = look_now
        self._logged_at = -self.LOG_EVERY_S
        self._unsaid = 0

    def top(self) -> int:
        """The most threads a decode gets: the ceiling, or fewer usable CPUs."""
        return max(1, min(self.ceiling, len(self.cpus)))

    def threads(self) -> int:
        """The thread count to use now (1..top): the window's count, raised when the tasks
        runnable at this instant leave more cores free (`threads_now`; one read of
        /proc/loadavg, about 20 microseconds)."""
        if self._threads >= self.top() or not self._look_now:
            return self._threads
        try:
            with open("/proc/loadavg", encoding="ascii") as handle:
                running = running_tasks(handle.read())
        except (OSError, ValueError):
            return self._threads
        return threads_now(self._threads, running, len(self.cpus), self.top())

    def update(self, before: CpuSample, after: CpuSample) -> int:
        """Set and return the thread count from the other programs' load between two samples."""
        others = others_cores(before, after)
        threads = threads_for(others, len(self.cpus), self.top())
        if threads != self._threads:
            self._say(f"llama.cpp threads {self._threads} -> {threads}: other programs kept "
                      f"{others:.2f} of {len(self.cpus)} cores busy", limited=True)
        self._threads = threads
        return threads

    def start(self) -> ThreadGovernor:
        """Start sampling in a daemon thread (no-op when the top count is 1; without a
        readable /proc/stat it logs why and stays at the top count)."""
        if self.top() == 1 or self._thread is not None:
            return self
        try:
            first = read_sample(self.cpus)
        except (OSError, ValueError) as exc:
            self._say(f"llama.cpp threads fixed at {self.top()}: cannot read the load ({exc})")
            return self
        self._thread = threading.Thread(target=self._run, args=(first,), daemon=True,
                                        name="thread-governor")
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop sampling; the last count stays."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join()

    def _say(self, line: str, limited: bool = False) -> None:
        """Log `line` (rate-limited when `limited`); a failing log never stops governing."""
        if self._log is None:
            return
        now = time.monotonic()
        if limited and now - self._logged_at < self.LOG_EVERY_S:
            self._unsaid += 1
            return
        if self._unsaid:
            line += f" ({self._unsaid} changes since the last line)"
        self._logged_at, self._unsaid = now, 0
        try:
            self._log(line)
        except Exception:  # noqa: BLE001 - a full disk or a closed stdout must not matter
            pass

    def _run(self, previous: CpuSample) -> None:
        while not self._stop.wait(self.period_s):
            try:
                current = read_sample(self.cpus)
                self.update(previous, current)
            except Exception as exc:  # noqa: BLE001 - never leave a count stuck below the top
                self._threads = self.top()
                self._say(f"llama.cpp threads fixed at {self.top()}: reading the load failed "
                          f"({type(exc).__name__}: {exc})")
                return
            previous = current
