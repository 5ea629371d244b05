"""MATH-500 and BFCL send the sampling their README promises when the caller sets none: vf-eval
without `-t` passes max_tokens None, which used to replace the task's budget (completions then
stopped at the server's 16 tokens). Checked on the wire, in the request log of a real local
server of this module's own (no other test adds lines to it), and in the run's metadata; greedy
requests carry no repetition penalty."""

from __future__ import annotations

import json

import pytest
from smol_envs_core import procman
from smol_envs_core.server import serve
from smol_slm_eval import bfcl, load_environment, math500

from tests.support.model_server import port_of
from tests.support.vf_eval import KEY_VAR, latest_run, vf_eval


def server_log_after(port: int, offset: int) -> list[str]:
    """The request lines our server on `port` logged after byte `offset` of its log."""
    with open(serve.state_dir(port) / procman.LOG, "rb") as log:
        log.seek(offset)
        return [line for line in log.read().decode(errors="replace").splitlines()
                if " request POST " in line]


def log_size(port: int) -> int:
    return (serve.state_dir(port) / procman.LOG).stat().st_size


@pytest.mark.e2e
def test_math500_without_t_sends_its_budget_and_records_it(own_model_base_url,
                                                          local_model_name, archive_cache,
                                                          tmp_path):
    port = port_of(own_model_base_url)
    start = log_size(port)
    done = vf_eval("smol-slm-eval", own_model_base_url, local_model_name,
                   {"task": "math_500"}, "-n", "1", "-r", "1", "-s", "-o", str(tmp_path),
                   "--api-client-type", "openai_completions")
    assert done.returncode == 0, done.stderr[-3000:]
    lines = [line for line in server_log_after(port, start) if "/v1/completions" in line]
    assert len(lines) == 1, lines
    assert f"max_tokens={math500.MAX_TOKENS} " in lines[0]
    assert "temperature=0.0 repeat_penalty=1.0" in lines[0]
    metadata = json.loads((latest_run(tmp_path, "smol-slm-eval") / "metadata.json").read_text())
    recorded = metadata["sampling_args"]
    assert recorded["max_tokens"] == math500.MAX_TOKENS and recorded["temperature"] == 0.0
    assert recorded["extra_body"] == {"repeat_penalty": 1.0}


@pytest.mark.integration
def test_bfcl_without_a_budget_sends_its_own(own_model_base_url, local_model_name,
                                             archive_cache, monkeypatch):
    from verifiers.types import ClientConfig

    monkeypatch.setenv(KEY_VAR, "EMPTY")
    port = port_of(own_model_base_url)
    env = load_environment(task="bfcl_v4", bfcl_category="simple_python", num_examples=1)
    start = log_size(port)
    out = env.evaluate_sync(client=ClientConfig(api_base_url=own_model_base_url,
                                                api_key_var=KEY_VAR, max_retries=0),
                            model=local_model_name, sampling_args={"max_tokens": None},
                            num_examples=1, rollouts_per_example=1)
    # The context check's /tokenize request comes first; the model request is the chat one.
    lines = [line for line in server_log_after(port, start) if "/chat/completions" in line]
    assert len(lines) == 1, lines
    assert f"max_tokens={bfcl.MAX_TOKENS} " in lines[0]
    assert "repeat_penalty=1.0" in lines[0]
    assert out["metadata"]["sampling_args"]["max_tokens"] == bfcl.MAX_TOKENS
