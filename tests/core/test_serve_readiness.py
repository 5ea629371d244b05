"""`smol-envs-serve start` is ready only after a real completion: a server that answers
/v1/models but dies (by a signal) or hangs on its first request is refused, loudly."""

from __future__ import annotations

import socket
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from smol_envs_core import serve

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


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _spawn(tmp_path: Path, mode: str) -> tuple[subprocess.Popen, int, Path]:
    port = _free_port()
    script = tmp_path / "fake_server.py"
    script.write_text(FAKE_SERVER)
    log = tmp_path / "server.log"
    with open(log, "wb") as out:
        proc = subprocess.Popen([sys.executable, str(script), str(port), mode], stdout=out,
                                stderr=subprocess.STDOUT)
    return proc, port, log


@pytest.fixture
def spawned(tmp_path):
    procs = []

    def spawn(mode):
        proc, port, log = _spawn(tmp_path, mode)
        procs.append(proc)
        return proc, port, log

    yield spawn
    for proc in procs:
        proc.kill()
        proc.wait()


def test_a_server_that_dies_on_its_first_completion_is_not_ready(spawned):
    proc, port, log = spawned("crash")
    with pytest.raises(serve.ServeError) as caught:
        serve._wait_ready("127.0.0.1", port, proc, log, timeout_s=20)
    message = str(caught.value)
    assert "killed by signal SIGSEGV" in message and "first completion" in message
    assert "request POST /v1/completions" in message  # the log tail names the last request


def test_a_server_that_hangs_on_its_first_completion_is_not_ready(spawned):
    proc, port, log = spawned("hang")
    with pytest.raises(serve.ServeError, match="first completion failed"):
        serve._wait_ready("127.0.0.1", port, proc, log, timeout_s=2)
    assert proc.poll() is None  # hung, not dead: start() kills it


def test_a_server_that_completes_is_ready(spawned):
    proc, port, log = spawned("ok")
    serve._wait_ready("127.0.0.1", port, proc, log, timeout_s=20)  # no error


@pytest.mark.parametrize(
    ("code", "expected"),
    [(-11, "killed by signal SIGSEGV"), (-4, "killed by signal SIGILL"),
     (1, "exited with status 1"), (None, "still running")],
)
def test_exit_description(code, expected):
    assert serve.exit_description(code) == expected


def test_request_line_names_the_generation_knobs():
    line = serve.request_line("/v1/completions", {"max_tokens": 4, "temperature": 0}, 99)
    assert line.endswith("request POST /v1/completions bytes=99 max_tokens=4 temperature=0")


def test_status_exits_non_zero_when_stopped(tmp_path, monkeypatch):
    monkeypatch.setenv("SMOL_ENVS_STATE_DIR", str(tmp_path))
    assert serve.main(["status", "--port", str(_free_port())]) == 1
