"""Run one sandboxed process: feed stdin, keep bounded heads of stdout/stderr, enforce wall time.

Returns raw facts (exit code, bytes, flags, time); `verdict.py` turns them into a status.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from smolscript_sandbox.accounting import CpuMeter
from smolscript_sandbox.cpuwait import sample, tree_pids
from smolscript_sandbox.isolation import Identity, is_mark, sandbox_argv
from smolscript_sandbox.limits import Limits
from smolscript_sandbox.reaper import REAPER

_CHUNK = 65536


@dataclass(frozen=True)
class RawRun:
    """What happened to one process. `exit_code` follows bwrap: 128+N when killed by signal N.

    `started` is False when the job's own command was never exec'd: bwrap's setup failed,
    before or after it reported a child-pid (infra; `setup_error`: bwrap's stderr, if any). It
    is True from the moment the launcher's mark line arrived (`isolation.bwrap_argv`), which
    the job cannot forge or withdraw; a failed exec of the job's command counts as started.
    `stdout_overflow` means the process wrote more than the kept head and was killed.
    `wall_timeout` / `cpu_timeout`: the watchdog killed it on the wall / CPU limit, or (CPU
    only) its processes had used the CPU limit in total by the time it ended; `cpu_s` is the
    CPU time of all its processes as last seen (the slot's cpuacct meter, read once more at
    the end, where there is one; else `cpuwait.sample` every POLL_S while it ran: 0 for a
    process that ended sooner) and `queue_wait_s` its run-queue wait as last sampled.
    """

    started: bool
    exit_code: int | None
    stdout: bytes
    stderr: bytes
    stdout_overflow: bool
    stderr_truncated: bool
    wall_timeout: bool
    time_s: float
    setup_error: str = ""
    cpu_timeout: bool = False
    cpu_s: float = 0.0
    queue_wait_s: float = 0.0


async def _read_head(
    stream: asyncio.StreamReader,
    cap: int,
    on_overflow: Callable[[], None] | None = None,
    stop_after: int | None = None,
) -> tuple[bytes, bool]:
    """Read a stream to EOF keeping at most `cap` bytes; returns (head, truncated).

    `on_overflow` is called once, when more than `stop_after` bytes (default `cap`) were read
    in all: the caller then kills the writer or closes the pipe.
    """
    limit = cap if stop_after is None else stop_after
    kept = bytearray()
    total = 0
    called = False
    while True:
        chunk = await stream.read(_CHUNK)
        if not chunk:
            return bytes(kept), total > cap
        total += len(chunk)
        room = cap - len(kept)
        if room > 0:
            kept += chunk[:room]
        if total > limit and not called:
            called = True
            if on_overflow is not None:
                on_overflow()


async def _read_status(fd: int, into: list[dict]) -> None:
    """Append bwrap's JSON status lines from its status pipe to `into` as they arrive (so
    that what was read survives a cancelled wait: a lingering bwrap helper can keep the pipe
    open after the job ended)."""
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    transport, _ = await loop.connect_read_pipe(
        lambda: asyncio.StreamReaderProtocol(reader), os.fdopen(fd, "rb", buffering=0)
    )
    try:
        while line := await reader.readline():
            with contextlib.suppress(json.JSONDecodeError, UnicodeDecodeError):
                into.append(json.loads(line))
    finally:
        transport.close()


POLL_S = 0.1  # how often a running test's CPU time and run-queue wait are read
TREE_WALK_S = 0.5  # how often its process tree is looked up again (a scan of /proc)


@dataclass
class Watch:
    """What the watchdog saw of one process: how it ended and its last counters (seconds)."""

    ended_by: str = "exit"  # "exit", "cpu" (CPU limit) or "wall" (wall limit)
    cpu_s: float = 0.0
    queue_wait_s: float = 0.0


async def watch(proc: asyncio.subprocess.Process, limits: Limits, start: float,
                job_cpu: Callable[[], float] | None = None) -> Watch:
    """Wait for `proc` while enforcing the time limits; returns how it ended.

    "cpu": the CPU time of all the job's processes reached `limits.cpu_s`: the larger of the
    tree's (`cpuwait.sample`: live threads, ended threads and reaped children) and
    `job_cpu()` (seconds since the start, from the slot's cpuacct meter: every process that
    ever ran in the slot, short-lived children included), checked every POLL_S and once
    more when the process has ended (work that finished between two polls still counts).
    "wall": the elapsed time passed `limits.wall_s` plus the tree's run-queue wait (a
    program held back by other load is not slow), or `limits.wall_ceiling_s` in all (0: no
    extension). The caller kills the process on either. `start` is a `time.monotonic()`
    reading.
    """
    seen = Watch()
    ceiling = start + max(limits.wall_s, limits.wall_ceiling_s)
    pids: list[int] = []
    walked = start
    while True:
        now = time.monotonic()
        deadline = min(start + limits.wall_s + seen.queue_wait_s, ceiling)
        if now >= deadline:
            seen.ended_by = "wall"
            return seen
        try:
            await asyncio.wait_for(asyncio.shield(proc.wait()),
                                   timeout=min(POLL_S, deadline - now))
            if job_cpu is not None:  # the exact total, now that every process has ended
                seen.cpu_s = max(seen.cpu_s, job_cpu())
                if seen.cpu_s >= limits.cpu_s:
                    seen.ended_by = "cpu"
            return seen
        except TimeoutError:
            pass
        if time.monotonic() - walked >= TREE_WALK_S:
            pids = await asyncio.to_thread(tree_pids, proc.pid)
            walked = time.monotonic()
        cpu, wait = sample(pids)
        seen.cpu_s = max(seen.cpu_s, cpu, job_cpu() if job_cpu is not None else 0.0)
        seen.queue_wait_s = max(seen.queue_wait_s, wait)
        if proc.returncode is None and seen.cpu_s >= limits.cpu_s:
            seen.ended_by = "cpu"
            return seen


_WAITS: set[asyncio.Future] = set()  # keeps the untracking waits alive until they run


def _untrack_when_reaped(proc: asyncio.subprocess.Process) -> None:
    """Let the reaper forget `proc` as soon as asyncio has collected its exit status, and
    not before: not when its owner is done (that can be seconds later, or never when the
    owner is cancelled), so that the pid is protected exactly while asyncio waits for it."""
    waited = asyncio.ensure_future(proc.wait())
    _WAITS.add(waited)

    def untrack(_: asyncio.Future) -> None:
        _WAITS.discard(waited)
        REAPER.untrack(proc.pid)

    waited.add_done_callback(untrack)


def _kill(proc: asyncio.subprocess.Process) -> None:
    """SIGKILL the sandbox's process group; --die-with-parent takes the namespace down with it."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, 9)
    with contextlib.suppress(ProcessLookupError):
        proc.kill()


