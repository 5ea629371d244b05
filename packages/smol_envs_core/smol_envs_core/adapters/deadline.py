"""Bounded calls: run a scorer's function in a worker process that a deadline can stop.

Some scorers can run without bound on a hostile reply (math-verify asked to compare a power
tower such as `9^{9^{9}}` computes a number with hundreds of millions of digits inside one C
call that holds the GIL, so neither a signal nor a thread can interrupt it, and every other
thread of the process waits). `DeadlinePool` keeps a few worker processes; `call(fn, *args,
deadline_s=...)` sends one call to an idle worker and waits on its pipe (the GIL is released
while waiting). A call that misses its deadline kills that worker (SIGKILL) and raises
`DeadlineExceeded`; the next call starts a fresh worker. Other calls are never held: each runs
in its own worker, up to `size` at once (further calls wait for a free worker, not for a hung
one's deadline twice).

Workers are fresh interpreters (`sys.executable -c ...`, talking over two pipes): no fork of
a threaded parent, and unlike multiprocessing's spawn and forkserver methods they never
re-run the caller's `__main__` (vf-eval's or pytest's script). A worker imports its modules
(`preload`) once when it starts. A worker's address space is capped (`memory_bytes`), so a
reply that asks for a huge number gets a MemoryError inside the worker (returned as the call's
exception) instead of the machine's memory.
"""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
import threading
from collections.abc import Callable, Sequence
from multiprocessing.connection import Connection
from typing import Any

from ..errors import InfrastructureError

READY = "ready"
STARTUP_S = 120.0
"""Seconds a new worker may take to start and import its modules (not counted in a deadline)."""


class DeadlineExceeded(Exception):
    """A bounded call did not finish before its deadline (its worker was killed).

    Attributes:
        deadline_s: the deadline in seconds.
    """

    def __init__(self, deadline_s: float):
        super().__init__(f"did not finish within {deadline_s:g} s")
        self.deadline_s = deadline_s


def _limit_memory(memory_bytes: int | None) -> None:
    if memory_bytes is None:
        return
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    cap = memory_bytes if hard == resource.RLIM_INFINITY else min(memory_bytes, hard)
    resource.setrlimit(resource.RLIMIT_AS, (cap, hard))


def serve(read_fd: int, write_fd: int, memory_bytes: int | None, preload: str) -> None:
    """A worker's loop (run by `_Worker`'s interpreter): import `preload` (comma-separated
    modules), then receive (fn, args) and send (True, result) or (False, exception) until the
    pipe closes."""
    _limit_memory(memory_bytes)
    for module in filter(None, preload.split(",")):
        importlib.import_module(module)
    inbox, conn = Connection(read_fd, writable=False), Connection(write_fd, readable=False)
    conn.send(READY)
    _loop(inbox, conn)


def _loop(inbox: Connection, conn: Connection) -> None:
    while True:
        try:
            fn, args = inbox.recv()
        except (EOFError, OSError):
            return
        try:
            reply = (True, fn(*args))
        except BaseException as exc:  # noqa: BLE001 - the caller re-raises it
            reply = (False, exc)
        try:
            conn.send(reply)
        except Exception as exc:  # noqa: BLE001 - an unpicklable result or exception
            conn.send((False, RuntimeError(f"{type(exc).__name__}: {exc}")))


class _Worker:
    """One worker interpreter and its two pipe ends (`send` to it, `conn` from it)."""

    def __init__(self, memory_bytes: int | None, preload: Sequence[str]):
        to_child_r, to_child_w = os.pipe()
        from_child_r, from_child_w = os.pipe()
        code = ("from smol_envs_core.adapters.deadline import serve; "
                f"serve({to_child_r}, {from_child_w}, "
                f"{memory_bytes!r}, {','.join(preload)!r})")
        try:
            self.process = subprocess.Popen([sys.executable, "-c", code],
                                            pass_fds=(to_child_r, from_child_w),
                                            stdin=subprocess.DEVNULL)
        finally:
            os.close(to_child_r)
            os.close(from_child_w)
        self.send = Connection(to_child_w, readable=False)
        self.conn = Connection(from_child_r, writable=False)
        self.ready = False

    def wait_ready(self) -> None:
        """Wait for the worker's start message (its imports done), at most STARTUP_S.

        Raises:
            EOFError: the worker ended or did not start in time.
        """
        if self.ready:
            return
        if not self.conn.poll(STARTUP_S) or self.conn.recv() != READY:
            raise EOFError(f"no start message within {STARTUP_S:g} s")
        self.ready = True

    def is_alive(self) -> bool:
        return self.process.poll() is None

    def kill(self) -> None:
        self.process.kill()
        self.process.wait(5)
        self.send.close()
        self.conn.close()


class DeadlinePool:
    """Up to `size` worker processes, each running one bounded call at a time.

    Args:
        size: the most calls running at once (>= 1).
        preload: modules each worker imports when it starts (before its first call).
        memory_bytes: the address-space cap of each worker (None: no cap).
        name: the component named in errors ("math-verify worker").

    Thread-safe; `call` blocks the calling thread (use `asyncio.to_thread` from async code).
    """

    def __init__(self, size: int = 2, preload: Sequence[str] = (),
                 memory_bytes: int | None = 2 << 30, name: str = "scorer worker"):
        if size < 1:
            raise ValueError(f"size must be >= 1, got {size}")
        self.name, self.memory_bytes = name, memory_bytes
        self.preload = tuple(preload)
        self.size = size
        self._slots = threading.BoundedSemaphore(size)
        self._lock = threading.Lock()
        self._idle: list[_Worker] = []
        self._started = False

    def _take(self) -> _Worker:
        with self._lock:
            if not self._started:  # start every worker at once: their imports overlap
                self._started = True
                self._idle += [_Worker(self.memory_bytes, self.preload)
                               for _ in range(self.size)]
            while self._idle:
                worker = self._idle.pop()
                if worker.is_alive():
                    return worker
                worker.kill()
        return _Worker(self.memory_bytes, self.preload)

    def _replace(self) -> None:
        """Start a worker in place of a killed one now, so that the next call need not wait
        for its imports."""
        with self._lock:
            self._idle.append(_Worker(self.memory_bytes, self.preload))

    def call(self, fn: Callable[..., Any], *args: Any, deadline_s: float) -> Any:
        """`fn(*args)` in a worker, within `deadline_s` seconds of the worker taking it.

        `fn` and its arguments must be picklable (a module-level function).

        Returns:
            fn's result.
        Raises:
            DeadlineExceeded: the call ran past `deadline_s` (its worker was killed).
            InfrastructureError: the worker died or could not be reached (not the reply's doing).
            Exception: whatever `fn` raised, re-raised here.
        """
        with self._slots:
            worker = self._take()
            try:
                worker.wait_ready()  # a fresh worker's imports do not count in the deadline
                worker.send.send((fn, args))
                if not worker.conn.poll(deadline_s):
                    worker.kill()
                    self._replace()
                    raise DeadlineExceeded(deadline_s)
                ok, value = worker.conn.recv()
            except (EOFError, OSError, BrokenPipeError) as exc:
                worker.kill()
                raise InfrastructureError(
                    self.name, f"worker process ended ({type(exc).__name__}: {exc}; exit "
                    f"code {worker.process.returncode})") from exc
            with self._lock:
                self._idle.append(worker)
        if ok:
            return value
        raise value

    def close(self) -> None:
        """Stop every idle worker (busy ones stop when their call returns or is killed)."""
        with self._lock:
            idle, self._idle = self._idle, []
        for worker in idle:
            worker.kill()
