"""Service configuration from arguments or SMOLSCRIPT_SANDBOX_* environment variables."""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from pathlib import Path

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8790
DEFAULT_UID_BASE = 61000
DEFAULT_BROWSER_UID_BASE = 62000


MIB = 1024 * 1024
GIB = 1024 * MIB
# Service bounds (issue 18, item 6); each can be changed with the environment variable named.
DEFAULT_MAX_BODY = 32 * MIB  # SMOLSCRIPT_SANDBOX_MAX_BODY: bytes of one request body
DEFAULT_QUEUE = 512  # SMOLSCRIPT_SANDBOX_QUEUE: jobs waiting for a slot, per pool
DEFAULT_JOB_TIME_S = 120.0  # SMOLSCRIPT_SANDBOX_JOB_TIME_S: one program job, compile + tests
DEFAULT_IDLE_S = 10.0  # SMOLSCRIPT_SANDBOX_IDLE_S: a connection without a request, a slow body
DEFAULT_SLOT_MEMORY = 2 * GIB  # SMOLSCRIPT_SANDBOX_SLOT_MEMORY: a job's processes and tmpfs
DEFAULT_SLOT_CPUS = 1.0  # SMOLSCRIPT_SANDBOX_SLOT_CPUS: CPU quota of one slot
DEFAULT_SLOT_PIDS = 512  # processes and threads of one slot
# Program slots per core by default (issue 13): a test run spends about a third of its elapsed
# time off the CPU (namespaces, mounts and process exit in bwrap: 8.8 ms of CPU in 13-19 ms
# for an empty sandbox here), so one slot per core leaves the cores partly idle. Each slot
# keeps its own uid, cgroup and limits; CPU-time verdicts do not depend on the slot count.
SLOTS_PER_CORE = 2


def default_state_root() -> Path:
    """The private folder (0700, checked at start) under which each service (one per port)
    keeps its state: $SMOLSCRIPT_SANDBOX_STATE, else /run/smolscript-sandbox for root (a
    root-only tmpfs nobody else can create it in), else /tmp/smolscript-sandbox-<uid>."""
    fallback = "/run/smolscript-sandbox" if os.geteuid() == 0 else (
        f"/tmp/smolscript-sandbox-{os.getuid()}"
    )
    return Path(os.environ.get("SMOLSCRIPT_SANDBOX_STATE", fallback))


def default_jobs_dir(state_dir: Path) -> Path:
    """Where a service's job folders live: $SMOLSCRIPT_SANDBOX_JOBS/port-N, else beside the
    state root for root (slot uids must traverse it; the state root is 0700), else inside the
    service's own state (a container user runs its jobs under its own uid)."""
    root = os.environ.get("SMOLSCRIPT_SANDBOX_JOBS")
    if root:
        return Path(root) / state_dir.name
    if os.geteuid() == 0:
        return Path(f"{state_dir.parent}-jobs") / state_dir.name
    return state_dir / "jobs"


@dataclass(frozen=True)
class ServiceConfig:
    """Everything the service needs to start; `slots` defaults to `SLOTS_PER_CORE` per core,
    `browser_slots` to one per core (at most `slots`)."""

    host: str = DEFAULT_HOST
    port: int = DEFAULT_PORT
    slots: int = 0
    browser_slots: int = 0
    state_dir: Path = Path()
    uid_base: int = DEFAULT_UID_BASE
    browser_uid_base: int = DEFAULT_BROWSER_UID_BASE
    browsers: bool = True
    jobs_dir: Path = Path()
    max_body_bytes: int = DEFAULT_MAX_BODY
    queue_limit: int = DEFAULT_QUEUE
    job_time_s: float = DEFAULT_JOB_TIME_S
    idle_timeout_s: float = DEFAULT_IDLE_S
    slot_memory_bytes: int = DEFAULT_SLOT_MEMORY
    slot_cpus: float = DEFAULT_SLOT_CPUS

    @classmethod
    def from_env(cls, **overrides: object) -> ServiceConfig:
        """Defaults, then SMOLSCRIPT_SANDBOX_{HOST,PORT,SLOTS,BROWSER_SLOTS,BROWSERS} and the
        bounds' variables (see the constants above), then explicit non-None overrides.
        Raises ValueError for a non-numeric value."""
        env = os.environ
        values: dict[str, object] = {
            "host": env.get("SMOLSCRIPT_SANDBOX_HOST", DEFAULT_HOST),
            "port": int(env.get("SMOLSCRIPT_SANDBOX_PORT", DEFAULT_PORT)),
            "slots": int(env.get("SMOLSCRIPT_SANDBOX_SLOTS", 0)),
            "browser_slots": int(env.get("SMOLSCRIPT_SANDBOX_BROWSER_SLOTS", 0)),
            "browsers": env.get("SMOLSCRIPT_SANDBOX_BROWSERS", "1") != "0",
            "uid_base": int(env.get("SMOLSCRIPT_SANDBOX_UID_BASE", DEFAULT_UID_BASE)),
            "browser_uid_base": int(
                env.get("SMOLSCRIPT_SANDBOX_BROWSER_UID_BASE", DEFAULT_BROWSER_UID_BASE)
            ),
            "max_body_bytes": int(env.get("SMOLSCRIPT_SANDBOX_MAX_BODY", DEFAULT_MAX_BODY)),
            "queue_limit": int(env.get("SMOLSCRIPT_SANDBOX_QUEUE", DEFAULT_QUEUE)),
            "job_time_s": float(env.get("SMOLSCRIPT_SANDBOX_JOB_TIME_S", DEFAULT_JOB_TIME_S)),
            "idle_timeout_s": float(env.get("SMOLSCRIPT_SANDBOX_IDLE_S", DEFAULT_IDLE_S)),
            "slot_memory_bytes": int(
                env.get("SMOLSCRIPT_SANDBOX_SLOT_MEMORY", DEFAULT_SLOT_MEMORY)
            ),
            "slot_cpus": float(env.get("SMOLSCRIPT_SANDBOX_SLOT_CPUS", DEFAULT_SLOT_CPUS)),
        }
        values.update({k: v for k, v in overrides.items() if v is not None})
        cfg = cls(**values)  # type: ignore[arg-type]
        # One state folder per port: slot folders, pid file and log are never shared.
        state_dir = (
            Path(cfg.state_dir)
            if str(cfg.state_dir) != "."
            else (default_state_root() / f"port-{cfg.port}")
        )
        cores = os.cpu_count() or 1
        slots = cfg.slots or SLOTS_PER_CORE * cores
        return replace(
            cfg,
            slots=slots,
            browser_slots=cfg.browser_slots or max(1, min(slots, cores)),
            state_dir=state_dir,
            jobs_dir=(
                Path(cfg.jobs_dir) if str(cfg.jobs_dir) != "." else default_jobs_dir(state_dir)
            ),
        )

    @property
    def base_url(self) -> str:
        """The service's HTTP root."""
        return f"http://{self.host}:{self.port}"
