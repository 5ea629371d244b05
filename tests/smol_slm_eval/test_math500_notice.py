"""math-verify's "Timeout is disabled" notice stays out of the user's terminal.

math500 turns math-verify's signal timeouts off on purpose (they work only on the main thread),
and math-verify then logs a warning once per process for `parse` and once for `verify`; with
no logging configured, Python prints such a warning on stderr, i.e. into every MATH-500 run.
It is shown again with SMOL_ENVS_DEBUG=1. Each case runs in a fresh interpreter, because
math-verify logs the notice only once per process.
"""

import os
import subprocess
import sys

import pytest

pytestmark = pytest.mark.integration

SCRIPT = ("from smol_slm_eval.math500 import math_record; "
          "print(math_record('so \\\\boxed{1/2}', '0.5'))")


def run(debug: bool) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "SMOL_ENVS_DEBUG"}
    if debug:
        env["SMOL_ENVS_DEBUG"] = "1"
    return subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True,
                          env=env, timeout=120, check=True)


def test_the_timeout_notice_is_not_printed():
    done = run(debug=False)
    assert "'exact_match': 1.0" in done.stdout  # still scored by math-verify
    assert "Timeout is disabled" not in done.stderr, done.stderr


def test_the_timeout_notice_is_shown_when_debugging():
    done = run(debug=True)
    assert "'exact_match': 1.0" in done.stdout
    assert done.stderr.count("Timeout is disabled") == 2, done.stderr
