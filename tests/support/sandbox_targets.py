"""Where the sandbox suites run their jobs: the host service or the service's container image
(a pytest plugin, registered by the root conftest.py, so that the service's own suites and the
smolscript suites share one set of targets).

A `Target` gives a suite what it needs to check a service from outside: its URL, its health
record, its job folders as the host sees them, and the stray processes left by jobs. The
container target runs the real image through `smolscript_sandbox.container` (the Docker SDK)
with the production settings; it needs a Docker engine ($DOCKER_HOST, `dockerd.sh`) and the image
(`build_sandbox_image.sh`, tag $SMOLSCRIPT_SANDBOX_IMAGE), both in
services/smolscript_sandbox/scripts/.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from smolscript_sandbox.reaper import list_processes
from smolscript_sandbox.testing import TEST_URL, ensure_service

from tests.support.ports import free_port

IMAGE = os.environ.get("SMOLSCRIPT_SANDBOX_IMAGE", "smolscript-sandbox:0.1.0")
# Ports of the container suites' containers, and so their names (`smolscript-sandbox-PORT`)
# are one block per pytest-xdist worker: every worker session starts its own container
# fixtures. The host suites use TEST_URL.
CONTAINER_PORT_BLOCK = 100


def container_port(base: int, worker: str | None) -> int:
    """The first port of `worker`'s block (`gw0`: `base`, `gw1`: `base` + CONTAINER_PORT_BLOCK,
    ...; None, outside xdist: `base`). The suites use it and the next six (replicas and
    peers). Raises ValueError for a worker id that is not `gw<N>`. Pure."""
    if worker is None:
        return base
    if not worker.startswith("gw") or not worker[2:].isdigit():
        raise ValueError(f"not a pytest-xdist worker id: {worker!r}")
    return base + CONTAINER_PORT_BLOCK * int(worker[2:])


# The container suites use this port and the next ones (replicas).
CONTAINER_PORT = container_port(int(os.environ.get("SMOLSCRIPT_SANDBOX_CONTAINER_PORT", "8800")),
                                os.environ.get("PYTEST_XDIST_WORKER"))
# The suites' client reply timeout: every job they send ends within the service's bounds in
# well under this, so a service that stops answering fails one test in minutes instead of
# holding the suite for the client's 900 s default per request.
REPLY_TIMEOUT_S = 180.0


@dataclass(frozen=True)
class Target:
    """A running service under test, seen from the host."""

    name: str  # "host" or "container"
    url: str
    health: dict
    host_jobs_dir: Path  # the service's job folders, as a host path
    strays: Callable[[], tuple[list, list]]  # (zombie children of the service, live job procs)


def docker_or_skip():
    """A connected Docker client; skips only when Docker is truly absent (no `dockerd` and no
    $DOCKER_HOST), fails when an installed engine is not running."""
    from smolscript_sandbox.container import docker_client
    from smolscript_sandbox.errors import SandboxInfraError

    try:
        return docker_client()
    except SandboxInfraError as exc:
        if shutil.which("dockerd") is None and not os.environ.get("DOCKER_HOST"):
            pytest.skip(f"Docker is not installed here (no dockerd, no DOCKER_HOST): {exc.reason}")
        raise


def host_strays(health: dict) -> tuple[list, list]:
    """(zombie children of a host service, live processes of its program slot uids)."""
    uids = set(health["slot_uids"])
    procs = list_processes()
    zombies = [p for p in procs if p[1] == health["pid"] and p[2] == "Z"]
    live = [p for p in procs if p[3] in uids and p[2] != "Z"]
    return zombies, live


def container_pids(container_id: str) -> list[int]:
    """Host pids of every process in a container (cgroup v1 pids controller, or v2)."""
    for path in (
        Path("/sys/fs/cgroup/pids/docker") / container_id / "cgroup.procs",
        Path("/sys/fs/cgroup/system.slice") / f"docker-{container_id}.scope" / "cgroup.procs",
        Path("/sys/fs/cgroup/docker") / container_id / "cgroup.procs",
    ):
        if path.exists():
            return [int(line) for line in path.read_text().split()]
    raise AssertionError(f"no cgroup found for container {container_id[:12]}")


def container_strays(container_id: str, service_pid: int) -> tuple[list, list]:
    """(zombie children of the containerized service, live job processes: those whose command
    line names the job folder /job; browsers never do)."""
    zombies, live = [], []
    for pid in container_pids(container_id):
        try:
            stat = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        state, ppid = stat[0], int(stat[1])
        entry = (pid, ppid, state, argv[0].decode(errors="replace"))
        if state == "Z" and ppid == service_pid:
            zombies.append(entry)
        elif state != "Z" and any(a == b"/job" or a.startswith(b"/job/") for a in argv):
            live.append(entry)
    return zombies, live


def _host(url: str, health: dict) -> Target:
    """The Target of a host service at `url` with health record `health`."""
    # (an older service, measured for a before/after table, has its jobs in its state folder)
    jobs = health.get("jobs_dir", health["state_dir"])
    return Target("host", url, health, Path(jobs), lambda: host_strays(health))


def own_host_target(**overrides: object) -> Iterator[Target]:
    """Start a host service of the caller's own on a free port (its own state folder and
    leased slot uids; no browsers unless `overrides` say so), yield its Target, stop it.

    For suites whose jobs must not meet another user's (the other xdist worker's): fork bombs
    and processes held as a slot uid, which would fail a neighbour's jobs on the same uids,
    and stray checks over every slot uid, which would see a neighbour's running jobs.
    Raises SandboxInfraError (with the log tail) when it does not become healthy.
    """
    from smolscript_sandbox import control
    from smolscript_sandbox.testing import config_for

    config = config_for(f"http://127.0.0.1:{free_port()}", **{"browsers": False, **overrides})
    health, started = control.start_owned(config)
    assert started, f"something else already answers at {config.base_url}"
    try:
        yield _host(config.base_url, health)
    finally:
        control.stop(config)


# Fixtures (moved from tests/smolscript/conftest.py)

@pytest.fixture(scope="session")
def host_target() -> Target:
    """The host service at TEST_URL (started if needed; stopped when the session ends)."""
    return _host(TEST_URL, ensure_service())


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