async def run_sandboxed(
    argv: list[str],
    *,
    job_dir: Path,
    identity: Identity,
    limits: Limits,
    stdin: bytes = b"",
    writable_job: bool = False,
    extra_env: dict[str, str] | None = None,
    cpu_meter: CpuMeter | None = None,
    extra_ro_binds: dict[str, str] | None = None,
) -> RawRun:
    """Run `argv` inside bwrap as `identity` under `limits`; never raises for candidate behaviour.

    `extra_ro_binds` (host path -> sandbox path) are bound read-only: a compile's precompiled
    headers (`prebuilt.py`).

    `cpu_meter` is the cpuacct group the launcher joins (`identity.cgroup_procs`); with it the
    CPU limit judges the total of every process of the run (see `watch`). Raises OSError only
    when the process cannot be spawned at all, SandboxInfraError when no launcher can be built
    (`isolation.launch_argv`): infrastructure faults.
    """
    # bwrap's status lines and the launcher's mark line (`bwrap_argv`) share one pipe.
    status_r, status_w = os.pipe()
    mark_w = os.dup(status_w)
    job_cpu = None
    if cpu_meter is not None:
        cpu_before = cpu_meter.read()

        def job_cpu() -> float:
            return cpu_meter.read() - cpu_before

    start = time.monotonic()
    try:
        # Inside the try: building the argv can raise (no launcher), and the pipe must not leak.
        cmd = sandbox_argv(identity, argv, job_dir, limits, writable_job=writable_job,
                           status_fd=status_w, exec_mark_fd=mark_w, extra_env=extra_env,
                           extra_ro_binds=extra_ro_binds)
        with REAPER.spawning():
            proc = await asyncio.create_subprocess_exec(
                *cmd,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                pass_fds=(status_w, mark_w),
                start_new_session=True,
                cwd="/",
                env={"PATH": "/usr/bin:/bin"},
            )
            REAPER.track(proc.pid)
            _untrack_when_reaped(proc)
    except BaseException:
        os.close(status_r)
        raise
    finally:
        os.close(status_w)
        os.close(mark_w)
    statuses: list[dict] = []
    status_task = asyncio.create_task(_read_status(status_r, statuses))
    overflowed = False

    def stdout_overflow() -> None:
        nonlocal overflowed
        overflowed = True
        _kill(proc)

    async def feed() -> None:
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            if stdin:
                proc.stdin.write(stdin)
                await proc.stdin.drain()
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            proc.stdin.close()

    def stderr_overflow() -> None:
        # Stop reading past the drain bound (issue 18): close our end, so that a flood costs
        # the service nothing more; the writer gets EPIPE (or SIGPIPE) on its next write.
        transport = proc._transport.get_pipe_transport(2)
        if transport is not None:
            transport.close()

    out_task = asyncio.create_task(_read_head(proc.stdout, limits.stdout_bytes, stdout_overflow))
    err_task = asyncio.create_task(
        _read_head(proc.stderr, limits.stderr_bytes, stderr_overflow,
                   stop_after=limits.stderr_drain_bytes)
    )
    feed_task = asyncio.create_task(feed())
    try:
        seen = await watch(proc, limits, start, job_cpu)
        if seen.ended_by != "exit":
            _kill(proc)
            await proc.wait()
        elapsed = time.monotonic() - start
        # The pipes close when the namespace dies; bound the wait in case a grandchild escaped.
        done, pending = await asyncio.wait({out_task, err_task, status_task}, timeout=2.0)
        for task in pending:
            task.cancel()
        (stdout, _), (stderr, err_trunc) = (
            out_task.result() if out_task in done else (b"", False),
            err_task.result() if err_task in done else (b"", False),
        )
    finally:
        feed_task.cancel()
        if proc.returncode is None:
            _kill(proc)
            await proc.wait()
        # bwrap's helper is orphaned to us as a zombie of the slot uid, counted against the
        # uid's process limit until reaped: a slot running many fast tests would otherwise
        # collect enough of them between the periodic reaps to make its next sandbox fail to
        # start ("Can't fork for pid 1: Resource temporarily unavailable").
        REAPER.reap_orphans()
    # Not bwrap's child-pid: bwrap can still fail after it (pid 1's fork, a mount), exiting 1
    # with its message on stderr; only the mark line says that the job itself was exec'd.
    started = any(is_mark(s) for s in statuses)
    exit_codes = [s["exit-code"] for s in statuses if "exit-code" in s]
    exit_code = exit_codes[-1] if exit_codes else proc.returncode
    if proc.returncode is not None and proc.returncode < 0:
        exit_code = 128 - proc.returncode  # bwrap itself was killed (by us, on a limit)
    return RawRun(
        started=started,
        exit_code=exit_code,
        stdout=stdout,
        stderr=stderr,
        stdout_overflow=overflowed,
        stderr_truncated=err_trunc,
        time_s=round(elapsed, 4),
        setup_error="" if started else (
            stderr.decode("utf-8", "replace")[:2000]
            or f"the sandbox ended (exit code {exit_code}) before the job's command started"),
        wall_timeout=seen.ended_by == "wall",
        cpu_timeout=seen.ended_by == "cpu",
        cpu_s=round(seen.cpu_s, 4),
        queue_wait_s=round(seen.queue_wait_s, 4),
    )
