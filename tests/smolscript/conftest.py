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
    # (an older service, measured for a before/after table, has its jobs in its state folder)
    jobs = health.get("jobs_dir", health["state_dir"])
    return Target("host", TEST_URL, health, Path(jobs),
                  lambda: host_strays(health))


def _container_target(port: int, slots: int):
    """The service image in a container on 127.0.0.1:`port` with the production settings
    (container.py); yields its Target and removes it afterwards."""
    from smolscript_sandbox.container import start_container, stop_container
    from smolscript_sandbox.control import health as read_health
    from smolscript_sandbox.testing import config_for

    client = docker_or_skip()
    started = start_container(IMAGE, port, slots=slots)
    try:
        health = read_health(config_for(started.url), timeout=10.0)
        pid = client.api.inspect_container(started.container_id)["State"]["Pid"]
        jobs = Path(f"/proc/{pid}/root") / health["jobs_dir"].lstrip("/")
        yield Target("container", started.url, health, jobs,
                     lambda: container_strays(started.container_id, pid))
    finally:
        stop_container(started.container_id)


@pytest.fixture(scope="session")
def container_target() -> Target:
    """Two slots in one container on CONTAINER_PORT (jobs beside each other in one sandbox
    service, as on the host)."""
    yield from _container_target(CONTAINER_PORT, slots=2)


@pytest.fixture(scope="session")
def container_slot_target() -> Target:
    """One slot in a container on CONTAINER_PORT+5: the production layout, where the
    container's memory, process and CPU limits are one job's."""
    yield from _container_target(CONTAINER_PORT + 5, slots=1)


@pytest.fixture(scope="session")
def container_peer_url(container_slot_target) -> str:
    """A second one-slot replica on CONTAINER_PORT+6, for tests of two jobs side by side."""
    for target in _container_target(CONTAINER_PORT + 6, slots=1):
        yield target.url


@pytest.fixture(scope="module", params=["host", "container"])
def target(request) -> Target:
    """Each suite that takes this fixture runs once against each target."""
    return request.getfixturevalue(f"{request.param}_target")
