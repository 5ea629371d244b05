"""A local model server of a test's own: on a free port, so with its own state folder and
request log (`serve.state_dir(port)`), that no other test or xdist worker sends requests to."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator

from smol_envs_core import procman
from smol_envs_core.server import models, serve

from tests.support.ports import free_port


def beside_other_workers() -> bool:
    """True when this test process shares the machine with other pytest-xdist workers
    (PYTEST_XDIST_WORKER_COUNT above 1). The suite's llama.cpp copies then govern their threads
    (`--governed-threads`, `smol_envs_core.server.cpushare`): llama.cpp's threads meet after every
    operation, and a fixed 2-thread server beside one busy core generated 0.7 tokens/s where a
    governed one generated 44.2 (README, "Threads"). The count never changes a logit."""
    return int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1")) > 1


@contextlib.contextmanager
def own_model_server(key: str, threads: int = 2) -> Iterator[str]:
    """Start our server of registry model `key` on a free port and yield its base URL
    (`http://127.0.0.1:PORT/v1`); stop it (its process group) on exit. Governed beside other
    xdist workers (`beside_other_workers`).

    Raises:
        InfrastructureError: the server could not start (serve.start_with_owner says why).
    """
    port = free_port()
    serve.start_with_owner(serve.DEFAULT_HOST, port, threads=threads, model=models.get(key),
                           governed=beside_other_workers())
    try:
        yield serve.base_url(serve.DEFAULT_HOST, port)
    finally:
        procman.stop(serve.state_dir(port))


def port_of(base_url: str) -> int:
    """The port of a base URL such as `http://127.0.0.1:8765/v1`."""
    return int(base_url.rsplit(":", 1)[1].split("/")[0])
