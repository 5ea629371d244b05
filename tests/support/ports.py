"""Loopback ports for tests: one that nothing listens at (a dead endpoint) and one to start a
server on. Both ask the kernel for a free port, so parallel suites never collide."""

from __future__ import annotations

import socket


def free_port() -> int:
    """A TCP port on 127.0.0.1 that was free a moment ago (bind to 0, read, close).

    Used both to start a server on and, left unused, as a port nothing listens at.
    """
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def closed_port_url(path: str = "") -> str:
    """`http://127.0.0.1:PORT` + `path` for a port nothing listens at (connection refused)."""
    return f"http://127.0.0.1:{free_port()}{path}"
