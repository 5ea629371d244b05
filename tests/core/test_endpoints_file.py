"""The vf-eval endpoint aliases of the local server follow its port.

`configs/endpoints.toml` is what `smol-envs-serve endpoints` prints for the default port, and
the same command prints (or `--write`s) the aliases for any other port, read here by verifiers'
own endpoint-registry loader; an end-to-end vf-eval run goes through such a file to the
session's server, whatever its port.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from smol_envs_core import serve

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.unit
def test_the_committed_aliases_are_the_default_ports_rendering():
    assert (REPO / "configs" / "endpoints.toml").read_text() == serve.endpoints_toml(
        serve.DEFAULT_HOST, serve.DEFAULT_PORT)


@pytest.mark.unit
def test_verifiers_reads_the_aliases_of_another_port(tmp_path):
    from verifiers.legacy.utils.eval_utils import load_endpoints

    path = tmp_path / "endpoints.toml"
    path.write_text(serve.endpoints_toml("127.0.0.1", 9123))
    endpoints = load_endpoints(str(path))
    assert set(endpoints) == {"smollm2-135m", "smollm2-135m-completions"}
    for variants in endpoints.values():
        [variant] = variants
        assert variant.base_url == "http://127.0.0.1:9123/v1"
        assert variant.model == serve.MODEL_NAME
        assert variant.api_key_var == "SMOL_ENVS_LOCAL_API_KEY"
    assert endpoints["smollm2-135m"][0].api_client_type is None  # vf-eval's default: chat
    assert endpoints["smollm2-135m-completions"][0].api_client_type == "openai_completions"


@pytest.mark.integration
def test_the_command_follows_smol_envs_model_port(tmp_path):
    env = dict(os.environ, SMOL_ENVS_MODEL_PORT="9123", SMOL_ENVS_STATE_DIR=str(tmp_path))
    done = subprocess.run([sys.executable, "-m", "smol_envs_core.serve", "endpoints"],
                          capture_output=True, text=True, env=env, timeout=60, check=True)
    assert done.stdout == serve.endpoints_toml("127.0.0.1", 9123)
    target = tmp_path / "mine.toml"
    done = subprocess.run([sys.executable, "-m", "smol_envs_core.serve", "endpoints",
                           "--port", "9124", "--write", str(target)],
                          capture_output=True, text=True, env=env, timeout=60, check=True)
    assert target.read_text() == serve.endpoints_toml("127.0.0.1", 9124)
    assert done.stdout.strip() == f"wrote {target}"


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
