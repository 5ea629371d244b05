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
