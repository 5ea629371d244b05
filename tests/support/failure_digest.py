"""The suite's last lines name what failed, grouped by file (a pytest plugin, registered by the
root conftest.py).

CI shows only the tail of a run's output, and a pytest INTERNALERROR (CPython 3.11.7's AST
converter can raise `SystemError: AST constructor recursion depth mismatch` while pytest renders
a traceback) ends the session before `-ra` prints its summary. The failures are therefore
recorded as they are reported, and `pytest_sessionfinish` (which runs after an INTERNALERROR too)
prints one line per file: how many of its tests failed, and the first failure's test and
message, so a failed CI run always says where to look.
"""

from __future__ import annotations

from collections import defaultdict

import pytest

# Characters of a failure's message kept in the digest.
MESSAGE_CHARS = 160
# Files listed at most (the rest are counted).
MAX_FILES = 60

_failed: dict[str, list[tuple[str, str]]] = defaultdict(list)


def _message(report: pytest.TestReport) -> str:
    """The first line of the failure's crash message (without rendering the traceback)."""
    crash = getattr(report.longrepr, "reprcrash", None)
    text = getattr(crash, "message", None) or str(report.longrepr or "")
    first = text.strip().splitlines()[0] if text.strip() else "(no message)"
    return first[:MESSAGE_CHARS]


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    """Record a failed test (call) or a failed fixture set-up or teardown."""
    if report.failed:
        path, _, name = report.nodeid.partition("::")
        label = name if report.when == "call" else f"{name} [{report.when}]"
        _failed[path].append((label, _message(report)))


def digest_lines() -> list[str]:
    """The digest, one line per file with failures (most failures first)."""
    if not _failed:
        return []
    total = sum(len(tests) for tests in _failed.values())
    files = sorted(_failed.items(), key=lambda item: (-len(item[1]), item[0]))
    lines = [f"failure digest: {total} failed in {len(files)} files"]
    for path, tests in files[:MAX_FILES]:
        label, message = tests[0]
        lines.append(f"  {len(tests):4d} {path}  first: {label}: {message}")
    if len(files) > MAX_FILES:
        lines.append(f"  ... and {len(files) - MAX_FILES} more files")
    return lines


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session: pytest.Session) -> None:
    """Print the digest last (after the suite's leak check)."""
    lines = digest_lines()
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    if lines and reporter is not None:
        reporter.write_line("\n".join(lines), red=True)
