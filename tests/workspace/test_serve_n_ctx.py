"""`smol-envs-serve start --n-ctx`: the local server starts with a larger context, up to the
model's own limit (SmolLM2 8192, Gemma 3 270M 32768), and says so on `/tokenize`."""

from __future__ import annotations

import os

import httpx
import pytest
from smol_envs_core.server import models

from tests.conftest import _serve_module

serve = _serve_module()


@pytest.mark.unit
def test_n_ctx_beyond_the_models_limit_is_refused_in_one_line(capsys):
    assert serve.main(["start", "--n-ctx", "8193", "--port", "1"]) == 2
    assert "8192" in capsys.readouterr().err
    serve.check_n_ctx(32768, models.GEMMA3_270M)
    with pytest.raises(ValueError, match="32768"):
        serve.check_n_ctx(32769, models.GEMMA3_270M)
    argv = serve.service("127.0.0.1", 1, 2, models.SMOLLM2, n_ctx=8192).argv
    assert argv[argv.index("--n-ctx") + 1] == "8192"


@pytest.mark.integration
def test_server_starts_with_the_context_asked_for(tmp_path, monkeypatch):
    monkeypatch.setenv("SMOL_ENVS_STATE_DIR", str(tmp_path))
    port = int(os.environ.get("SMOL_ENVS_MODEL_PORT", "8765")) + 2  # a port of our own
    url = serve.start("127.0.0.1", port, threads=1, n_ctx=8192)
    try:
        long_prompt = "word " * 2200  # about 2,200 tokens: past the default 2,048
        tokens = httpx.post(f"{url.removesuffix('/v1')}/tokenize",
                            json={"prompt": long_prompt}, timeout=60).json()
        assert tokens["max_model_len"] == 8192 and tokens["count"] > 2048
        reply = httpx.post(f"{url}/completions", json={
            "model": models.SMOLLM2.served_name, "prompt": long_prompt, "max_tokens": 2,
            "temperature": 0}, timeout=300)
        assert reply.status_code == 200, reply.text[:300]
        assert reply.json()["usage"]["prompt_tokens"] > 2048
    finally:
        serve.stop(port)
