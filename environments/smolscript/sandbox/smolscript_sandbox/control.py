"""Start, stop and query the local service process (pid file and log under the state dir)."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time

import httpx

from smolscript_sandbox.config import ServiceConfig
from smolscript_sandbox.errors import SandboxInfraError


def _pidfile(config: ServiceConfig):
    return config.state_dir / "service.pid"


def _logfile(config: ServiceConfig):
    return config.state_dir / "service.log"


def health(config: ServiceConfig, timeout: float = 2.0) -> dict | None:
    """The service's /health record, or None when nothing answers."""
    try:
        reply = httpx.get(f"{config.base_url}/health", timeout=timeout)
    except httpx.HTTPError:
        return None
    return reply.json() if reply.status_code == 200 else None


def _log_tail(config: ServiceConfig, lines: int = 30) -> str:
    with contextlib.suppress(OSError):
        return "\n".join(_logfile(config).read_text(errors="replace").splitlines()[-lines:])
    return ""


def start(config: ServiceConfig, wait_s: float = 90.0) -> dict:
    """Start the service in the background (if not already up) and wait for /health.

    Returns the health record. Raises SandboxInfraError with the log tail on failure.
    """
    up = health(config)
    if up is not None:
        return up
    config.state_dir.mkdir(parents=True, exist_ok=True)
    os.chmod(config.state_dir, 0o711)
    cmd = [
        sys.executable,
        "-m",
        "smolscript_sandbox",
        "serve",
        "--host",
        config.host,
        "--port",
        str(config.port),
        "--slots",
        str(config.slots),
        "--browser-slots",
        str(config.browser_slots),
    ]
    if not config.browsers:
        cmd.append("--no-browsers")
    env = dict(os.environ)  # the server derives the same state folder from the port
    with open(_logfile(config), "ab") as log:
        proc = subprocess.Popen(
            cmd,
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
            env=env,
        )
    _pidfile(config).write_text(str(proc.pid))
    deadline = time.monotonic() + wait_s
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SandboxInfraError(
                f"service exited with code {proc.returncode}:\n{_log_tail(config)}"
            )
        up = health(config)
        if up is not None:
            return up
        time.sleep(0.2)
    proc.kill()
    raise SandboxInfraError(f"service not healthy after {wait_s:.0f} s:\n{_log_tail(config)}")


def stop(config: ServiceConfig, wait_s: float = 15.0) -> bool:
    """SIGTERM the service from the pid file, SIGKILL after `wait_s`; True if one was running."""
    try:
        pid = int(_pidfile(config).read_text().strip())
    except (OSError, ValueError):
        return False
    try:
        os.kill(pid, signal.SIGTERM)
    except ProcessLookupError:
        _pidfile(config).unlink(missing_ok=True)
        return False
    deadline = time.monotonic() + wait_s
    while time.monotonic() < deadline:
        with contextlib.suppress(ChildProcessError):
            os.waitpid(pid, os.WNOHANG)
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            break
        time.sleep(0.1)
    else:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    _pidfile(config).unlink(missing_ok=True)
    return True
