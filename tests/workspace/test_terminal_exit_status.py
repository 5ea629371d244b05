"""A failed run exits non-zero in a terminal too, where vf-eval's live display catches it."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from tests.support.ports import free_port

pytestmark = pytest.mark.integration

REPO = Path(__file__).resolve().parents[2]
VF_EVAL = str(Path(sys.executable).parent / "vf-eval")
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def run_in_terminal(argv: list[str], timeout: float = 300) -> tuple[int, str]:
    """Run `argv` with a pseudo-terminal as its stdin, stdout and stderr (as a user's shell
    would); returns (exit status, everything it wrote, escape codes removed)."""
    master, slave = os.openpty()
    chunks: list[bytes] = []

    def drain() -> None:  # keep the terminal's buffer from filling (the child would block)
        while True:
            try:
                data = os.read(master, 65536)
            except OSError:
                return
            if not data:
                return
            chunks.append(data)

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    try:
        done = subprocess.run(argv, cwd=REPO, stdin=slave, stdout=slave, stderr=slave,
                              timeout=timeout, env={**os.environ, "TERM": "xterm",
                                                    "COLUMNS": "160", "LINES": "50"})
    finally:
        os.close(slave)
        reader.join(timeout=10)
        os.close(master)
    return done.returncode, ANSI.sub("", b"".join(chunks).decode(errors="replace"))


def test_an_infrastructure_failure_exits_1_under_the_live_display():
    """Before: the live display printed the one-line failure in its panel and the process
    exited 0 (verifiers 0.3.1 gathers runs with return_exceptions=True)."""
    url = f"http://127.0.0.1:{free_port()}/v1"  # nothing listens there
    status, out = run_in_terminal([VF_EVAL, "pico-dsl-v1", "-b", url, "-m", "x", "-n", "1",
                                   "-r", "1"])
    flat = " ".join(out.split())
    assert "Evaluation Summary" in flat, flat[-2000:]  # the live display did run
    assert "smol-envs: infrastructure failure: model endpoint" in flat, flat[-2000:]
    assert status == 1, flat[-2000:]


def test_a_misspelled_environment_exits_1_with_the_one_line_in_a_terminal():
    """Before: the live display showed "ERROR: Could not import 'pico-dsl' ..." and exited 0."""
    status, out = run_in_terminal([VF_EVAL, "pico-dsl", "-n", "1"])
    flat = " ".join(out.split())
    assert ("smol-envs: error: no environment 'pico-dsl' is installed (vf-eval looked for the "
            "module pico_dsl); this collection's: pico-dsl-v1, smol-slm-eval, smolscript, "
            "smoltalkbench (did you mean pico-dsl-v1?)") in flat, flat[-2000:]
    assert status == 1, flat[-2000:]


def test_the_former_slm_eval_id_exits_1_naming_the_new_one_in_a_terminal():
    status, out = run_in_terminal([VF_EVAL, "slm-eval", "-n", "1"])
    flat = " ".join(out.split())
    assert "smol-envs: error: the environment 'slm-eval' is now 'smol-slm-eval'" in flat, \
        flat[-2000:]
    assert status == 1, flat[-2000:]
