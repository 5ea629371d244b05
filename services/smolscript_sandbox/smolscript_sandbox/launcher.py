"""Build the sandbox launcher (`launcher.c`) with the host's gcc, once per source version.

The launcher is the privileged first step of every sandboxed process: it joins the slot's
cgroups, opens the descriptors bwrap reads, drops to the slot's uid and lowers the rlimits, in
one exec (the `sh` + `setpriv` + `prlimit` chain it replaced cost about 3 ms of CPU per
sandbox; see the sandbox README). It is compiled with plain `-O2` (never `-march=native`: the
service may move to another CPU) into a folder the service owns.
"""

from __future__ import annotations

import atexit
import hashlib
import os
import shutil
import subprocess
import tempfile
from functools import cache
from importlib import resources
from pathlib import Path

from smolscript_sandbox.errors import SandboxInfraError

# No -Werror here: a warning of a newer gcc must not stop the service (the tests build the
# source with -Werror).
GCC_FLAGS = ("-O2", "-Wall", "-Wextra")
BUILD_TIMEOUT_S = 60


def source() -> str:
    """The launcher's C source (package data)."""
    return resources.files(__package__).joinpath("launcher.c").read_text(encoding="utf-8")


def build(directory: Path) -> Path:
    """Compile the launcher into `directory` (created 0700) unless this source's binary is
    already there; returns its path (`launcher-<sha256 prefix of the source, the flags and
    gcc's version>`). The binary runs once (`-- true`) before it is used.

    Raises SandboxInfraError without gcc, when the compile fails or when the binary cannot
    run from `directory` (a noexec mount).
    """
    gcc = shutil.which("gcc")
    if gcc is None:
        raise SandboxInfraError("gcc not found: the sandbox launcher is compiled at start-up "
                                "(services/smolscript_sandbox/setup_host.sh installs it)")
    text = source()
    version = subprocess.run([gcc, "-dumpfullversion"], capture_output=True, text=True,
                             check=False).stdout.strip()
    key = "\0".join([text, *GCC_FLAGS, version])
    target = directory / f"launcher-{hashlib.sha256(key.encode()).hexdigest()[:16]}"
    if os.access(target, os.X_OK):
        return target
    directory.mkdir(mode=0o700, parents=True, exist_ok=True)
    handle, name = tempfile.mkstemp(prefix=".launcher-", dir=directory)
    os.close(handle)
    partial = Path(name)
    try:
        _compile_and_try(gcc, text, partial, directory)
        os.replace(partial, target)
    finally:
        partial.unlink(missing_ok=True)  # gone already when it became the target
    return target


def _compile_and_try(gcc: str, text: str, binary: Path, directory: Path) -> None:
    """Compile `text` into `binary`, then run it once (`-- true`); raises SandboxInfraError."""
    try:
        done = subprocess.run([gcc, *GCC_FLAGS, "-x", "c", "-o", str(binary), "-"],
                              input=text.encode(), capture_output=True,
                              timeout=BUILD_TIMEOUT_S, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise SandboxInfraError(f"sandbox launcher build failed: {exc}") from exc
    if done.returncode != 0:
        detail = done.stderr.decode("utf-8", "replace").strip()[-2000:]
        raise SandboxInfraError(f"sandbox launcher does not compile: {detail}")
    os.chmod(binary, 0o755)
    try:  # a folder mounted noexec would fail every sandbox later: fail here, by name
        ran = subprocess.run([str(binary), "--", "true"], capture_output=True, timeout=10,
                             check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise SandboxInfraError(f"the sandbox launcher cannot run from {directory} "
                                f"(mounted noexec?): {exc}") from exc
    if ran.returncode != 0:
        detail = ran.stderr.decode("utf-8", "replace").strip()[-500:]
        raise SandboxInfraError(f"the sandbox launcher fails: {detail}")


@cache
def default_launcher() -> Path:
    """A launcher built into a private temporary folder of this process, removed at exit (for
    sandboxes run before, or without, the service's start-up: tests, the tools)."""
    folder = Path(tempfile.mkdtemp(prefix="smolscript-launcher-"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    return build(folder)
