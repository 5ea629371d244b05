"""Start and stop what a `smol-envs eval` run needs: the model server for a model file, the
local judge's server, the smolscript scoring service.

Each is started on a free port through the one process manager (`procman`, by way of the
engine that serves the model, `engines.LlamaCpp` or `engines.Vllm`, and the scoring service's
own command), and `Services.close`
stops exactly the processes this run started (also after Ctrl-C or a failure: `run` calls it
in a `finally`). A model that is an endpoint starts nothing.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from dataclasses import dataclass, field

from ..errors import InfrastructureError
from .engines import LlamaCpp
from .model import ENDPOINT, ModelSpec

HOST = "127.0.0.1"


def free_port(host: str = HOST) -> int:
    """A TCP port nothing listens on right now (the kernel's choice)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((host, 0))
        return s.getsockname()[1]


@dataclass
class Services:
    """The processes one run started, to be stopped by `close` (the order is recorded).

    Attributes:
        threads: llama.cpp threads of each model server (the most a decode uses).
        governed: each decode uses only the cores other programs leave free
            (`serve --governed-threads`): on a shared machine, 2 fixed threads beside busy
            programs stalled generation (a pico row took 100-400 s at load average 13-26).
        log: where progress lines go (a callable taking one line).
    """

    threads: int = 2
    log: object = print
    governed: bool = True
    started_models: list[tuple[object, int]] = field(default_factory=list)  # (engine, port)
    started_sandbox: list[int] = field(default_factory=list)  # ports

    def model_server(self, spec: ModelSpec, engine=None) -> str:
        """The base URL serving `spec`: its endpoint as given, else a new server of it on a
        free port, run by `engine` (`engines.LlamaCpp` by default; ready after one real
        completion). Raises InfrastructureError."""
        if spec.kind == ENDPOINT:
            return spec.base_url
        engine = engine or LlamaCpp()
        port = free_port()
        self.log(f"smol-envs eval: starting the {engine.name} server for {spec.served_name} "
                 f"on port {port}")
        if engine.start(spec, HOST, port, self.threads, self.governed):
            self.started_models.append((engine, port))
        return f"http://{HOST}:{port}/v1"

    def scoring_service(self) -> str:
        """The smolscript scoring service's URL: $SMOLSCRIPT_SANDBOX_URL when set, else ours,
        started on a free port through the service's own command (`python -m
        smolscript_sandbox start`: the core imports no service). Raises InfrastructureError
        when it does not start."""
        if os.environ.get("SMOLSCRIPT_SANDBOX_URL"):
            return os.environ["SMOLSCRIPT_SANDBOX_URL"].rstrip("/")
        port = free_port()
        self.log(f"smol-envs eval: starting the smolscript scoring service on port {port}")
        done = _sandbox("start", port)
        if done.returncode != 0:
            raise InfrastructureError("scoring service", (done.stderr or done.stdout)[-500:],
                                      f"http://{HOST}:{port}")
        self.started_sandbox.append(port)
        return f"http://{HOST}:{port}"

    def close(self) -> list[str]:
        """Stop everything this run started; returns what was stopped, in words. Never
        raises (a stop that fails is reported on stderr)."""
        stopped = []
        for engine, port in self.started_models:
            try:
                engine.stop(port)
                stopped.append(f"model server on port {port}")
            except Exception as exc:  # noqa: BLE001 - keep stopping the others
                print(f"smol-envs eval: could not stop the model server on port {port}: {exc}",
                      file=sys.stderr)
        for port in self.started_sandbox:
            try:
                done = _sandbox("stop", port)
                if done.returncode != 0:
                    raise RuntimeError((done.stderr or done.stdout).strip()[-300:])
                stopped.append(f"scoring service on port {port}")
            except Exception as exc:  # noqa: BLE001
                print(f"smol-envs eval: could not stop the scoring service: {exc}",
                      file=sys.stderr)
        self.started_models.clear()
        self.started_sandbox.clear()
        return stopped


def _sandbox(command: str, port: int) -> subprocess.CompletedProcess:
    """`python -m smolscript_sandbox COMMAND --host HOST --port PORT` (start waits for the
    service's health), its output captured."""
    return subprocess.run([sys.executable, "-m", "smolscript_sandbox", command, "--host", HOST,
                           "--port", str(port)], capture_output=True, text=True, timeout=300)
