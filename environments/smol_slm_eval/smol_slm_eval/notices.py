"""Keeps math-verify's "Timeout is disabled" notice out of the user's terminal.

math500 calls math-verify with its signal-based timeouts off on purpose (`parsing_timeout=None`,
`timeout_seconds=None`: signal timeouts work only on the main thread, and scoring need not
run there). math-verify then logs a WARNING once per process from `parse` and once from
`verify` (loggers `math_verify.parser` and `math_verify.grader`), which Python prints on stderr
when nothing configured logging: two lines of noise in every MATH-500 run. A logging filter on
those two loggers drops exactly that notice; every other math-verify message passes. With
SMOL_ENVS_DEBUG set, nothing is filtered.
"""

from __future__ import annotations

import logging
import os

MATH_VERIFY_LOGGERS = ("math_verify.parser", "math_verify.grader")
NOTICE_PREFIX = "Timeout is disabled"


class DropTimeoutNotice(logging.Filter):
    """A logging filter rejecting records whose message starts with NOTICE_PREFIX."""

    def filter(self, record: logging.LogRecord) -> bool:
        """False (drop) for math-verify's "Timeout is disabled" notice, True for any other
        record."""
        return not record.getMessage().startswith(NOTICE_PREFIX)


def quiet_math_verify_timeout_notice() -> None:
    """Install DropTimeoutNotice on math-verify's parser and grader loggers (idempotent);
    does nothing when SMOL_ENVS_DEBUG is set."""
    if os.environ.get("SMOL_ENVS_DEBUG"):
        return
    for name in MATH_VERIFY_LOGGERS:
        logger = logging.getLogger(name)
        if not any(isinstance(f, DropTimeoutNotice) for f in logger.filters):
            logger.addFilter(DropTimeoutNotice())
