"""A handled Ctrl-C ends `smol-envs eval` with status 130, also when the KeyboardInterrupt left
code run from a string (a dataclass being built while an environment imports): CPython 3.11
under `python -m` would otherwise exit by SIGINT after the "interrupted" line (seen in CI)."""

from __future__ import annotations

import signal
import subprocess
import sys

import pytest

pytestmark = pytest.mark.unit

PROGRAM = """
import sys
from smol_envs_core.evalrun import interrupt

def main():
    try:
        exec("raise KeyboardInterrupt")  # what a Ctrl-C inside dataclasses' exec looks like
    except KeyboardInterrupt:
        return {handled}
    return 0

sys.exit(main())
"""


@pytest.mark.parametrize("handled, status", [
    ("interrupt.handled()", 130),
    ("interrupt.INTERRUPTED", -signal.SIGINT),  # the negative control: CPython's own exit
])
def test_a_handled_interrupt_exits_130_under_python_m(tmp_path, handled, status):
    (tmp_path / "prog.py").write_text(PROGRAM.format(handled=handled))
    done = subprocess.run([sys.executable, "-m", "prog"], cwd=tmp_path, timeout=60,
                          capture_output=True, text=True, check=False)
    assert done.returncode == status, done.stderr



SWALLOWING = """
import contextlib, sys, time
from smol_envs_core.evalrun import interrupt

def swallow_one():
    # what datasets' update_fingerprint does around hashing a transform: a bare except
    try:
        print("ready", flush=True)
        while True:
            time.sleep(0.01)
    except:  # noqa: E722
        print("swallowed", flush=True)

def main():
    with {block}:
        try:
            swallow_one()
            time.sleep(5)  # the evaluation going on
            return 0
        except KeyboardInterrupt:
            return interrupt.handled()

sys.exit(main())
"""

HANDLED = """
import sys, time
from smol_envs_core.evalrun import interrupt

def main():
    with interrupt.redelivered(grace_s=0.5):
        try:
            print("ready", flush=True)
            time.sleep(20)
            return 0
        except KeyboardInterrupt:
            status = interrupt.handled()
            time.sleep(1.5)  # cleanup: three grace periods
            print("cleaned", flush=True)
            return status

sys.exit(main())
"""


def _interrupted(tmp_path, program: str) -> tuple[str, int, str]:
    """(stdout after "ready", exit status, stderr) of `program` sent one SIGINT once ready."""
    (tmp_path / "prog.py").write_text(program)
    proc = subprocess.Popen([sys.executable, "-m", "prog"], cwd=tmp_path, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout.readline() == "ready\n"
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    return out, proc.returncode, err


@pytest.mark.parametrize("block, status", [
    ("interrupt.redelivered(grace_s=0.5)", 130),
    ("contextlib.nullcontext()", 0),  # the negative control: the Ctrl-C is lost
])
def test_a_swallowed_ctrl_c_is_delivered_again(tmp_path, block, status):
    out, returncode, err = _interrupted(tmp_path, SWALLOWING.format(block=block))
    assert (out, returncode) == ("swallowed\n", status), err


def test_a_handled_ctrl_c_is_not_sent_again(tmp_path):
    """After `handled()` the program's own cleanup runs to its end: no second interrupt."""
    out, returncode, err = _interrupted(tmp_path, HANDLED)
    assert (out, returncode) == ("cleaned\n", 130), err
