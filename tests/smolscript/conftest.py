"""Fixtures of the sandbox suites: the host service and the service container as targets."""

from __future__ import annotations

from pathlib import Path

import pytest
from smolscript_sandbox.testing import TEST_URL, ensure_service

from tests.smolscript._targets import (
    CONTAINER_PORT,
    IMAGE,
    Target,
    container_strays,
    docker_or_skip,
    host_strays,
)


@pytest.fixture(scope="session")
def host_target() -> Target:
    """The host service at TEST_URL (started if needed; stopped when the session ends)."""
    health = ensure_service()
    return Target("host", TEST_URL, health, Path(health["jobs_dir"]),
                  lambda: host_strays(health))


@pytest.fixture(scope="session")
def container_target() -> Target:
    """The service image in a container on 127.0.0.1:CONTAINER_PORT with the production
    settings (container.py), removed when the session ends."""
    from smolscript_sandbox.container import start_container, stop_container
    from smolscript_sandbox.control import health as read_health
    from smolscript_sandbox.testing import config_for

    client = docker_or_skip()
    started = start_container(IMAGE, CONTAINER_PORT, slots=2)
    try:
        health = read_health(config_for(started.url), timeout=10.0)
        pid = client.api.inspect_container(started.container_id)["State"]["Pid"]
        jobs = Path(f"/proc/{pid}/root") / health["jobs_dir"].lstrip("/")
        yield Target("container", started.url, health, jobs,
                     lambda: container_strays(started.container_id, pid))
    finally:
        stop_container(started.container_id)


@pytest.fixture(scope="module", params=["host", "container"])
def target(request) -> Target:
    """Each suite that takes this fixture runs once against each target."""
    return request.getfixturevalue(f"{request.param}_target")
