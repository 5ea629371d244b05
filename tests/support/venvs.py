"""Clean venvs holding the collection installed from its built wheels, one per verifiers version.

What a user does: `scripts/build_wheels.py` builds every wheel and source archive of the
collection into one folder, and `pip install --find-links FOLDER ENV 'verifiers==X'` installs an
environment from it beside the chosen verifiers (our packages from the folder, the rest from the
index). Tests run code in these venvs with nothing on PYTHONPATH, so they see exactly what a
wheel ships.

Both live under `.cache/venvs/`, keyed by a digest of the packages' sources (every file under
their folders, and the data they link to): a venv whose digest is current is reused, and any
change to a package rebuilds the wheels and creates the venv afresh (`uv venv --clear`), so a
venv never holds an older build. uv's cache makes a rebuild take seconds after the first
download. Within one test session each venv is made at most once, and across the processes of
one session (pytest-xdist workers) or of parallel sessions by one process at a time: building
holds a file lock (`.cache/venvs/build.lock`); the others wait, then reuse what it built.
"""

from __future__ import annotations

import functools
import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

from filelock import FileLock

REPO = Path(__file__).resolve().parents[2]
CACHE = REPO / ".cache" / "venvs"
BUILD_LOCK_TIMEOUT_S = 1800  # the longest a build may hold the lock before a waiter gives up
# The environments installed into each venv (their workspace dependencies come along).
ENVIRONMENTS = ("pico-dsl-v1", "smolscript", "smoltalkbench", "smol-slm-eval")
VERSIONS = ("0.3.1", "0.4.0")
# The 0.4.0 venv builds our packages from their source archives alone (pip's and uv's
# `--no-binary`), the 0.3.1 venv installs the wheels: both ways a user installs are exercised.
FROM_SDIST = {"0.4.0"}
# Data the packages link to from outside their folders (copied into wheels and sdists).
LINKED_DATA = ("data/pico_dsl_v1_benchmark.jsonl", "data/smolscript")


def _build_script():
    sys.path.insert(0, str(REPO / "scripts"))
    try:
        import build_wheels
    finally:
        sys.path.pop(0)
    return build_wheels


def source_digest() -> str:
    """sha256 (hex) over the path and bytes of every file of the collection's packages and the
    data they link to, ignoring caches. Reads files only."""
    roots = [*_build_script().collection(), *(REPO / p for p in LINKED_DATA)]
    digest = hashlib.sha256()
    for root in roots:
        files = [root] if root.is_file() else sorted(
            p for p in root.rglob("*")
            if p.is_file() and "__pycache__" not in p.parts and not p.is_symlink())
        for path in files:
            digest.update(str(path.relative_to(REPO)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def _run(command: list[str]) -> None:
    env = {**os.environ, "UV_PYTHON_DOWNLOADS": "never"}
    env.pop("PYTHONPATH", None)
    env.pop("VIRTUAL_ENV", None)
    done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=900,
                          cwd=REPO)
    if done.returncode:
        raise RuntimeError(f"{' '.join(command)} failed:\n{done.stdout[-2000:]}"
                           f"{done.stderr[-3000:]}")


@functools.cache
def wheelhouse() -> Path:
    """The folder of built wheels and sdists for the current sources (built when missing).

    Raises RuntimeError with the build's output when `scripts/build_wheels.py` fails.
    """
    out = CACHE / f"wheels-{source_digest()[:16]}"
    with _building():
        if not (out / "complete").exists():
            for stale in CACHE.glob("wheels-*"):
                shutil.rmtree(stale, ignore_errors=True)
            _run([sys.executable, str(REPO / "scripts" / "build_wheels.py"), "--out", str(out)])
            (out / "complete").write_text("")
    return out


def _building() -> FileLock:
    """The lock held while wheels or a venv are built or checked (one builder at a time across
    processes); raises filelock.Timeout after BUILD_LOCK_TIMEOUT_S seconds of waiting."""
    CACHE.mkdir(parents=True, exist_ok=True)
    return FileLock(CACHE / "build.lock", timeout=BUILD_LOCK_TIMEOUT_S)


@functools.cache
def python(verifiers: str = "0.4.0") -> Path:
    """The interpreter of the clean venv with `verifiers==<verifiers>` and every environment
    installed from `wheelhouse()` (created when missing or built from older sources): from the
    sdists for the versions in FROM_SDIST, else from the wheels.

    Raises:
        RuntimeError: uv is missing, or the build or the install failed (output in the message).
    """
    uv = shutil.which("uv")
    if uv is None:
        raise RuntimeError("uv is needed to make the test venvs")
    wheels = wheelhouse()
    venv = CACHE / f"vf{verifiers.replace('.', '')}"
    interpreter = venv / "bin" / "python"
    stamp, built = venv / "wheels.txt", f"{wheels.name} bytecode"
    with _building():
        if interpreter.exists() and stamp.exists() and stamp.read_text() == built:
            return interpreter
        _run([uv, "venv", "-q", "--clear", "-p", sys.executable, str(venv)])
        ours = [p.name.split("-")[0].replace("_", "-") for p in wheels.glob("*.tar.gz")]
        no_binary = [a for name in ours for a in ("--no-binary", name)] if (
            verifiers in FROM_SDIST) else []
        # --compile-bytecode: with PYTHONDONTWRITEBYTECODE=1 (set on our machines) nothing
        # writes .pyc files later, and every process of the venv compiled its whole import tree
        # from source: tests.parity.v1_side under 0.4.0 took 18.4 s, with them 9.9 s.
        _run([uv, "pip", "install", "-q", "--compile-bytecode", "-p", str(interpreter),
              "--find-links", str(wheels), *no_binary, f"verifiers=={verifiers}",
              *ENVIRONMENTS])
        stamp.write_text(built)
    return interpreter


def environ(verifiers: str = "0.4.0") -> dict[str, str]:
    """Process environment for a command of the venv `python(verifiers)`: nothing on
    PYTHONPATH, the venv's bin first on PATH (then uv's, which 0.4's vf-eval calls)."""
    interpreter = python(verifiers)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    uv = shutil.which("uv")
    path = [str(interpreter.parent), *([str(Path(uv).parent)] if uv else []), env["PATH"]]
    return {**env, "VIRTUAL_ENV": str(interpreter.parent.parent), "PATH": os.pathsep.join(path)}
