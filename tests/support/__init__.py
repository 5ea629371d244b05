"""Helpers and fixtures shared by the test suites of several packages (tests/*, and the scoring
service's own suite in services/smolscript_sandbox/tests)."""
