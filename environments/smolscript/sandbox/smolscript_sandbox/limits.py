"""Resource limits of the sandbox: one frozen record, defaults from the benchmark's spec."""

from __future__ import annotations

from dataclasses import dataclass

MIB = 1024 * 1024
GIB = 1024 * MIB


@dataclass(frozen=True)
class Limits:
    """Limits for one sandboxed process (a compile step or one test run).

    Units: seconds for times, bytes for sizes. `wall_s` bounds elapsed time (the CPU limit
    does not stop a sleeping program); `stdout_bytes` is the kept head of stdout, beyond which
    the process is killed with status output_limit; `stderr_bytes` is the kept head of stderr
    (past it the service closes the pipe: the writer gets EPIPE; flagged as truncated).
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


# Each test: 3 s CPU plus 1 s wall allowance; 2 GiB address space (Node and Mono reserve
# large virtual regions at start); 16 MiB files; 64 processes/threads per slot uid.
RUN_LIMITS = Limits(
    cpu_s=3,
    wall_s=4.0,
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
    address_space=4 * GIB,
    nproc=256,
    fsize=128 * MIB,
    nofile=256,
    tmpfs_bytes=256 * MIB,
    stdout_bytes=64 * 1024,
    stderr_bytes=64 * 1024,
)
