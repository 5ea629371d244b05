"""Production path: run the service inside its container image through the Docker SDK.

The image (`services/smolscript_sandbox/Dockerfile`, built by
`services/smolscript_sandbox/scripts/build_sandbox_image.sh`) is the outer boundary;
`container_config` is the whole policy: uid 1000, read-only root with size-capped tmpfs (/tmp
and the state folder), all
capabilities dropped, no-new-privileges, 2 GiB of memory with no extra swap, 1 CPU, 512
processes, and the seccomp profile `seccomp.json` (passed as JSON text: the engine reads no
file of ours). bwrap still isolates each job inside it, in its own user, pid, mount, net, ipc
and uts namespaces; jobs have no network interface but loopback. Never `privileged`.
One program slot per container by default: the container's memory, process and CPU limits
are then one job's (cgroups are read-only inside, so the service cannot make slot cgroups
there); scale out with replicas rather than slots.

bwrap mounts a fresh /proc for each job, which the kernel refuses while parts of the container's
/proc are masked; the Docker CLI's `--security-opt systempaths=unconfined` lifts the masks, the
SDK refuses that option, and empty `MaskedPaths`/`ReadonlyPaths` in the host config have the
same effect (the engine keeps its defaults only when they are absent).

The container shares the host's network namespace and binds its HTTP port to 127.0.0.1: the
engine of services/smolscript_sandbox/scripts/dockerd.sh runs without a bridge (Docker's bridge
leaves iptables rules and ip_forward behind), so nothing can be published. Jobs never see that
network.
"""

from __future__ import annotations

import json
import logging
import time
from dataclasses import dataclass
from importlib import resources

import httpx

from smolscript_sandbox.errors import SandboxInfraError

logger = logging.getLogger(__name__)

DEFAULT_IMAGE = "smolscript-sandbox:0.1.0"
LABEL = "smolscript-sandbox"
CONTAINER_USER = 1000  # uid and gid of the image's `smol` user
CONTAINER_UID = f"{CONTAINER_USER}:{CONTAINER_USER}"
STATE_DIR = "/run/smolscript"


@dataclass(frozen=True)
class ContainerLimits:
    """Resource limits of one service container (Docker units: "2g" bytes, CPUs, processes)."""

    memory: str = "2g"  # memory and memory+swap alike: no swap beyond the memory limit
    cpus: float = 1.0
    pids: int = 512
    tmp_size: str = "256m"  # /tmp (Playwright's scratch files)
    state_size: str = "512m"  # the state folder: slot job folders and compiled programs


@dataclass(frozen=True)
class ServiceContainer:
    """A started service container: its URL, container id and image id (sha256:...)."""

    url: str
    container_id: str
    image_id: str
    name: str


def seccomp_profile() -> str:
    """The seccomp profile's JSON text (compact), as the engine's security option wants it."""
    text = resources.files("smolscript_sandbox").joinpath("seccomp.json").read_text()
    return json.dumps(json.loads(text), separators=(",", ":"))


def docker_client():
    """A connected `docker` client ($DOCKER_HOST); raises SandboxInfraError with the reason."""
    try:
        import docker
    except ImportError as exc:
        raise SandboxInfraError("the `docker` Python package is not installed") from exc
    try:
        client = docker.from_env(timeout=30)
        client.ping()
    except Exception as exc:  # noqa: BLE001 - any failure means: no usable engine
        raise SandboxInfraError(
            f"no container engine reachable ({type(exc).__name__}: {exc}); start one "
            "(`bash services/smolscript_sandbox/scripts/dockerd.sh start`, then export "
            "DOCKER_HOST as `dockerd.sh env` "
            "prints), or run the local bwrap service instead (`python -m smolscript_sandbox "
            "start`, as root, see setup_host.sh)"
        ) from exc
    return client


def container_config(
    image_id: str, port: int, slots: int, limits: ContainerLimits = ContainerLimits()
) -> tuple[dict, dict]:
    """(create_container keyword arguments less host_config, create_host_config arguments)
    for a service on 127.0.0.1:`port` with `slots` job slots. Pure: no engine needed."""
    create = {
        "image": image_id,
        "user": CONTAINER_UID,
        "environment": {
            "SMOLSCRIPT_SANDBOX_HOST": "127.0.0.1",
            "SMOLSCRIPT_SANDBOX_PORT": str(port),
            "SMOLSCRIPT_SANDBOX_SLOTS": str(slots),
            "SMOLSCRIPT_SANDBOX_BROWSER_SLOTS": "1",
            "SMOLSCRIPT_IMAGE_ID": image_id,
        },
        "labels": {LABEL: "1", f"{LABEL}.port": str(port)},
    }
    host = {
        "network_mode": "host",
        "read_only": True,
        "cap_drop": ["ALL"],
        "security_opt": ["no-new-privileges", f"seccomp={seccomp_profile()}"],
        "mem_limit": limits.memory,
        "memswap_limit": limits.memory,
        "nano_cpus": int(limits.cpus * 1e9),
        "pids_limit": limits.pids,
        "tmpfs": {
            "/tmp": f"rw,nosuid,nodev,noexec,size={limits.tmp_size},mode=1777",
            # exec: compiled candidates run from their job folder (bwrap binds it at /job).
            # The service's private state root: 0700 and the service user's, which the service
            # checks at start (statedir.py) and refuses otherwise.
            STATE_DIR: f"rw,nosuid,nodev,exec,size={limits.state_size},mode=0700,"
            f"uid={CONTAINER_USER},gid={CONTAINER_USER}",
        },
        "init": False,  # the service is its own child subreaper
    }
    return create, host


