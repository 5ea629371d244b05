"""The exit status of a command the user interrupted with Ctrl-C, made to stick."""

from __future__ import annotations

# 128 + SIGINT: what a shell reports for a command ended by Ctrl-C.
INTERRUPTED = 130


def handled() -> int:
    """Return INTERRUPTED once a KeyboardInterrupt has been handled; the process then exits with
    it (not by SIGINT).

    CPython 3.11 notes a KeyboardInterrupt that leaves code run from a string (`exec` of a str,
    which dataclasses and namedtuple use to build their methods while a module imports) and,
    when the program runs as `python -m`, ends the process by SIGINT at exit although the
    interrupt was caught (Python/pythonrun.c `run_eval_code_obj` sets
    `unhandled_keyboard_interrupt`, Modules/main.c `Py_RunMain` reads it). A Ctrl-C during an
    environment's import once made `smol-envs eval` exit by SIGINT after printing its
    "interrupted; saved ..." line. `run_eval_code_obj` clears the note on entry, so running an
    empty string here clears it.
    """
    exec("")  # noqa: S102 - clears CPython's note (above); nothing is evaluated
    return INTERRUPTED
