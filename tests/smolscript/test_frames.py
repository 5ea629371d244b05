"""Golden cases of the result frame's reader (`smolscript.frames`, pure): only a complete block
with the job's nonce is a result; everything else on stdout is the program's own output."""

from __future__ import annotations

import pytest
from smolscript.frames import NO_RESULT, frame, harness_stdin, new_nonce, read_result

pytestmark = pytest.mark.unit

NONCE = "0123456789abcdef" * 2
OTHER = "f" * 32
BLOCK = frame(NONCE, "6")


def stdout(text: str) -> str:
    """`text` as the service reports it: one final line end stripped."""
    return text[:-1] if text.endswith("\n") else text


# (stdout as the program wrote it, result, program output, why)
CASES = [
    (BLOCK, "6", "", "the harness's block alone"),
    (frame(NONCE, ""), "", "", "an empty str result is a result"),
    (frame(NONCE, "1 2 3"), "1 2 3", "", "a list result"),
    ("debug\n" + BLOCK, "6", "debug\n", "debug output before the block"),
    ("no line end" + BLOCK, "6", "no line end", "debug output without a line end"),
    (BLOCK + "after\n", "6", "after", "output after the block (atexit) is the program's"),
    ("6\n", None, "6", "the expected text alone: no result"),
    ("", None, "", "nothing printed"),
    (frame(OTHER, "6"), None, frame(OTHER, "6")[:-1], "a frame with another nonce"),
    (f"smolscript-result-begin {NONCE}\n6\n", None, f"smolscript-result-begin {NONCE}\n6",
     "a begin marker without the end marker"),
    (f"6\nsmolscript-result-end {NONCE}\n", None, f"6\nsmolscript-result-end {NONCE}",
     "an end marker without the begin marker"),
    (f"smolscript-result-begin {NONCE}\n6\n7\nsmolscript-result-end {NONCE}\n", None,
     f"smolscript-result-begin {NONCE}\n6\n7\nsmolscript-result-end {NONCE}",
     "a result spanning two lines is no harness result"),
    (f"smolscript-result-begin {NONCE.upper()}\n6\nsmolscript-result-end {NONCE.upper()}\n",
     None, None, "the nonce's case matters"),
]


@pytest.mark.parametrize(("written", "result", "printed", "why"), CASES,
                         ids=[c[3] for c in CASES])
def test_read_result_golden(written, result, printed, why):
    got, rest, reason = read_result(stdout(written), NONCE)
    assert got == result, why
    if printed is not None:
        assert rest == printed, why
    assert (reason == "") == (result is not None), why
    if result is None and "two lines" not in why and "nonce" not in why:
        assert reason == NO_RESULT, why


def test_two_blocks_are_no_result():
    got, rest, reason = read_result(stdout(BLOCK + BLOCK), NONCE)
    assert got is None and "more than one" in reason and rest == stdout(BLOCK + BLOCK)


def test_nonces_are_fresh_and_checked():
    nonces = {new_nonce() for _ in range(100)}
    assert len(nonces) == 100 and all(len(n) == 32 for n in nonces)
    assert harness_stdin(NONCE, "3\n") == f"{NONCE}\n3\n"
    for bad in ("", "abc", NONCE + "\n", NONCE.upper(), "g" * 32):
        with pytest.raises(ValueError, match="32 lowercase hex"):
            harness_stdin(bad, "3\n")
        with pytest.raises(ValueError, match="32 lowercase hex"):
            read_result(BLOCK, bad)
