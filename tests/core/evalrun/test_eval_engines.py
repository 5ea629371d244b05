"""`smol-envs eval --engine` (issue 41, vLLM bullet): which engine is chosen, what each serves
and refuses, and the exact vLLM server command. The vLLM server itself runs in the `vllm` tier
(tests/vllm)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from smol_envs_core.errors import InfrastructureError
from smol_envs_core.evalrun import engines
from smol_envs_core.evalrun.convert import folder_sha256
from smol_envs_core.evalrun.model import HF_FOLDER, ModelError

REPO = Path(__file__).resolve().parents[3]


def _hf_folder(root: Path) -> Path:
    folder = root / "tiny-checkpoint"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps({"model_type": "llama"}))
    (folder / "model.safetensors").write_bytes(b"\0" * 16)
    return folder


@pytest.mark.unit
def test_the_default_engine_is_llama_cpp_and_an_unknown_one_is_refused():
    assert isinstance(engines.select(), engines.LlamaCpp)
    with pytest.raises(ValueError, match="llama.cpp, vllm"):
        engines.select("tgi")


@pytest.mark.unit
def test_a_served_files_manifest_names_the_portable_kernels_it_computes_with():
    """The served llama.cpp build is AVX2/FMA/F16C (pyproject's cmake args), the same instructions
    on every x86-64 machine with AVX2; an AVX-512 build or -march=native computes other logits for
    the same file (server README) and would show here. llama.cpp reports the features it was
    built with, not the machine's."""
    import importlib.metadata

    from smol_envs_core.evalrun import manifest

    record = manifest.engine("gguf")
    assert record["name"] == "llama-cpp-python"
    assert record["version"] == importlib.metadata.version("llama-cpp-python")
    assert {"AVX", "AVX2", "FMA", "F16C"} <= set(record["cpu_features"])
    assert not [f for f in record["cpu_features"] if f.startswith(("AVX512", "AMX"))]
    assert manifest.engine("endpoint") == {"name": "endpoint", "version": None}


@pytest.mark.unit
def test_vllm_needs_a_named_python_that_exists(monkeypatch, tmp_path):
    monkeypatch.delenv(engines.VLLM_PYTHON_VAR, raising=False)
    with pytest.raises(ValueError, match="--vllm-python PATH .* SMOL_ENVS_VLLM_PYTHON"):
        engines.select("vllm")
    with pytest.raises(ValueError, match="no such file"):
        engines.select("vllm", str(tmp_path / "missing-python"))
    python = tmp_path / "python"
    python.write_text("")
    monkeypatch.setenv(engines.VLLM_PYTHON_VAR, str(python))
    chosen = engines.select("vllm")
    assert chosen.python == python and chosen.extra_args == engines.DEFAULT_VLLM_ARGS
    assert engines.select("vllm", vllm_args="--dtype auto -tp 2").extra_args == (
        "--dtype", "auto", "-tp", "2")


@pytest.mark.unit
def test_vllm_serves_a_folder_as_it_is_and_refuses_an_alias_or_a_gguf(tmp_path):
    vllm = engines.Vllm(Path(sys.executable))
    folder = _hf_folder(tmp_path)
    spec = vllm.resolve(str(folder), None, None)
    assert (spec.kind, spec.gguf, spec.source) == (HF_FOLDER, None, folder)
    assert spec.sha256 == folder_sha256(folder) and spec.served_name == "tiny-checkpoint"
    identity = spec.identity()
    assert identity["folder"] == str(folder) and identity["converted_from"] is None
    gguf = tmp_path / "model.gguf"
    gguf.write_bytes(b"GGUF")
    for given in ("smollm2-135m", str(gguf)):
        with pytest.raises(ModelError, match="cannot load a GGUF") as caught:
            vllm.resolve(given, None, None)
        assert "\n" not in str(caught.value)


@pytest.mark.unit
def test_the_vllm_command_is_vllms_own_openai_server_on_the_chosen_port(tmp_path, monkeypatch):
    monkeypatch.delenv("VLLM_CPU_KVCACHE_SPACE", raising=False)
    folder = _hf_folder(tmp_path)
    vllm = engines.Vllm(Path("/opt/vllm/bin/python"))
    spec = vllm.resolve(str(folder), "my-model", None)
    service = vllm.service(spec, "127.0.0.1", 45678)
    assert list(service.argv) == [
        "/opt/vllm/bin/python", "-m", "vllm.entrypoints.openai.api_server", "--model",
        str(folder), "--served-model-name", "my-model", "--host", "127.0.0.1", "--port",
        "45678", "--dtype", "float32"]
    assert service.env["VLLM_CPU_KVCACHE_SPACE"] == "2"
    assert service.state_dir == engines.state_dir(45678) and service.start_timeout_s >= 600
    monkeypatch.setenv("VLLM_CPU_KVCACHE_SPACE", "8")
    assert vllm.service(spec, "127.0.0.1", 45678).env["VLLM_CPU_KVCACHE_SPACE"] == "8"


@pytest.mark.unit
def test_the_manifest_names_the_engine_and_its_version(tmp_path):
    folder = _hf_folder(tmp_path)
    vllm = engines.Vllm(Path(sys.executable), _version="0.32.0")
    record = vllm.manifest(vllm.resolve(str(folder), None, None))
    assert (record["name"], record["version"], record["python"]) == (
        "vllm", "0.32.0", sys.executable)
    assert engines.LlamaCpp().manifest(engines.LlamaCpp().resolve("smollm2-135m", None, None)
                                       )["name"] == "llama-cpp-python"


@pytest.mark.integration
def test_a_python_without_vllm_fails_in_one_line_before_anything_starts(tmp_path):
    vllm = engines.Vllm(Path(sys.executable))  # this workspace's python has no vllm
    with pytest.raises(InfrastructureError, match="cannot import vllm"):
        vllm.version()


@pytest.mark.integration
def test_the_command_refuses_a_gguf_alias_under_vllm_in_one_line(tmp_path):
    environ = {k: v for k, v in os.environ.items() if k != "SMOL_ENVS_DEBUG"}
    done = subprocess.run(
        [sys.executable, "-m", "smol_envs_core.cli", "eval", "smollm2-135m", "--engine", "vllm",
         "--vllm-python", sys.executable, "--output", str(tmp_path / "runs")],
        cwd=REPO, capture_output=True, text=True, timeout=300, env=environ)
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip().count("\n") == 0 and "cannot load a GGUF" in done.stderr
    assert not (tmp_path / "runs" / "manifest.json").exists()
