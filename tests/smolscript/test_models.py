"""What `smolscript evaluate --model` accepts and how it identifies a model
(smolscript.models): the sha256 of a local file (cached by path, size and mtime), of a model
folder, the commit of a Hub id (through huggingface_hub's real cache lookup, offline), and one
clear error for everything else, from the function and from the command line."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from smolscript.errors import ModelError
from smolscript.models import file_sha256, folder_sha256, hash_cache_path, resolve_model

from tests.support.hub import go_offline

pytestmark = pytest.mark.unit
BIN = Path(sys.executable).parent


@pytest.fixture(autouse=True)
def private_caches(tmp_path, monkeypatch):
    monkeypatch.setenv("SMOLSCRIPT_HASH_CACHE", str(tmp_path / "hashes.json"))
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hub"))
    go_offline(monkeypatch)
    # huggingface_hub reads it at import, which another test may already have done.
    from huggingface_hub import constants

    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path / "hub"))


def fake_gguf(path: Path, payload: bytes = b"weights") -> Path:
    path.write_bytes(b"GGUF" + payload)
    return path


def test_a_gguf_file_is_identified_by_its_sha256(tmp_path):
    path = fake_gguf(tmp_path / "m.gguf")
    ref = resolve_model(str(path))
    assert ref.kind == "gguf" and ref.name == "m.gguf" and ref.path == path.resolve()
    assert ref.sha256 == hashlib.sha256(path.read_bytes()).hexdigest()
    assert ref.identity() == {"kind": "gguf", "name": "m.gguf", "sha256": ref.sha256}


def test_the_hash_is_cached_by_path_size_and_mtime(tmp_path):
    path = fake_gguf(tmp_path / "m.gguf")
    real = file_sha256(path)
    cache = hash_cache_path()
    entries = json.loads(cache.read_text())
    [key] = entries
    # A cached value is used as is: the file is not read again ...
    cache.write_text(json.dumps({key: "cached"}))
    assert file_sha256(path) == "cached"
    # ... until its size or modification time changes; the stale entry is replaced.
    fake_gguf(path, b"other weights")
    os.utime(path, ns=(1, 1))
    assert file_sha256(path) == hashlib.sha256(path.read_bytes()).hexdigest() != real
    assert len(json.loads(cache.read_text())) == 1


def test_a_model_folder_is_identified_by_its_files(tmp_path):
    folder = tmp_path / "model"
    folder.mkdir()
    (folder / "config.json").write_text("{}")
    (folder / "model.safetensors").write_bytes(b"w")
    (folder / ".hidden").write_text("ignored")
    ref = resolve_model(str(folder))
    assert ref.kind == "hf_folder" and ref.sha256 == folder_sha256(folder)
    (folder / "model.safetensors").write_bytes(b"w2")
    assert folder_sha256(folder) != ref.sha256


def test_a_hub_id_resolves_to_the_commit_of_its_snapshot(tmp_path):
    """The layout huggingface_hub itself writes: refs/main names the commit, the snapshot
    folder holds the files (offline: found in the cache, never downloaded)."""
    commit = "0123456789abcdef0123456789abcdef01234567"
    repo = tmp_path / "hub" / "models--someone--tiny-model"
    (repo / "refs").mkdir(parents=True)
    (repo / "refs" / "main").write_text(commit)
    snapshot = repo / "snapshots" / commit
    snapshot.mkdir(parents=True)
    (snapshot / "config.json").write_text("{}")
    ref = resolve_model("someone/tiny-model")
    assert ref.kind == "hub" and ref.commit == commit and ref.path == snapshot
    assert ref.identity() == {"kind": "hub", "name": "someone/tiny-model", "commit": commit}
    assert resolve_model("someone/tiny-model", revision=commit).commit == commit


@pytest.mark.parametrize(("make", "message"), [
    (lambda d: str(d / "missing.gguf"), "no such file or folder"),
    (lambda d: (d / "x.bin").write_bytes(b"PK\x03\x04") and str(d / "x.bin"),
     "is not a GGUF file"),
    (lambda d: str(d), "without config.json"),
    (lambda d: "HuggingFaceTB/SmolLM2-135M",
     "cannot load Hub model 'HuggingFaceTB/SmolLM2-135M'.*pass a local model to --model: a "
     "GGUF file .*or a transformers model folder"),
])
def test_what_cannot_be_loaded_is_one_clear_error(tmp_path, make, message):
    with pytest.raises(ModelError, match=message):
        resolve_model(make(tmp_path))


def test_a_revision_with_a_local_model_is_refused(tmp_path):
    with pytest.raises(ModelError, match="--revision pins a Hub model"):
        resolve_model(str(fake_gguf(tmp_path / "m.gguf")), revision="abc")


def test_the_command_line_says_what_to_pass_offline_before_anything_starts(tmp_path):
    run = subprocess.run(
        [str(BIN / "smolscript"), "evaluate", "--model", "HuggingFaceTB/SmolLM2-135M",
         "--output", str(tmp_path / "r.json"), "--service-url", "http://127.0.0.1:9"],
        capture_output=True, text=True, timeout=120, env=dict(os.environ))
    assert run.returncode == 2, run.stderr
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1 and "pass a local model to --model" in lines[0], run.stderr
    assert "Traceback" not in run.stderr and not (tmp_path / "r.json").exists()
