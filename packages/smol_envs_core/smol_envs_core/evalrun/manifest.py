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

__all__ = ["MANIFEST", "cpu_features", "engine", "load_average", "machine", "now", "read",
           "write"]

MANIFEST = "manifest.json"


def engine(kind: str) -> dict:
    """The serving engine and its version: llama-cpp-python for a served file, with the CPU
    instruction sets its build computes with (`cpu_features`: llama.cpp's system info, the
    features it reports as 1, e.g. ["AVX", "AVX2", "F16C", "FMA", ...]; builds with other
    sets give other logits for the same file, see `smol_envs_core/server/README.md`), or
    "endpoint" (unknown engine) for an endpoint. Values are None where llama-cpp-python is not
    installed."""
    if kind == "endpoint":
        return {"name": "endpoint", "version": None}
    try:
        version = importlib.metadata.version("llama-cpp-python")
    except importlib.metadata.PackageNotFoundError:
        return {"name": "llama-cpp-python", "version": None, "cpu_features": None}
    return {"name": "llama-cpp-python", "version": version, "cpu_features": cpu_features()}


def cpu_features() -> list[str] | None:
    """The features llama.cpp's `llama_print_system_info()` reports as 1 for its CPU backend
    (e.g. "AVX2", "FMA", "REPACK"), in its order; None when its library does not load (the
    model server's start then says why). Imports llama_cpp (about 0.1 s)."""
    try:
        import llama_cpp

        info = llama_cpp.llama_print_system_info().decode(errors="replace")
    except (ImportError, OSError, RuntimeError):
        return None
    features = []
    for part in info.split("|"):
        name, _, value = part.rpartition("=")
        name = name.split(":")[-1].strip()
        if name and value.strip() == "1" and name not in features:
            features.append(name)
    return features


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
