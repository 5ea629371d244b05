"""The local server's model registry, the transcript chat template for base models, and the
Gemma GGUF assembled once into the model cache (joined from the real chunk packages)."""

from __future__ import annotations

import os

import pytest
from smol_envs_core.errors import InfrastructureError
from smol_envs_core.server import model_files, models, transcript


@pytest.mark.unit
def test_registry_names_both_models_with_their_own_ports():
    assert list(models.MODELS) == ["smollm2-135m", "gemma-3-270m"]
    assert models.DEFAULT is models.SMOLLM2
    ports = {m.default_port for m in models.MODELS.values()}
    assert ports == {8765, 8766}  # both can be served at once
    assert models.GEMMA3_270M.completions_alias == "gemma-3-270m-completions"
    with pytest.raises(ValueError, match="choose one of smollm2-135m, gemma-3-270m"):
        models.get("gemma")


@pytest.mark.unit
def test_port_variables(monkeypatch):
    monkeypatch.delenv("SMOL_ENVS_GEMMA_PORT", raising=False)
    assert models.GEMMA3_270M.port() == 8766
    monkeypatch.setenv("SMOL_ENVS_GEMMA_PORT", "9001")
    monkeypatch.setenv("SMOL_ENVS_MODEL_PORT", "9002")
    assert (models.GEMMA3_270M.port(), models.SMOLLM2.port()) == (9001, 9002)
    monkeypatch.setenv("SMOL_ENVS_GEMMA_PORT", "x")
    with pytest.raises(ValueError, match="SMOL_ENVS_GEMMA_PORT must be a port number"):
        models.GEMMA3_270M.port()


@pytest.mark.unit
@pytest.mark.parametrize(
    "messages, expected, why",
    [
        ([{"role": "user", "content": "Hi?"}], "User: Hi?\nAssistant:", "one turn"),
        (
            [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hi?"}],
            "Be brief.\n\nUser: Hi?\nAssistant:",
            "system text leads, a blank line after it",
        ),
        (
            [{"role": "user", "content": "a"}, {"role": "assistant", "content": "b"},
             {"role": "user", "content": [{"type": "text", "text": "c"},
                                          {"type": "image_url", "image_url": {}}]}],
            "User: a\nAssistant: b\nUser: c\nAssistant:",
            "earlier turns kept; text parts joined, other parts dropped",
        ),
        (
            [{"role": "system", "content": ""}, {"role": "user", "content": None}],
            "User: \nAssistant:",
            "empty system text adds nothing; no content is empty",
        ),
    ],
)
def test_transcript_render(messages, expected, why):
    assert transcript.render(messages) == expected, why


@pytest.mark.unit
def test_transcript_registers_with_llama_cpp_python():
    from llama_cpp.llama_chat_format import get_chat_completion_handler

    transcript.register()
    transcript.register()  # idempotent
    assert callable(get_chat_completion_handler(transcript.FORMAT_NAME))


@pytest.mark.unit
def test_a_missing_model_package_names_the_install_command(tmp_path):
    with pytest.raises(InfrastructureError) as caught:
        model_files.assembled_file("no_such_gguf_package", models.GEMMA_SHA256,
                                   models.GEMMA_INSTALL, tmp_path)
    assert "no_such_gguf_package is not installed; run `uv sync --group gemma`" in str(caught.value)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.unit
def test_a_package_promising_another_sha256_is_refused(tmp_path):
    with pytest.raises(InfrastructureError, match="promises sha256"):
        model_files.assembled_file(models.GEMMA_PACKAGE, "0" * 64, models.GEMMA_INSTALL, tmp_path)


@pytest.mark.unit
def test_the_gemma_terms_ship_inside_the_installed_package():
    path = models.GEMMA3_270M.terms_path()
    assert path is not None and path.name == "GEMMA_TERMS.html"
    assert "Gemma" in path.read_text(errors="replace")[:20000]


@pytest.mark.integration  # writes 253 MB into tmp_path
def test_gemma_is_assembled_and_verified_once_then_reused(tmp_path, monkeypatch):
    path = model_files.assembled_file(models.GEMMA_PACKAGE, models.GEMMA_SHA256,
                                      models.GEMMA_INSTALL, tmp_path)
    assert path == tmp_path / "gemma-3-270m-q4_k_m.gguf"
    assert path.stat().st_size == 253_113_024
    assert model_files.sha256_of(path) == models.GEMMA_SHA256
    assert sorted(p.name for p in tmp_path.iterdir() if not p.name.startswith(".")) == [
        "gemma-3-270m-q4_k_m.gguf", "gemma-3-270m-q4_k_m.gguf.verified.json"]
    assert not (tmp_path / ".gemma-3-270m-q4_k_m.gguf.partial").exists()

    real_sha256 = model_files.sha256_of

    def no_hashing(_):
        raise AssertionError("re-hashed a file its stamp describes")

    monkeypatch.setattr(model_files, "sha256_of", no_hashing)
    assert model_files.assembled_file(models.GEMMA_PACKAGE, models.GEMMA_SHA256,
                                      models.GEMMA_INSTALL, tmp_path) == path
    monkeypatch.setattr(model_files, "sha256_of", real_sha256)

    # A damaged file (same size, one byte changed) no longer matches its stamp: it is checked,
    # found wrong and assembled again.
    with open(path, "r+b") as handle:
        handle.seek(1000)
        byte = handle.read(1)
        handle.seek(1000)
        handle.write(bytes([byte[0] ^ 0xFF]))
    os.utime(path, ns=(1, 1))
    assert model_files.assembled_file(models.GEMMA_PACKAGE, models.GEMMA_SHA256,
                                      models.GEMMA_INSTALL, tmp_path) == path
    assert model_files.sha256_of(path) == models.GEMMA_SHA256
