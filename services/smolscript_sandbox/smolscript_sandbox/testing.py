"""Test and benchmark support: one service per URL, started on demand, stopped by its starter.

`ensure_service()` reuses a healthy service at the URL (default `TEST_URL`: port 8791, or
$SMOLSCRIPT_SANDBOX_TEST_URL) or starts one; `stop_started()` stops every service this process
started (the test suite calls it when the session ends; a process exit calls it too). The test
port differs from the default 8790 so that a developer's own service (or another suite that
stops its service when it ends) never disturbs the tests; uids are leased per service.
"""

from __future__ import annotations

import atexit
import os
from urllib.parse import urlparse

from smol_envs_core import procman

from smolscript_sandbox import control
from smolscript_sandbox.config import ServiceConfig

_STARTED: dict[str, ServiceConfig] = {}
TEST_URL = os.environ.get("SMOLSCRIPT_SANDBOX_TEST_URL", "http://127.0.0.1:8791")


def config_for(url: str | None = None, **overrides: object) -> ServiceConfig:
    """The service configuration of `url` (default TEST_URL)."""
    parsed = urlparse(url or TEST_URL)
    return ServiceConfig.from_env(host=parsed.hostname, port=parsed.port, **overrides)


def ensure_service(url: str | None = None, **overrides: object) -> dict:
    """Return the health record of a running service, starting one if none answers.

    Raises SandboxInfraError (with the service log) when it cannot start.
    """
    config = config_for(url, **overrides)
    control.prepare_state(config)
    procman.add_user(config.state_dir)
    info, started = control.start_owned(config)
    if started and config.base_url not in _STARTED:
        if not _STARTED:
            atexit.register(stop_started)
        _STARTED[config.base_url] = config
    return info


def stop_started() -> list[int]:
    """Stop the services this process started, unless another live user still needs one;
    returns the pids of those handed over to such a user (left running on purpose)."""
    handed_over = []
    for url, config in list(_STARTED.items()):
        record = procman.running(config.state_dir)
        if not procman.release(config.state_dir, started_here=True) and record is not None:
            handed_over.append(record.pid)
        del _STARTED[url]
    return handed_over
