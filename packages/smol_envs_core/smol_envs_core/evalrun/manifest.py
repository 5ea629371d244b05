"""The manifest of a `smol-envs eval` run set (`manifest.json` beside the run folders): what
was evaluated (model identity: file sha256, or endpoint and served id), by which engine and
version, when, on which machine and under what load, with which suite, and each run's
behaviour version, rows and wall time. Reads the machine; no network."""

from __future__ import annotations

import importlib.metadata
import json
import time
from pathlib import Path

from ..runinfo import load_average, machine, utc_iso

__all__ = ["MANIFEST", "engine", "load_average", "machine", "now", "read", "write"]

MANIFEST = "manifest.json"


def engine(kind: str) -> dict:
    """The serving engine and its version: llama-cpp-python for a served file, "endpoint"
    (unknown engine) for an endpoint."""
    if kind == "endpoint":
        return {"name": "endpoint", "version": None}
    try:
        version = importlib.metadata.version("llama-cpp-python")
    except importlib.metadata.PackageNotFoundError:
        version = None
    return {"name": "llama-cpp-python", "version": version}


def now() -> str:
    """The time as ISO 8601 UTC, to the second (`runinfo.utc_iso`)."""
    return utc_iso(time.time())


def read(folder: Path) -> dict | None:
    """The manifest in `folder`, or None when there is none."""
    path = Path(folder) / MANIFEST
    return json.loads(path.read_text()) if path.is_file() else None


def write(folder: Path, manifest: dict) -> Path:
    """Write `manifest` to `folder`/manifest.json (atomically: a temporary file renamed)."""
    path = Path(folder) / MANIFEST
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(manifest, indent=2) + "\n")
    tmp.replace(path)
    return path
