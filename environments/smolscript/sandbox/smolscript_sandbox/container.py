"""Production path: run the service inside its container image through the Docker SDK.

The image (`environments/smolscript/sandbox/Dockerfile`) is the outer boundary: no network
except the published loopback port, read-only root, no capabilities, no new privileges, pids
and memory limits, jobs as UID 1000; bwrap still isolates each job inside it.
"""

from __future__ import annotations

import time

import httpx

from smolscript_sandbox.errors import SandboxInfraError

DEFAULT_IMAGE = "smolscript-sandbox:0.1.0"
CONTAINER_PORT = 8790
SECCOMP_NOTE = (
    "bwrap needs unprivileged user namespaces inside the container: run with a seccomp profile "
    "that allows clone/unshare of namespaces (see the Dockerfile header)"
)


def docker_client():
    """A connected `docker` client; raises SandboxInfraError with the reason (no engine)."""
    try:
        import docker
    except ImportError as exc:
        raise SandboxInfraError("the `docker` Python package is not installed") from exc
    try:
        client = docker.from_env(timeout=10)
        client.ping()
    except Exception as exc:  # noqa: BLE001 - any failure means: no usable engine
        raise SandboxInfraError(
            f"no container engine reachable ({type(exc).__name__}: {exc}); "
            "install Docker or Podman, or run the local bwrap service instead "
            "(`python -m smolscript_sandbox start`, as root, see setup_host.sh)"
        ) from exc
    return client


def start_container(
    image: str = DEFAULT_IMAGE,
    host_port: int = 8790,
    *,
    slots: int = 2,
    memory: str = "4g",
    pids: int = 1024,
    seccomp_profile: str | None = None,
    wait_s: float = 120.0,
) -> str:
    """Start the service container and wait for /health; returns its base URL.

    Raises SandboxInfraError without an engine or when it never gets healthy.
    """
    client = docker_client()
    security = ["no-new-privileges"]
    if seccomp_profile:
        security.append(f"seccomp={seccomp_profile}")
    container = client.containers.run(
        image,
        detach=True,
        auto_remove=True,
        read_only=True,
        cap_drop=["ALL"],
        security_opt=security,
        pids_limit=pids,
        mem_limit=memory,
        memswap_limit=memory,
        user="1000:1000",
        tmpfs={"/tmp": "rw,size=1g,mode=1777", "/run/smolscript": "rw,size=1g,mode=1777"},
        environment={"SMOLSCRIPT_SANDBOX_SLOTS": str(slots), "SMOLSCRIPT_IMAGE_ID": image},
        ports={f"{CONTAINER_PORT}/tcp": ("127.0.0.1", host_port)},
        labels={"smolscript-sandbox": "1"},
    )
    url = f"http://127.0.0.1:{host_port}"
    deadline = time.monotonic() + wait_s
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"{url}/health", timeout=2).status_code == 200:
                return url
        except httpx.HTTPError:
            pass
        time.sleep(0.5)
    logs = container.logs(tail=40).decode("utf-8", "replace")
    container.kill()
    raise SandboxInfraError(
        f"sandbox container not healthy after {wait_s:.0f} s ({SECCOMP_NOTE}):\n{logs}"
    )
