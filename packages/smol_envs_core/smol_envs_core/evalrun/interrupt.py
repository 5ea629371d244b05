"""Ctrl-C that always takes effect: its exit status made to stick, and a swallowed one delivered
again."""

from __future__ import annotations

import contextlib
import os
import select
import signal
import threading
import time
from collections.abc import Iterator

# 128 + SIGINT: what a shell reports for a command ended by Ctrl-C.
INTERRUPTED = 130
# Seconds a Ctrl-C may go unhandled before `redelivered` sends it again: longer than asyncio's
# cancellation of a vf-eval run takes to unwind, short enough for a person waiting on it.
REDELIVER_AFTER_S = 10.0

_watch: _Redelivery | None = None


def handled() -> int:
    """Return INTERRUPTED once a KeyboardInterrupt has been handled; the process then exits with
    it (not by SIGINT), and `redelivered` stops sending the interrupt again.

    CPython 3.11 notes a KeyboardInterrupt that leaves code run from a string (`exec` of a str,
    which dataclasses and namedtuple use to build their methods while a module imports) and,
    when the program runs as `python -m`, ends the process by SIGINT at exit although the
    interrupt was caught (Python/pythonrun.c `run_eval_code_obj` sets
    `unhandled_keyboard_interrupt`, Modules/main.c `Py_RunMain` reads it). A Ctrl-C during an
    environment's import once made `smol-envs eval` exit by SIGINT after printing its
    "interrupted; saved ..." line. `run_eval_code_obj` clears the note on entry, so running an
    empty string here clears it.
    """
    if _watch is not None:
        _watch.handled.set()
    exec("")  # noqa: S102 - clears CPython's note (above); nothing is evaluated
    return INTERRUPTED


class _Redelivery:
    """The watcher thread of `redelivered`: reads the signal numbers CPython writes to the
    wakeup pipe and, while a SIGINT stays unhandled for `grace_s`, sends SIGINT again."""

    def __init__(self, read_fd: int, grace_s: float):
        self.read_fd, self.grace_s = read_fd, grace_s
        self.handled = threading.Event()

    def watch(self) -> None:
        pending_since = None
        while True:
            timeout = None if pending_since is None else max(
                0.0, pending_since + self.grace_s - time.monotonic())
            if select.select([self.read_fd], [], [], timeout)[0]:
                data = os.read(self.read_fd, 512)
                if not data:  # the pipe's write end closed: the block ended
                    return
                if signal.SIGINT in data and pending_since is None:
                    pending_since = time.monotonic()
                continue
            pending_since = None
            if not self.handled.is_set():
                os.kill(os.getpid(), signal.SIGINT)  # writes to the pipe again: repeats


@contextlib.contextmanager
def redelivered(grace_s: float = REDELIVER_AFTER_S) -> Iterator[None]:
    """Within the block, a Ctrl-C not yet `handled()` after `grace_s` seconds is sent again.

    A KeyboardInterrupt raised inside code that swallows every exception is lost: datasets'
    `update_fingerprint` hashes a `map` transform under a bare `except:` (verifiers formats its
    datasets that way while an environment loads), and Python drops one raised in a `__del__`
    or a weakref callback. One such loss in about 60-250 interrupts of smol-slm-eval's load ran
    the evaluation on to exit 0. CPython writes each signal's number to the wakeup fd
    (`signal.set_wakeup_fd`) whatever Python handler runs, so a thread sees the SIGINT arrive
    and, unless `handled()` was called within `grace_s`, sends it again (the handler then raises
    somewhere else; asyncio's own handler, installed while `asyncio.run` runs, cancels on the
    first and raises on the second). Outside the main thread, or where the wakeup fd cannot be
    set, the block runs without it.
    """
    global _watch
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    read_fd, write_fd = os.pipe()
    os.set_blocking(write_fd, False)
    try:
        previous = signal.set_wakeup_fd(write_fd, warn_on_full_buffer=False)
    except ValueError:
        os.close(read_fd)
        os.close(write_fd)
        yield
        return
    watch = _watch = _Redelivery(read_fd, grace_s)
    thread = threading.Thread(target=watch.watch, name="sigint-redelivery", daemon=True)
    thread.start()
    try:
        yield
    finally:
        watch.handled.set()
        _watch = None
        current = signal.set_wakeup_fd(previous)
        if current != write_fd:  # somebody else's was set meanwhile: leave theirs
            signal.set_wakeup_fd(current)
        os.close(write_fd)
        thread.join(timeout=1.0)
        os.close(read_fd)
