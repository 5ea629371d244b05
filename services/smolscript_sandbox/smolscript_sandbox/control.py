"""Start, stop and query the local service process, through the shared process manager.

`smol_envs_core.procman` keeps one record per port under the service's state folder (pid and
create time, written only once /health answers), holds a start lock so that two starters never
race, and stops only the process group it started.
"""

from __future__ import annotations

import os
import sys

import httpx
from smol_envs_core import procman
from smol_envs_core.errors import InfrastructureError

from smolscript_sandbox.config import ServiceConfig
from smolscript_sandbox.errors import SandboxInfraError
from smolscript_sandbox.statedir import secure_dir, secure_state_root


def health(config: ServiceConfig, timeout: float = 2.0) -> dict | None:
    """The service's /health record, or None when nothing answers."""
    try:
        reply = httpx.get(f"{config.base_url}/health", timeout=timeout)
    except httpx.HTTPError:
        return None
    return reply.json() if reply.status_code == 200 else None


def service(config: ServiceConfig, wait_s: float = 90.0) -> procman.Service:
    """The process-manager description of the service of `config`."""
    argv = [
        sys.executable, "-m", "smolscript_sandbox", "serve",
        "--host", config.host, "--port", str(config.port),
        "--slots", str(config.slots), "--browser-slots", str(config.browser_slots),
    ]
    if not config.browsers:
        argv.append("--no-browsers")
    return procman.Service(
        name="scoring service",
        host=config.host,
        port=config.port,
        url=config.base_url,
        state_dir=config.state_dir,
        argv=argv,
        ready=lambda: health(config) is not None,
        env=dict(os.environ),  # the server derives the same state folder from the port
        start_timeout_s=wait_s,
    )


def prepare_state(config: ServiceConfig) -> None:
    """Create (or check) the private state root and the service's folder in it (0700).

    Raises SandboxInfraError when the root is a link, not ours, or not 0700.
    """
    secure_state_root(config.state_dir.parent)
    secure_dir(config.state_dir, 0o700)


def start_owned(config: ServiceConfig, wait_s: float = 90.0) -> tuple[dict, bool]:
    """(health record, started by this call): reuse a service answering at the URL (ours or
    not), else start ours in the background and wait for /health.

    Raises SandboxInfraError (how it ended, the log tail) when it does not become healthy.
    """
    up = health(config)
    if up is not None:
        return up, False
    prepare_state(config)
    try:
        _, started = procman.start(service(config, wait_s))
    except InfrastructureError as exc:
        raise SandboxInfraError(exc.reason, config.base_url) from exc
    info = health(config, timeout=10.0)
    if info is None:
        raise SandboxInfraError("started, but /health stopped answering", config.base_url)
    return info, started


def start(config: ServiceConfig, wait_s: float = 90.0) -> dict:
    """Start the service (if not already up) and return its health record.

    Raises SandboxInfraError with the log tail on failure.
    """
    return start_owned(config, wait_s)[0]


def stop(config: ServiceConfig, wait_s: float = 15.0) -> bool:
    """Stop our service on this port (SIGTERM, SIGKILL after `wait_s`); True if one ran."""
    return procman.stop(config.state_dir, wait_s)
