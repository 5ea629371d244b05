"""Shared pytest fixtures: the real local model server (SmolLM2-135M-Instruct via llama.cpp)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


def _serve_module():
    from smol_envs_core import serve

    return serve


@pytest.fixture(scope="session")
def local_model_base_url() -> str:
    """Base URL (`http://127.0.0.1:PORT/v1`) of a running local SmolLM2-135M-Instruct server.

    Uses our server on SMOL_ENVS_MODEL_PORT (default 8765), starting it when none runs there.
    Each pytest session registers itself as a user (a file named by its pid). A server started
    here is stopped by its last live user, so parallel sessions never pull it from under each
    other; a server started by hand (`serve_local_model.py start`) is left running.
    A server that cannot start fails the test (never skips): these tests are about real
    behaviour.
    """
    serve = _serve_module()
    port = int(os.environ.get("SMOL_ENVS_MODEL_PORT", serve.DEFAULT_PORT))
    host = serve.DEFAULT_HOST
    users = serve.state_dir(port) / "users"
    users.mkdir(parents=True, exist_ok=True)
    me = users / str(os.getpid())
    me.touch()
    started_here = serve.status(port) == "stopped"
    try:
        # Ours (reused, waiting while it is busy), or a fresh one.
        yield serve.start(host, port, threads=2)
    finally:
        me.unlink(missing_ok=True)
        others = [f for f in users.iterdir() if f.name.isdigit() and _pid_alive(int(f.name))]
        if started_here and not others:
            serve.stop(port)


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except OSError:
        return False
    return True


@pytest.fixture(scope="session")
def local_model_name() -> str:
    """The model id the local server answers to."""
    return _serve_module().MODEL_NAME
