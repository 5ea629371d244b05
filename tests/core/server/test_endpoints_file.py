"""The vf-eval endpoint aliases of the local servers follow their ports.

`configs/endpoints.toml` is what `smol-envs-serve endpoints` prints for the default ports
(SmolLM2 8765, Gemma 8766), and the same command prints (or `--write`s) the aliases for any
other port, of every model or of one (`--model`), read here by verifiers' own endpoint-registry
loader; an end-to-end vf-eval run goes through such a file to the session's server, whatever
its port.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from smol_envs_core.server import serve

REPO = Path(__file__).resolve().parents[3]


@pytest.mark.unit
def test_the_committed_aliases_are_the_default_ports_rendering():
    assert (REPO / "configs" / "endpoints.toml").read_text() == serve.endpoints_toml(
        serve.DEFAULT_HOST)
    assert serve.endpoints_toml(serve.DEFAULT_HOST) == serve.endpoints_toml(
        serve.DEFAULT_HOST, {"smollm2-135m": 8765, "gemma-3-270m": 8766})


@pytest.mark.unit
def test_verifiers_reads_the_aliases_of_another_port(tmp_path):
    from verifiers.legacy.utils.eval_utils import load_endpoints

    path = tmp_path / "endpoints.toml"
    path.write_text(serve.endpoints_toml("127.0.0.1", {"smollm2-135m": 9123,
                                                      "gemma-3-270m": 9125}))
    endpoints = load_endpoints(str(path))
    expected = {"smollm2-135m": (9123, "SmolLM2-135M-Instruct"),
                "gemma-3-270m": (9125, "gemma-3-270m")}
    assert set(endpoints) == {f"{key}{tail}" for key in expected for tail in ("", "-completions")}
    for endpoint_id, variants in endpoints.items():
        [variant] = variants
        port, model = expected[endpoint_id.removesuffix("-completions")]
        assert variant.base_url == f"http://127.0.0.1:{port}/v1"
        assert variant.model == model
        assert variant.api_key_var == "SMOL_ENVS_LOCAL_API_KEY"
        # vf-eval's default client (chat) for the plain alias, raw completions for the other.
        assert variant.api_client_type == (
            "openai_completions" if endpoint_id.endswith("-completions") else None)


@pytest.mark.integration
def test_the_command_follows_smol_envs_model_port(tmp_path):
    env = dict(os.environ, SMOL_ENVS_MODEL_PORT="9123", SMOL_ENVS_GEMMA_PORT="9125",
               SMOL_ENVS_STATE_DIR=str(tmp_path))
    command = [sys.executable, "-m", "smol_envs_core.server.serve", "endpoints"]
    done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=60,
                          check=True)
    assert done.stdout == serve.endpoints_toml("127.0.0.1", {"smollm2-135m": 9123,
                                                             "gemma-3-270m": 9125})
    done = subprocess.run([*command, "--model", "gemma-3-270m"], capture_output=True, text=True,
                          env=env, timeout=60, check=True)
    assert done.stdout == serve.endpoints_toml("127.0.0.1", {"gemma-3-270m": 9125})
    target = tmp_path / "mine.toml"
    done = subprocess.run([*command, "--model", "gemma-3-270m", "--port", "9124", "--write",
                           str(target)], capture_output=True, text=True, env=env, timeout=60,
                          check=True)
    assert target.read_text() == serve.endpoints_toml("127.0.0.1", {"gemma-3-270m": 9124})
    assert done.stdout.strip() == f"wrote {target}"
    done = subprocess.run(command, capture_output=True, text=True, timeout=60,
                          env=dict(env, SMOL_ENVS_GEMMA_PORT="eighty"))
    assert done.returncode == 2
    assert "SMOL_ENVS_GEMMA_PORT must be a port number, got 'eighty'" in done.stderr


@pytest.mark.e2e
def test_vf_eval_reaches_the_server_through_the_aliases_of_its_port(local_model_base_url,
                                                                   tmp_path):
    """The session's server on SMOL_ENVS_MODEL_PORT (8765 or any other): its aliases work."""
    port = int(local_model_base_url.rsplit(":", 1)[1].split("/")[0])
    target = tmp_path / "endpoints.toml"
    assert serve.main(["endpoints", "--port", str(port), "--write", str(target)]) == 0
    done = subprocess.run(
        ["uv", "run", "vf-eval", "pico-dsl-v1", "-e", str(target), "-m", "smollm2-135m",
         "-n", "1", "-r", "1", "-t", "16", "-s", "-o", str(tmp_path / "out")],
        cwd=REPO, capture_output=True, text=True, timeout=590, env=dict(os.environ, CI="1"))
    assert done.returncode == 0, done.stderr[-3000:]
    [metadata] = list((tmp_path / "out").rglob("metadata.json"))
    assert f"127.0.0.1:{port}/v1" in metadata.read_text()
