"""Browser jobs through the real service: warm bwrap-isolated Chromium, web part's executor.

References pass and negative controls fail for generated HTML, CSS and DOM tasks; a hanging
candidate script is a candidate timeout (not infra), a network request never leaves the
sandbox, and the service keeps serving afterwards.
"""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import threading
from pathlib import Path

import pytest
from smolscript.verdict import build_browser_job
from smolscript.web import score_browser_result
from smolscript_builder.web import generate_web_tasks
from smolscript_sandbox.client import SandboxClient
from smolscript_sandbox.errors import JobRejected
from smolscript_sandbox.testing import TEST_URL

pytestmark = pytest.mark.integration


@pytest.mark.parametrize("language", ["html", "css", "javascript"])
async def test_reference_passes_and_negative_control_fails(browser_service, language):
    tasks = generate_web_tasks(language, 2, 7, "easy")
    async with SandboxClient(TEST_URL) as client:
        for task in tasks:
            ref = await client.run_browser_job(build_browser_job(task, task["reference_solution"]))
            assert ref.status == "ok", ref
            assert score_browser_result(ref, task["hidden_tests"])["passed"], ref
            neg = await client.run_browser_job(build_browser_job(task, task["negative_control"]))
            assert not score_browser_result(neg, task["hidden_tests"])["passed"], neg


async def test_hanging_script_is_a_candidate_timeout(browser_service):
    task = generate_web_tasks("javascript", 1, 3, "easy")[0]
    hang = "function setup(doc) {\n  while (true) {}\n}\n"
    async with SandboxClient(TEST_URL) as client:
        result = await client.run_browser_job(build_browser_job(task, hang))
        assert result.status == "timeout", result
        assert not score_browser_result(result, task["hidden_tests"])["passed"]
        # The slot recovers: the reference still passes afterwards on every browser slot.
        for _ in range(browser_service["browser_slots"]):
            ref = await client.run_browser_job(build_browser_job(task, task["reference_solution"]))
            assert score_browser_result(ref, task["hidden_tests"])["passed"], ref
        assert (await client.health())["status"] == "ok"


async def test_candidate_network_request_never_reaches_the_host(browser_service):
    """The listener accepts for the job's whole duration (not a fixed window), and a positive
    control from the host proves it would have seen a connection."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    listener.settimeout(0.2)
    port = listener.getsockname()[1]
    accepted: list = []
    done = threading.Event()
    thread = threading.Thread(target=_accept_until, args=(listener, accepted, done))
    thread.start()
    task = generate_web_tasks("javascript", 1, 5, "easy")[0]
    leak = (
        "function setup(doc) {\n"
        f"  fetch('http://127.0.0.1:{port}/x');\n"
        f"  const i = doc.createElement('img'); i.src = 'http://127.0.0.1:{port}/y';\n"
        "  doc.body.appendChild(i);\n}\n"
    )
    try:
        async with SandboxClient(TEST_URL) as client:
            result = await client.run_browser_job(build_browser_job(task, leak))
        seen_during_job = list(accepted)
        with socket.create_connection(("127.0.0.1", port), timeout=5):  # positive control
            for _ in range(50):
                if len(accepted) > len(seen_during_job):
                    break
                await asyncio.sleep(0.1)
    finally:
        done.set()
        thread.join()
        listener.close()
    assert result.status in ("ok", "timeout"), result
    assert seen_during_job == [], seen_during_job
    assert len(accepted) == 1  # the listener was live: it saw the host's own connection


def _accept_until(listener: socket.socket, accepted: list, done: threading.Event) -> None:
    """Accept (and record the peer of) every connection until `done` is set."""
    while not done.is_set():
        try:
            conn, peer = listener.accept()
        except TimeoutError:
            continue
        except OSError:
            return
        accepted.append(peer)
        conn.close()


async def test_malformed_browser_job_is_rejected(browser_service):
    async with SandboxClient(TEST_URL) as client:
        with pytest.raises(JobRejected):
            await client.run_browser_job(
                {"kind": "dom", "source": "", "probes": [{"id": "p1", "op": "explode"}]}
            )


async def test_supervisor_relaunches_a_killed_browser(browser_service):
    """Kill every warm browser behind the service's back; the next jobs relaunch them."""
    pidfiles = sorted(Path(browser_service["state_dir"]).glob("browser/slot*/browser.pid"))
    assert len(pidfiles) == browser_service["browser_slots"]
    for pidfile in pidfiles:
        os.kill(int(pidfile.read_text()), signal.SIGKILL)
    task = generate_web_tasks("css", 1, 11, "easy")[0]
    async with SandboxClient(TEST_URL) as client:
        before = (await client.health())["browser"]["restarts"]
        for _ in range(2 * browser_service["browser_slots"]):
            ref = await client.run_browser_job(build_browser_job(task, task["reference_solution"]))
            assert score_browser_result(ref, task["hidden_tests"])["passed"], ref
        after = (await client.health())["browser"]["restarts"]
    assert after - before >= browser_service["browser_slots"]
