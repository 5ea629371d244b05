"""Shared pytest fixtures: the real local model server (SmolLM2-135M-Instruct via llama.cpp)."""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


def _serve_module():
    spec = importlib.util.spec_from_file_location(
        "serve_local_model", REPO / "scripts" / "serve_local_model.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="session")
def local_model_base_url() -> str:
    """Base URL (`http://127.0.0.1:PORT/v1`) of a running local SmolLM2-135M-Instruct server.

    Reuses a server that already answers on SMOL_ENVS_MODEL_PORT (default 8765); otherwise starts
    one with scripts/serve_local_model.py and stops it at the end of the session. A server that
    cannot start fails the test (never skips): the tests that need it are about real behaviour.
    """
    serve = _serve_module()
    port = int(os.environ.get("SMOL_ENVS_MODEL_PORT", serve.DEFAULT_PORT))
    host = serve.DEFAULT_HOST
    if serve.models_answer(host, port):
        yield serve.base_url(host, port)
        return
    url = serve.start(host, port, threads=2)
    try:
        yield url
    finally:
        serve.stop()


@pytest.fixture(scope="session")
def local_model_name() -> str:
    """The model id the local server answers to."""
    return _serve_module().MODEL_NAME
