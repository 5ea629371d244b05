"""vf-eval runs the collection's rollouts in its own process: `RunFailurePolicy.start_server`
spawns none of verifiers' env server processes (each would import verifiers and load the
environment again before the first model request) unless SMOL_ENVS_ENV_SERVER=1."""

from __future__ import annotations

import pytest
from smol_envs_core.adapters.run_policy import ENV_SERVER_VAR, env_server_wanted

pytestmark = pytest.mark.unit


async def test_start_server_starts_nothing_by_default(monkeypatch):
    from pico_dsl_v1 import load_environment

    monkeypatch.delenv(ENV_SERVER_VAR, raising=False)
    env = load_environment(num_examples=1)
    await env.start_server(num_workers=1)
    assert env.env_client is None and env.env_server_process is None
    await env.stop_server()  # what vf-eval calls at the end: nothing to stop, no error


@pytest.mark.parametrize(("value", "wanted"), [("1", True), (" 1 ", True), ("0", False),
                                               ("", False), ("yes", False)])
def test_the_variable_brings_the_env_server_back(monkeypatch, value, wanted):
    monkeypatch.setenv(ENV_SERVER_VAR, value)
    assert env_server_wanted() is wanted
