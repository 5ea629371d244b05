"""What MODEL names on `smol-envs eval`'s command line, and how it is identified.

MODEL is one of (checked in this order):

- an OpenAI-compatible base URL (`http://...`, `https://...`), with `--model-id` (the id its
  `/v1/models` lists) and `--api-key-var` (the variable holding its key): used as it is;
  nothing is started. A hosted endpoint is used only when named this way.
- a registered alias (`smol_envs_core.server.models`: `smollm2-135m`, `gemma-3-270m`): its GGUF;
- a GGUF file;
- a Hugging Face checkpoint folder (config.json, safetensors, tokenizer): converted once to
  GGUF by llama.cpp's own converter (`convert`), cached by the folder's content hash.

Anything else is an error naming the closest alias (never a fall back to a hosted default).
A served model's identity is its file's sha256; an endpoint's is its URL and served id.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from pathlib import Path

from ..errors import SmolEnvsError
from ..server import models
from ..server.model_files import sha256_of

ALIAS = "alias"
GGUF = "gguf"
HF_FOLDER = "hf-folder"
ENDPOINT = "endpoint"


class ModelError(SmolEnvsError, ValueError):
    """MODEL names nothing usable (the message says what was expected)."""


@dataclass(frozen=True)
class ModelSpec:
    """A resolved MODEL.

    Attributes:
        given: MODEL as typed.
        kind: ALIAS, GGUF, HF_FOLDER or ENDPOINT.
        served_name: the model id requests carry (what `/v1/models` must list).
        gguf: the GGUF file served (None for an endpoint).
        sha256: the GGUF's sha256 (None for an endpoint).
        base_url: the endpoint's base URL (None until a server is started for a file).
        key_var: the variable holding the endpoint's key (None: no key).
        registry_key: the alias (`models.MODELS` key), when MODEL is one.
        source: the Hugging Face folder a GGUF was converted from, or the folder served as it
            is (gguf None: vLLM; sha256 is then the folder's content hash).
    """

    given: str
    kind: str
    served_name: str
    gguf: Path | None = None
    sha256: str | None = None
    base_url: str | None = None
    key_var: str | None = None
    registry_key: str | None = None
    source: Path | None = None

    @property
    def label(self) -> str:
        """A short name for folders and tables (the served id)."""
        return self.served_name

    def identity(self) -> dict:
        """The manifest's model identity (JSON-ready)."""
        return {"given": self.given, "kind": self.kind, "served_id": self.served_name,
                "file": str(self.gguf) if self.gguf else None, "sha256": self.sha256,
                "endpoint": self.base_url if self.kind == ENDPOINT else None,
                "alias": self.registry_key,
                "converted_from": str(self.source) if self.source and self.gguf else None,
                "folder": str(self.source) if self.source and not self.gguf else None}


def is_hf_folder(path: Path) -> bool:
    """True when `path` is a folder holding a Hugging Face checkpoint (config.json and
    safetensors or a PyTorch weights file)."""
    return path.is_dir() and (path / "config.json").is_file() and (
        any(path.glob("*.safetensors")) or any(path.glob("pytorch_model*.bin")))


def closest_alias_error(given: str) -> ModelError:
    """The error for a MODEL that is no alias, file, folder or URL, naming the closest alias.
    Pure."""
    close = difflib.get_close_matches(given, list(models.MODELS), n=1, cutoff=0.5)
    hint = f" (did you mean {close[0]}?)" if close else ""
    return ModelError(
        f"MODEL {given!r} is not a registered alias{hint}, a GGUF file, a Hugging Face "
        f"checkpoint folder or an http(s) base URL; aliases: {', '.join(models.MODELS)}")


def resolve(given: str, model_id: str | None = None, key_var: str | None = None,
            convert_folder=None) -> ModelSpec:
    """Resolve MODEL (see the module docstring).

    `convert_folder(path) -> Path` turns a Hugging Face folder into a cached GGUF
    (`convert.to_gguf` by default). Raises ModelError: an endpoint without `model_id`, or a
    MODEL that names nothing (naming the closest alias); InfrastructureError from the
    converter or a missing model package.
    """
    if given.startswith(("http://", "https://")):
        if not model_id:
            raise ModelError(f"an endpoint MODEL ({given}) needs --model-id: the id its "
                             "/v1/models lists")
        return ModelSpec(given, ENDPOINT, model_id, base_url=given.rstrip("/"),
                         key_var=key_var or None)
    if given in models.MODELS:
        entry = models.get(given)
        path = Path(entry.locate())
        return ModelSpec(given, ALIAS, entry.served_name, gguf=path, sha256=sha256_of(path),
                         registry_key=given)
    path = Path(given).expanduser()
    if path.is_file() and path.suffix.lower() == ".gguf":
        return ModelSpec(given, GGUF, model_id or path.stem, gguf=path.resolve(),
                         sha256=sha256_of(path))
    if is_hf_folder(path):
        if convert_folder is None:
            from .convert import to_gguf as convert_folder
        gguf = convert_folder(path.resolve())
        # the name as given (a sweep folder may link its checkpoints), as for a GGUF file
        return ModelSpec(given, HF_FOLDER, model_id or path.name or path.resolve().name, gguf=gguf,
                         sha256=sha256_of(gguf), source=path.resolve())
    if path.exists():
        raise ModelError(f"{given} is neither a .gguf file nor a Hugging Face checkpoint folder "
                         "(config.json with *.safetensors)")
    raise closest_alias_error(given)
