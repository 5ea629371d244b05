"""Test and benchmark support: one shared service per process, started on demand.

`ensure_service()` reuses a healthy service at the URL (default $SMOLSCRIPT_SANDBOX_URL or
port 8790) or starts one and stops it when the process exits.
"""

from __future__ import annotations

import atexit
import os
from urllib.parse import urlparse

from smolscript_sandbox import control
from smolscript_sandbox.config import ServiceConfig

_STARTED: dict[str, ServiceConfig] = {}


def ensure_service(url: str | None = None, **overrides: object) -> dict:
    """Return the health record of a running service, starting one if none answers.

    Raises control.ServiceStartError (with the service log) when it cannot start.
    """
    parsed = urlparse(url or os.environ.get("SMOLSCRIPT_SANDBOX_URL", "http://127.0.0.1:8790"))
    config = ServiceConfig.from_env(host=parsed.hostname, port=parsed.port, **overrides)
    info = control.health(config)
    if info is not None:
        return info
    info = control.start(config)
    if config.base_url not in _STARTED:
        _STARTED[config.base_url] = config
        atexit.register(control.stop, config)
    return info
