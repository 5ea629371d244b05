"""Health facts: toolchain versions and a host fingerprint (image id inside the container)."""

from __future__ import annotations

import hashlib
import json
import os
import platform
import subprocess
from functools import cache

from smolscript_sandbox.runtimes import RUNTIMES, binaries, get_runtime


def _version(argv0: str) -> str:
    """First line of `argv0 --version` (Lua: -v), or 'missing'."""
    flag = "-v" if "lua" in os.path.basename(argv0) else "--version"
    try:
        done = subprocess.run(
            [argv0, flag], capture_output=True, timeout=20, check=False, text=True, errors="replace"
        )
    except (OSError, subprocess.TimeoutExpired):
        return "missing"
    text = (done.stdout or done.stderr).strip()
    return text.splitlines()[0] if text else f"exit {done.returncode}"


@cache
def runtime_versions(runtime: str) -> dict[str, str]:
    """The version line of each binary of one runtime (asked once per service process); every
    program reply carries it, so that each scored result names the toolchain that scored it.

    Raises JobRejected for an unknown runtime.
    """
    return {b: _version(b) for b in binaries(get_runtime(runtime))}


def toolchain_versions() -> dict[str, dict[str, str]]:
    """For each runtime, the version line of each binary its commands use."""
    out: dict[str, dict[str, str]] = {}
    for name, runtime in sorted(RUNTIMES.items()):
        out[name] = {b: _version(b) for b in binaries(runtime)}
    from smolscript_sandbox.executor import find_chromium

    browser = find_chromium()  # the binary the browser slots run
    out["chromium"] = {browser: _version(browser)} if browser else {}
    out["bwrap"] = {"bwrap": _version("bwrap")}
    return out


def host_fingerprint(versions: dict) -> str:
    """The container image id when set (SMOLSCRIPT_IMAGE_ID), else a hash of the host facts."""
    image = os.environ.get("SMOLSCRIPT_IMAGE_ID")
    if image:
        return f"image:{image}"
    facts = {"kernel": platform.release(), "machine": platform.machine(), "versions": versions}
    try:
        with open("/etc/os-release", encoding="utf-8") as fh:
            facts["os"] = fh.read()
    except OSError:
        pass
    digest = hashlib.sha256(json.dumps(facts, sort_keys=True).encode()).hexdigest()
    return f"host:{digest[:16]}"
