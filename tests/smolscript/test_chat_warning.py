"""smolscript through a chat endpoint warns, naming the completions alias.

smolscript is a raw-completion benchmark (base models continue the code prefix); through the
chat API the model sees each prompt inside its chat template instead. The run still goes on
(a chat model may be what the user means to measure), but it starts with one warning line.
The client is verifiers' own `ClientConfig`, as vf-eval builds it from `-m`/`-b` or an alias.
"""

from __future__ import annotations

import socket

import pytest
from smolscript.env import load_environment
from verifiers.types import ClientConfig

from tests.support.smolscript_edition import adder_tasks, write_edition

pytestmark = pytest.mark.integration  # the preflight opens a TCP connection


@pytest.fixture
def env(tmp_path, monkeypatch):
    write_edition(tmp_path / "data", adder_tasks(2))
    monkeypatch.setenv("SMOLSCRIPT_DATA_DIR", str(tmp_path / "data"))
    return load_environment()


@pytest.fixture
def listening_url():
    with socket.socket() as sock:  # accepts the preflight's connection, answers nothing
        sock.bind(("127.0.0.1", 0))
        sock.listen()
        yield f"http://127.0.0.1:{sock.getsockname()[1]}/v1"


@pytest.mark.parametrize("client_type", ["openai_chat_completions", "openai_chat_completions_token",
                                         "openai_responses"])
async def test_a_chat_client_gets_one_warning_naming_the_completions_alias(
        env, listening_url, capsys, client_type):
    await env.preflight(ClientConfig(api_base_url=listening_url, client_type=client_type))
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if "warning" in line]
    assert len(lines) == 1, err
    assert lines[0].startswith("smolscript: warning: ")
    assert client_type in lines[0]
    assert "-m smollm2-135m-completions" in lines[0]
    assert "--api-client-type openai_completions" in lines[0]


async def test_the_completions_client_runs_without_a_word(env, listening_url, capsys):
    await env.preflight(ClientConfig(api_base_url=listening_url,
                                     client_type="openai_completions"))
    assert capsys.readouterr().err == ""
