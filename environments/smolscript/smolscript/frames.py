"""The harness's result frame: how the host tells the harness's result from candidate output.

A harness and the candidate's code share one process and one stdout, so the text on stdout
alone cannot say who wrote it: a program that prints the expected text and exits before
returning (skipping the harness and its type checks) printed exactly what the harness would
have. So each program job carries a fresh random nonce (:func:`new_nonce`, made by the host
per job and never part of the job's source files): it is the first line of every test's stdin
(:func:`harness_stdin`), which the harness reads before the arguments, and the harness writes
its result, after the entry point returned and the result passed its type check, as one block::

    smolscript-result-begin <nonce>
    <result text, as types.canonical_output spells it>
    smolscript-result-end <nonce>

:func:`read_result` takes the result only from a complete block with this job's nonce: a
program that exits before the harness prints (at any exit status), that prints an imitation
of the frame without the nonce, or that hides the harness's output and prints after it, has
no result, whatever else it printed. Anything else on stdout, before or after the block, is
the candidate's own output (debug prints are allowed) and is returned apart for display.

Limits (CONTRACT.md "Result frame"): the candidate runs in the harness's process, so code that
deliberately reads the nonce (stdin before the harness reads it, the harness's locals through
frame or stack introspection) can write a frame. That is protocol forgery by reading the
harness, not imitation of its text; it still has to compute the correct value, and it skips
only the harness's type check.
"""

from __future__ import annotations

import re
import secrets

BEGIN = "smolscript-result-begin"
END = "smolscript-result-end"
NO_RESULT = ("no harness result (the program exited before returning, or wrote its own "
             "result)")
_NONCE = re.compile(r"[0-9a-f]{32}")


def new_nonce() -> str:
    """A fresh nonce for one job: 32 lowercase hex digits (128 random bits, `secrets`)."""
    return secrets.token_hex(16)


def _check(nonce: str) -> str:
    if not isinstance(nonce, str) or _NONCE.fullmatch(nonce) is None:
        raise ValueError(f"a result nonce is 32 lowercase hex digits, got {nonce!r}")
    return nonce


def harness_stdin(nonce: str, stdin: str) -> str:
    """One test's stdin as the harness reads it: the nonce line, then the arguments' lines
    (``types.encode_stdin``). Raises ValueError for a malformed nonce."""
    return f"{_check(nonce)}\n{stdin}"


def frame(nonce: str, text: str) -> str:
    """The block a harness writes for the result `text` (what every template spells out)."""
    return f"{BEGIN} {_check(nonce)}\n{text}\n{END} {nonce}\n"


def read_result(stdout: str, nonce: str) -> tuple[str | None, str, str]:
    """``(result, program_output, reason)`` from one test's stdout as the service reports it
    (one final line end stripped: ``smolscript_sandbox.verdict.normalize_stdout``). Pure.

    `result` is the text inside the one complete block framed with `nonce`, else None with
    `reason` saying why (``NO_RESULT``, or that there were several); `program_output` is
    stdout without that block (all of stdout when there is none). Raises ValueError for a
    malformed nonce.
    """
    begin, end = f"{BEGIN} {_check(nonce)}\n", f"\n{END} {nonce}\n"
    text = stdout + "\n"  # the service strips one final line end: the end marker's, if last
    starts, ends = text.count(begin), text.count(end)
    if starts == 0 or ends == 0:
        return None, stdout, NO_RESULT
    if starts > 1 or ends > 1:
        return None, stdout, "more than one harness result on stdout"
    head, _, rest = text.partition(begin)
    result, found, tail = rest.partition(end)
    if not found or "\n" in result:
        return None, stdout, NO_RESULT
    # The appended line end is the last character of `tail`, or the end marker's when the
    # block was the last thing on stdout.
    return result, head + tail[:-1], ""
