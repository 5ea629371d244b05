"""Where the sandbox suites run their jobs: the host service or the service's container image.

A `Target` gives a suite what it needs to check a service from outside: its URL, its health
record, its job folders as the host sees them, and the stray processes left by jobs. The
container target runs the real image through `smolscript_sandbox.container` (the Docker SDK)
with the production settings; it needs a Docker engine ($DOCKER_HOST, `scripts/dockerd.sh`)
and the image (`scripts/build_sandbox_image.sh`, tag $SMOLSCRIPT_SANDBOX_IMAGE).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from smolscript_sandbox.reaper import list_processes

IMAGE = os.environ.get("SMOLSCRIPT_SANDBOX_IMAGE", "smolscript-sandbox:0.1.0")
# The container suites use this port and the next ones (replicas); the host suites use TEST_URL.
CONTAINER_PORT = int(os.environ.get("SMOLSCRIPT_SANDBOX_CONTAINER_PORT", "8800"))


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
