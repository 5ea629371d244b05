"""Map the raw facts of one sandboxed run onto the fixed status taxonomy.

Statuses: ok, compile_error, runtime_error, timeout, memory_limit, output_limit, infra_error.
The sandbox never judges output against expected answers (the host does); `ok` only means the
process exited 0 within every limit.
"""

from __future__ import annotations

import re
import signal

from smolscript_sandbox.limits import Limits
from smolscript_sandbox.process import RawRun
from smolscript_sandbox.schema import RUN_STATUSES, RunResult

STATUSES = RUN_STATUSES

# What each runtime prints when an allocation fails under the address-space limit.
_MEMORY_PATTERNS = re.compile(
    r"MemoryError|std::bad_alloc|out of memory|OutOfMemoryException|"
    r"memory allocation of \d+ bytes failed|not enough memory|Cannot allocate memory|"
    r"allocation failed|heap limit"
)


def normalize_stdout(raw: bytes | str) -> str:
    """Program output as text: decoded (invalid UTF-8 replaced), one final LF stripped.

    Nothing else changes: a carriage return, CRLF or any other byte the program wrote stays,
    so the host's exact comparison sees every difference from the expected text (folding
    CRLF into LF let a string result "6\\r" print as "6").
    """
    text = raw.decode("utf-8", errors="replace") if isinstance(raw, bytes) else raw
    return text[:-1] if text.endswith("\n") else text


def decode_diagnostic(raw: bytes) -> str:
    """Decode stderr or compiler output for display (invalid UTF-8 replaced, CRLF -> LF)."""
    return raw.decode("utf-8", errors="replace").replace("\r\n", "\n")


def signal_of(exit_code: int | None) -> int | None:
    """The signal number behind a bwrap exit code of 128+N, else None."""
    if exit_code is not None and 128 < exit_code < 128 + 65:
        return exit_code - 128
    return None


def classify(raw: RawRun, limits: Limits) -> str:
    """One status for one run (see module docstring); precedence: infra, output, time, memory."""
    if not raw.started:
        return "infra_error"
    sig = signal_of(raw.exit_code)
    stderr = raw.stderr.decode("utf-8", "replace")
    if raw.stdout_overflow or sig == signal.SIGXFSZ:
        return "output_limit"
    if raw.exit_code != 0 and "File too large" in stderr:
        return "output_limit"  # EFBIG: runtimes that ignore SIGXFSZ (Python) raise instead
    if raw.wall_timeout or raw.cpu_timeout or sig == signal.SIGXCPU:
        return "timeout"
    if sig == signal.SIGKILL and raw.time_s >= limits.rlimit_cpu_s:
        return "timeout"  # the hard CPU rlimit (the backstop's) fired
    if raw.exit_code != 0 and _MEMORY_PATTERNS.search(stderr):
        return "memory_limit"
    if raw.exit_code != 0:
        return "runtime_error"
    return "ok"


def test_result(raw: RawRun, limits: Limits) -> RunResult:
    """The per-test record of the job reply."""
    return RunResult(
        status=classify(raw, limits),
        stdout=normalize_stdout(raw.stdout),
        stderr=decode_diagnostic(raw.stderr) if raw.started else raw.setup_error,
        exit_code=raw.exit_code,
        time_s=raw.time_s,
        cpu_s=raw.cpu_s,
        truncated=raw.stdout_overflow or raw.stderr_truncated,
    )
