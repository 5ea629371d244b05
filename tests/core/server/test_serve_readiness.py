"""`smol-envs-serve start` is ready only after a real completion: a server that answers
/v1/models but dies (by a signal) or hangs on its first request is refused, loudly."""

from __future__ import annotations

import dataclasses
import sys
import textwrap
from pathlib import Path

import pytest
from smol_envs_core import procman
from smol_envs_core.errors import InfrastructureError
from smol_envs_core.server import serve

from tests.support.ports import free_port

pytestmark = pytest.mark.integration

# A stand-in server process: /v1/models answers; the first completion request crashes the
# process with SIGSEGV (as the AMX build did), hangs, or answers, depending on MODE.
FAKE_SERVER = textwrap.dedent('''
    import json, os, signal, sys, time
    from http.server import BaseHTTPRequestHandler, HTTPServer
    MODE = sys.argv[2]
    class H(BaseHTTPRequestHandler):
        def log_message(self, *a):
            print("request", self.path, flush=True)
        def _send(self, body):
            data = json.dumps(body).encode()
            self.send_response(200)
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        def do_GET(self):
            self._send({"data": [{"id": "m"}]})
        def do_POST(self):
            print("request POST", self.path, flush=True)
            if MODE == "crash":
                os.kill(os.getpid(), signal.SIGSEGV)
            if MODE == "hang":
                time.sleep(60)
            self._send({"choices": [{"text": " Paris"}]})
    HTTPServer(("127.0.0.1", int(sys.argv[1])), H).serve_forever()
''')


def _service(tmp_path: Path, mode: str, confirm_timeout_s: float) -> procman.Service:
    """The model server's process description (ready on /v1/models, confirmed by one real
    completion) around the stand-in server."""
    port = free_port()
    script = tmp_path / "fake_server.py"
    script.write_text(FAKE_SERVER)
    return dataclasses.replace(
        serve.service("127.0.0.1", port, threads=1),
        state_dir=tmp_path / "state",
        argv=[sys.executable, str(script), str(port), mode],
        confirm=lambda: serve.first_completion("127.0.0.1", port, confirm_timeout_s),
    )


def test_a_server_that_dies_on_its_first_completion_is_not_ready(tmp_path):
    with pytest.raises(InfrastructureError) as caught:
        procman.start(_service(tmp_path, "crash", 20))
    message = str(caught.value)
    assert "killed by signal SIGSEGV" in message and "first completion" in message
    assert "request POST /v1/completions" in message  # the log tail names the last request


def test_a_server_that_hangs_on_its_first_completion_is_not_ready(tmp_path):
    service = _service(tmp_path, "hang", 2)
    with pytest.raises(InfrastructureError, match="first completion failed"):
        procman.start(service)
    assert procman.read_record(service.state_dir) is None  # never recorded, and killed
    assert not serve.models_answer("127.0.0.1", service.port, timeout=1)


def test_a_server_that_completes_is_ready(tmp_path):
    service = _service(tmp_path, "ok", 20)
    record, started = procman.start(service)
    try:
        assert started and procman.running(service.state_dir) == record
    finally:
        assert procman.stop(service.state_dir)


@pytest.mark.parametrize(
    ("code", "expected"),
    [(-11, "killed by signal SIGSEGV"), (-4, "killed by signal SIGILL"),
     (1, "exited with status 1"), (None, "still running")],
)
def test_exit_description(code, expected):
    assert procman.exit_description(code) == expected


def test_request_line_names_the_generation_knobs():
    line = serve.request_line("/v1/completions", {"max_tokens": 4, "temperature": 0}, 99)
    assert line.endswith("request POST /v1/completions bytes=99 max_tokens=4 temperature=0")


def test_status_exits_3_when_stopped(tmp_path, monkeypatch):
    monkeypatch.setenv("SMOL_ENVS_STATE_DIR", str(tmp_path))
    assert serve.main(["status", "--port", str(free_port())]) == 3
