"""The suite's failure digest (tests/support/failure_digest.py) names the failed tests by file in
the run's last lines, also when an INTERNALERROR ends the session before pytest's own summary:
an inner pytest session with real failures, a failing fixture and an internal error. And the
INTERNALERROR CI once hit (CPython 3.11.7, pytest's unraisable-exception hook) is shown and
avoided."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration
REPO = Path(__file__).resolve().parents[2]

CONFTEST = f"""
import sys
import pytest
sys.path.insert(0, {str(REPO)!r})
pytest_plugins = ["tests.support.failure_digest"]

@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    if item.name == "test_crashes_the_reporter" and call.when == "call":
        raise SystemError("AST constructor recursion depth mismatch (before=1, after=2)")
    yield
"""
FAILING = """
import pytest

@pytest.fixture
def broken():
    raise RuntimeError("fixture could not start")

def test_ok():
    pass

def test_wrong_answer():
    assert 1 + 1 == 3, "arithmetic is off"

def test_needs_fixture(broken):
    pass
"""
OTHER = """
def test_also_wrong():
    raise ValueError("bad value")

def test_crashes_the_reporter():
    assert False
"""


def run_inner(tmp_path: Path, files: dict[str, str]) -> subprocess.CompletedProcess:
    for name, text in {"conftest.py": CONFTEST, **files}.items():
        (tmp_path / name).write_text(text)
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--rootdir",
         str(tmp_path), "--basetemp", str(tmp_path / "base"), str(tmp_path)],
        capture_output=True, text=True, cwd=tmp_path, timeout=120, check=False)


def test_the_digest_names_each_failed_file_with_its_first_failure(tmp_path):
    done = run_inner(tmp_path, {"test_a.py": FAILING})
    assert done.returncode == 1, done.stdout + done.stderr
    tail = done.stdout[done.stdout.index("failure digest"):]
    assert "failure digest: 2 failed in 1 files" in tail
    assert "2 test_a.py  first: test_wrong_answer: AssertionError: arithmetic is off" in tail
    assert "test_ok" not in tail


def test_the_digest_survives_an_internal_error(tmp_path):
    done = run_inner(tmp_path, {"test_a.py": FAILING, "test_b.py": OTHER})
    assert done.returncode == 3, done.stdout + done.stderr  # pytest's INTERNAL_ERROR
    assert "INTERNALERROR" in done.stdout + done.stderr
    tail = done.stdout[done.stdout.index("failure digest"):]
    assert "failure digest: 3 failed in 2 files" in tail
    assert "test_needs_fixture [setup]" not in tail  # only each file's first failure is named
    assert "1 test_b.py  first: test_also_wrong: ValueError: bad value" in tail


def test_a_clean_session_prints_no_digest(tmp_path):
    done = run_inner(tmp_path, {"test_a.py": "def test_ok():\n    pass\n"})
    assert done.returncode == 0, done.stdout + done.stderr
    assert "failure digest" not in done.stdout


# A `__del__` that raises, collected (in a cycle) while `ast.parse` builds its tree: pytest's
# unraisable-exception hook then formats the traceback, which parses source again.
GC_DURING_PARSE = """
import ast, gc, sys


class RaisesWhenCollected:
    def __init__(self):
        self.me = self

    def __del__(self):
        empty = {}
        empty["a"] + empty["b"]


def test_parse_while_collecting():
    gc.set_threshold(50, 1, 1)
    source = "\\n".join(f"def f{i}(a, b):\\n    return [a[i] + b[i] for i in range(9) if a]"
                       for i in range(3000))
    for _ in range(10):
        for _ in range(2000):
            RaisesWhenCollected()
        ast.parse(source)
"""


def test_the_suite_leaves_unraisable_exceptions_to_python():
    """The suite's addopts turn pytest's unraisable-exception plugin off (why: below)."""
    import tomllib

    addopts = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["pytest"][
        "ini_options"]["addopts"]
    assert "-p no:unraisableexception" in addopts


@pytest.mark.skipif(sys.version_info[:2] != (3, 11), reason="the AST converter bug is 3.11's")
@pytest.mark.parametrize("plugin_on", [True, False])
def test_a_collection_during_parse_breaks_only_with_pytests_hook(tmp_path, plugin_on):
    """With the plugin on, a collection inside `ast.parse` raises SystemError (the negative
    control: the bug is real on this Python); with it off, the same test passes."""
    (tmp_path / "test_gc.py").write_text(GC_DURING_PARSE)
    flags = [] if plugin_on else ["-p", "no:unraisableexception"]
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *flags, "--rootdir",
         str(tmp_path), "--basetemp", str(tmp_path / "base"), str(tmp_path)],
        capture_output=True, text=True, cwd=tmp_path, timeout=120, check=False)
    if plugin_on:
        assert done.returncode == 1 and "AST constructor recursion depth mismatch" in done.stdout
    else:
        assert done.returncode == 0, done.stdout + done.stderr