def image_id(client, image: str) -> str:
    """The sha256 id of a local image (tag or id); raises SandboxInfraError when absent."""
    try:
        return client.api.inspect_image(image)["Id"]
    except Exception as exc:  # noqa: BLE001 - docker.errors.ImageNotFound and API errors
        raise SandboxInfraError(
            f"image {image!r} not found ({exc}); build it with "
            "services/smolscript_sandbox/scripts/build_sandbox_image.sh"
        ) from exc


def start_container(
    image: str = DEFAULT_IMAGE,
    host_port: int = 8790,
    *,
    slots: int = 1,
    limits: ContainerLimits = ContainerLimits(),
    name: str | None = None,
    wait_s: float = 180.0,
) -> ServiceContainer:
    """Start the service container and wait until /health on 127.0.0.1:`host_port` answers
    and its browser is warm.

    Raises SandboxInfraError without an engine or image, when the port already answers, or
    when the container does not become healthy within `wait_s` (the container is removed and
    its log tail is in the message).
    """
    url = f"http://127.0.0.1:{host_port}"
    client = docker_client()
    if _healthy(url):
        raise SandboxInfraError(f"something already answers at {url}; choose another port")
    resolved = image_id(client, image)
    create, host = container_config(resolved, host_port, slots, limits)
    host_config = client.api.create_host_config(**host)
    host_config["MaskedPaths"] = []  # = systempaths=unconfined (see the module docstring)
    host_config["ReadonlyPaths"] = []
    name = name or f"smolscript-sandbox-{host_port}"
    _remove_stale(client, name)
    container = client.api.create_container(**create, host_config=host_config, name=name)
    client.api.start(container["Id"])
    started = ServiceContainer(url=url, container_id=container["Id"], image_id=resolved,
                               name=name)
    deadline = time.monotonic() + wait_s
    while time.monotonic() < deadline:
        if _ready(url):
            return started
        state = client.api.inspect_container(container["Id"])["State"]
        if not state["Running"]:
            break
        time.sleep(0.5)
    logs = client.api.logs(container["Id"], tail=40).decode("utf-8", "replace")
    stop_container(started.container_id)
    raise SandboxInfraError(f"sandbox container {name} not healthy after {wait_s:.0f} s:\n{logs}",
                            url)


def _remove_stale(client, name: str) -> None:
    """Remove a container called `name` left by a run that was killed (an engine restarted
    with its data root keeps it, stopped): its port does not answer (checked by the caller),
    so it holds only the name."""
    import docker

    try:
        client.api.remove_container(name, force=True)
    except docker.errors.NotFound:
        return
    logger.warning("removed a stale container named %s (left by an earlier run)", name)


def stop_container(container: str, wait_s: int = 10) -> bool:
    """Stop and remove a service container (id or name); False when there was none."""
    import docker

    client = docker_client()
    try:
        client.api.stop(container, timeout=wait_s)
    except docker.errors.NotFound:
        return False
    except docker.errors.APIError:
        pass  # already stopping or stopped: remove below
    try:
        client.api.remove_container(container, force=True)
    except docker.errors.NotFound:
        pass
    return True


def service_containers() -> list[dict]:
    """The service containers of this engine (running or not): id, name, port, status."""
    client = docker_client()
    found = client.api.containers(all=True, filters={"label": LABEL})
    return [
        {"id": c["Id"], "name": c["Names"][0].lstrip("/"), "status": c["State"],
         "port": int(c["Labels"].get(f"{LABEL}.port", 0))}
        for c in found
    ]


def _ready(url: str) -> bool:
    """/health answers and the warm browsers have started (or failed: the health record says
    so and browser jobs answer infra_error): a replica still launching Chromium on its one CPU
    would make its first jobs slow."""
    try:
        reply = httpx.get(f"{url}/health", timeout=2)
    except httpx.HTTPError:
        return False
    if reply.status_code != 200:
        return False
    record = reply.json()
    browser = record.get("browser") or {}
    return not record.get("browser_slots") or bool(browser.get("version") or browser.get("error"))


def _healthy(url: str) -> bool:
    try:
        return httpx.get(f"{url}/health", timeout=2).status_code == 200
    except httpx.HTTPError:
        return False
