"""Resource limits of the sandbox: one frozen record, defaults from the benchmark's spec."""

from __future__ import annotations

from dataclasses import dataclass

MIB = 1024 * 1024
GIB = 1024 * MIB


@dataclass(frozen=True)
class Limits:
    """Limits for one sandboxed process (a compile step or one test run).

    Units: seconds for times, bytes for sizes. `cpu_s` (RLIMIT_CPU) is what judges a program
    too slow. `wall_s` bounds elapsed time not spent waiting for a CPU (the CPU limit does
    not stop a sleeping or blocked program): the deadline moves on by the time the process
    waited in the run queue (`cpuwait.py`), so that machine load never decides a verdict,
    up to `wall_ceiling_s` of elapsed time in all (0: `wall_s`, no extension).
    `stdout_bytes` is the kept head of stdout, beyond which the process is killed with status
    output_limit; `stderr_bytes` is the kept head of stderr (flagged as truncated past it).
    Past `stderr_drain_bytes` in all the service stops reading stderr and closes the pipe, so
    a flood costs it nothing more (the writer gets EPIPE or SIGPIPE); a program that merely
    logs a lot before printing its answer is not affected.
    """

    cpu_s: int
    wall_s: float
    address_space: int
    nproc: int
    fsize: int
    nofile: int
    tmpfs_bytes: int
    stdout_bytes: int
    stderr_bytes: int
    wall_ceiling_s: float = 0.0
    stderr_drain_bytes: int = 8 * MIB

    @property
    def rlimit_cpu_s(self) -> int:
        """RLIMIT_CPU's soft limit: a backstop 2 s above `cpu_s`, which the service's own
        watchdog enforces on exact CPU time (the rlimit's tick-sampled time runs ahead under
        load, see `cpuwait.py`)."""
        return self.cpu_s + 2


# Each test: 3 s CPU; 5 s of elapsed time not spent waiting for a CPU (2 s for sleeping,
# blocking and start-up beyond the CPU limit), 120 s of elapsed time at most (a program at the
# CPU limit still ends in time with 40 times more runnable work than cores; measured here: a
# 3 s program took 30 s at load 20 on 2 cores); 2 GiB address space (Node and Mono reserve
# large virtual regions at start); 16 MiB files; 64 processes/threads per slot uid.
RUN_LIMITS = Limits(
    cpu_s=3,
    wall_s=5.0,
    wall_ceiling_s=120.0,
    address_space=2 * GIB,
    nproc=64,
    fsize=16 * MIB,
    nofile=64,
    tmpfs_bytes=64 * MIB,
    stdout_bytes=256 * 1024,
    stderr_bytes=64 * 1024,
)

# Compilation: 30 s, more memory and threads (rustc, mcs), larger outputs (binaries).
COMPILE_LIMITS = Limits(
    cpu_s=30,
    wall_s=30.0,
    wall_ceiling_s=300.0,
    address_space=4 * GIB,
    nproc=256,
    fsize=128 * MIB,
    nofile=256,
    tmpfs_bytes=256 * MIB,
    stdout_bytes=64 * 1024,
    stderr_bytes=64 * 1024,
)
