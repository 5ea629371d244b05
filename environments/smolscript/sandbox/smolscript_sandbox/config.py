"""Service configuration from arguments or SMOLSCRIPT_SANDBOX_* environment variables."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8790
DEFAULT_UID_BASE = 61000
DEFAULT_BROWSER_UID_BASE = 62000


def default_state_root() -> Path:
    """The folder under which each service (one per port) keeps its state."""
    fallback = f"/tmp/smolscript-sandbox-{os.getuid()}"
    return Path(os.environ.get("SMOLSCRIPT_SANDBOX_STATE", fallback))


@dataclass(frozen=True)
class ServiceConfig:
    """Everything the service needs to start; `slots` defaults to one per core."""

    host: str = DEFAULT_HOST
    port: int = DEFAULT_PORT
    slots: int = 0
    browser_slots: int = 0
    state_dir: Path = Path()
    uid_base: int = DEFAULT_UID_BASE
    browser_uid_base: int = DEFAULT_BROWSER_UID_BASE
    browsers: bool = True

    @classmethod
    def from_env(cls, **overrides: object) -> ServiceConfig:
        """Defaults, then SMOLSCRIPT_SANDBOX_{HOST,PORT,SLOTS,BROWSER_SLOTS,BROWSERS}, then
        explicit non-None overrides. Raises ValueError for a non-integer count or port."""
        env = os.environ
        values: dict[str, object] = {
            "host": env.get("SMOLSCRIPT_SANDBOX_HOST", DEFAULT_HOST),
            "port": int(env.get("SMOLSCRIPT_SANDBOX_PORT", DEFAULT_PORT)),
            "slots": int(env.get("SMOLSCRIPT_SANDBOX_SLOTS", 0)),
            "browser_slots": int(env.get("SMOLSCRIPT_SANDBOX_BROWSER_SLOTS", 0)),
            "browsers": env.get("SMOLSCRIPT_SANDBOX_BROWSERS", "1") != "0",
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
        slots = cfg.slots or cores
        return cls(
            host=cfg.host,
            port=cfg.port,
            slots=slots,
            browser_slots=cfg.browser_slots or max(1, min(slots, cores)),
            state_dir=state_dir,
            uid_base=cfg.uid_base,
            browser_uid_base=cfg.browser_uid_base,
            browsers=cfg.browsers,
        )

    @property
    def base_url(self) -> str:
        """The service's HTTP root."""
        return f"http://{self.host}:{self.port}"
