"""When, how and where a run ran: the record every run folder of the collection carries under
the metadata key `run` (issue 44: reports show it, never a file's modification time).

`run_record` is pure given its inputs; `machine` reads the host (/proc/cpuinfo, the load
average, psutil's memory figure).
"""

from __future__ import annotations

import datetime as dt
import os
import platform
import shlex
from collections.abc import Sequence
from typing import Any

RUN_KEY = "run"


def utc_iso(timestamp: float) -> str:
    """A POSIX timestamp (seconds) as UTC ISO 8601 to the second, e.g. "2026-12-04T17:30:00Z"."""
    return dt.datetime.fromtimestamp(timestamp, tz=dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as handle:
            for line in handle:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "?"


def load_average() -> list[float]:
    """The 1, 5 and 15 minute load averages, rounded to 0.01."""
    return [round(x, 2) for x in os.getloadavg()]


def machine() -> dict[str, Any]:
    """The host: CPU model, usable cores, memory (GiB), platform and the 1/5/15-minute load
    averages at the call."""
    import psutil

    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return {"cpu": _cpu_model(), "cores": cores,
            "memory_gib": round(psutil.virtual_memory().total / 2**30, 1),
            "platform": platform.platform(),
            "load_average": load_average()}


def run_record(started: float, ended: float, argv: Sequence[str],
               host: dict[str, Any] | None = None) -> dict[str, Any]:
    """The `run` block: start and end (UTC ISO), wall time (s), the command line as typed
    (shell-quoted) and the machine (`machine()` unless given)."""
    return {"started_at": utc_iso(started), "ended_at": utc_iso(ended),
            "wall_time_s": round(ended - started, 1), "command": shlex.join(argv),
            "machine": host if host is not None else machine()}
