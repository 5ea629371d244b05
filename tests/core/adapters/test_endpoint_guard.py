"""Endpoint safety (issue 41): an alias missing from the endpoints file never falls back to a
hosted default, and a server that does not serve the requested model id is refused before the
first rollout. Both traps are run through the real vf-eval (startup hook, RunFailurePolicy) and
the real local model server."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from smol_envs_core.adapters import endpoint_guard
from smol_envs_core.errors import InfrastructureError

REPO = Path(__file__).resolve().parents[3]
ALIASES = ["smollm2-135m", "smollm2-135m-completions", "gemma-3-270m",
           "gemma-3-270m-completions"]


def _vf_eval(*args: str) -> subprocess.CompletedProcess:
    environ = {k: v for k, v in os.environ.items() if k != "SMOL_ENVS_DEBUG"}
    return subprocess.run(["uv", "run", "vf-eval", *args], cwd=REPO, capture_output=True,
                          text=True, timeout=600, env={**environ, "CI": "1"})


@pytest.mark.unit
@pytest.mark.parametrize(("argv", "refused"), [
    (["pico-dsl-v1", "-m", "smollm2-135"], True),        # the typo seen this round
    (["pico-dsl-v1"], True),                              # no -m: vf-eval's hosted default
    (["pico-dsl-v1", "-m", "smollm2-135m"], False),      # a committed alias
    (["pico-dsl-v1", "--model", "gemma-3-270m-completions"], False),
    (["pico-dsl-v1", "-m", "x", "-b", "http://127.0.0.1:1/v1"], False),  # explicit URL
    (["pico-dsl-v1", "-m", "gpt-4.1-mini", "-p", "openai"], False),      # explicit provider
    (["config.toml"], False),                             # a config file resolves its own
    (["pico-dsl-v1", "-h"], False),
    ([], False),
])
def test_only_a_command_that_would_fall_back_to_a_hosted_default_is_refused(argv, refused):
    line = endpoint_guard.alias_problem(argv, cwd=REPO)
    assert (line is not None) is refused, line


@pytest.mark.unit
def test_the_refusal_names_the_closest_alias_and_every_alias():
    line = endpoint_guard.alias_problem(["pico-dsl-v1", "-m", "smollm2-135"], cwd=REPO)
    assert line.startswith("smol-envs: error: model alias 'smollm2-135' is not in "
                           "./configs/endpoints.toml (did you mean smollm2-135m")
    assert all(alias in line for alias in ALIASES)
    assert "\n" not in line


@pytest.mark.unit
def test_a_missing_endpoints_file_is_refused_not_a_fallback(tmp_path):
    line = endpoint_guard.alias_problem(
        ["pico-dsl-v1", "-m", "smollm2-135m", "-e", str(tmp_path / "nope.toml")])
    assert line is not None and "no such file" in line


@pytest.mark.integration
def test_vf_eval_refuses_a_misspelled_alias_in_one_line():
    done = _vf_eval("pico-dsl-v1", "-m", "smollm2-135", "-n", "1")
    assert done.returncode == 2, done.stderr[-2000:]
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, done.stderr[-2000:]
    assert "did you mean smollm2-135m" in lines[0]
    assert "pinference" not in done.stderr


@pytest.mark.integration
def test_the_served_list_is_read_from_the_real_server(local_model_base_url, local_model_name):
    assert endpoint_guard.ensure_served(local_model_base_url, local_model_name) == [
        local_model_name]
    with pytest.raises(InfrastructureError, match="serves 'SmolLM2-135M-Instruct', not the "
                                                  "requested model 'other'"):
        endpoint_guard.ensure_served(local_model_base_url, "other")


@pytest.mark.e2e
def test_vf_eval_refuses_a_model_id_the_server_does_not_serve(local_model_base_url):
    done = _vf_eval("pico-dsl-v1", "-b", local_model_base_url, "-m", "some-other-name",
                    "-n", "1", "-d")
    assert done.returncode != 0, done.stderr[-2000:]
    lines = [line for line in (done.stdout + done.stderr).splitlines() if line.strip()]
    assert lines[-1] == (
        f"smol-envs: infrastructure failure: model endpoint {local_model_base_url}: it serves "
        "'SmolLM2-135M-Instruct', not the requested model 'some-other-name'; nothing was run "
        "(ask for a model it serves, or point at the server of that model)"), lines[-5:]
    assert "Traceback" not in done.stderr


@pytest.mark.unit
def test_verifiers_04s_vf_eval_is_left_to_its_own_flags(monkeypatch):
    """0.4's vf-eval takes `-m MODEL --client.base-url URL` and has no aliases: the startup hook
    installed beside it (the core's wheel) must not refuse its model ids."""
    import importlib.metadata

    argv = ["pico-dsl-v1", "-m", "SmolLM2-135M-Instruct", "--client.base-url", "http://x/v1"]
    assert endpoint_guard.alias_problem(argv, cwd=REPO) is not None  # read as a 0.3.1 command
    monkeypatch.setattr(importlib.metadata, "version", lambda name: "0.4.0")
    assert not endpoint_guard.classic_vf_eval()
    assert endpoint_guard.alias_problem(argv, cwd=REPO) is None
