"""Test and benchmark support: one service per URL, started on demand.

`ensure_service()` reuses a healthy service at the URL (default `TEST_URL`: port 8791, or
$SMOLSCRIPT_SANDBOX_TEST_URL) or starts one and stops it when the process exits. The test
port differs from the default 8790 so that a developer's own service (or another suite that
stops its service when it ends) never disturbs the tests; uids are leased per service.
"""

from __future__ import annotations

import atexit
import os
from urllib.parse import urlparse

from smolscript_sandbox import control
from smolscript_sandbox.config import ServiceConfig

_STARTED: dict[str, ServiceConfig] = {}
TEST_URL = os.environ.get("SMOLSCRIPT_SANDBOX_TEST_URL", "http://127.0.0.1:8791")


def ensure_service(url: str | None = None, **overrides: object) -> dict:
    """Return the health record of a running service, starting one if none answers.

    Raises SandboxInfraError (with the service log) when it cannot start.
    """
    parsed = urlparse(url or TEST_URL)
    config = ServiceConfig.from_env(host=parsed.hostname, port=parsed.port, **overrides)
    info = control.health(config)
    if info is not None:
        return info
    info = control.start(config)
    if config.base_url not in _STARTED:
        _STARTED[config.base_url] = config
        atexit.register(control.stop, config)
    return info
