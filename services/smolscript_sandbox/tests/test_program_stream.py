"""`/v1/program/stream` and `SandboxClient.run_program_job_until` (issue 29, reward-only
scoring): each test is heard as it ends, a caller that stops the job frees its slot at once
and the tests after the stop never run; a job heard to its end is the plain endpoint's reply.
"""

from __future__ import annotations

import asyncio

import httpx
import pytest
from smolscript_sandbox.client import SandboxClient

from tests.support.sandbox_targets import Target, own_host_target

pytestmark = pytest.mark.integration

# Test i prints 2 * i; the test given 2 spins until the CPU limit (3 s) ends it.
SPIN_AT_2 = "n = int(input())\nwhile n == 2:\n    pass\nprint(2 * n)\n"
JOB = {"runtime": "python", "files": {"main.py": SPIN_AT_2},
       "tests": [{"stdin": f"{n}\n"} for n in range(5)]}


@pytest.fixture(scope="module")
def service() -> Target:
    """This module's own host service (one per xdist worker): its tests wait until no slot of
    the service is busy, which another user's jobs (the other worker's) would keep busy."""
    yield from own_host_target()


async def busy_slots(url: str) -> int:
    async with httpx.AsyncClient(timeout=10) as http:
        return (await http.get(f"{url}/health")).json()["busy"]


async def test_a_job_heard_to_its_end_is_the_plain_reply(service):
    async with SandboxClient(service.url) as client:
        plain = await client.run_program_job(JOB)
        streamed, stopped = await client.run_program_job_until(JOB, lambda i, r: True)
    assert not stopped
    assert [(t.status, t.stdout) for t in streamed.tests] == \
        [(t.status, t.stdout) for t in plain.tests]
    assert [t.status for t in plain.tests] == ["ok", "ok", "timeout", "ok", "ok"]
    assert streamed.toolchain == plain.toolchain and streamed.stages is not None


async def test_a_stopped_job_runs_no_further_test_and_frees_its_slot(service):
    heard: list[int] = []

    def keep_going(index, result):
        heard.append(index)
        return result.stdout != "2"  # stop at test 1, before the spinning test

    async with SandboxClient(service.url) as client:
        reply, stopped = await client.run_program_job_until(JOB, keep_going)
    assert stopped and heard == [0, 1] and [t.stdout for t in reply.tests] == ["0", "2"]
    # the stages heard: the compile check's sandbox and the two tests' (none after them)
    assert reply.stages is not None and reply.stages.sandboxes == 3
    for _ in range(50):  # the cancelled job's sweep runs on after the client left
        if await busy_slots(service.url) == 0:
            break
        await asyncio.sleep(0.1)
    assert await busy_slots(service.url) == 0


async def test_stopping_at_a_timeout_saves_the_tests_after_it(service):
    async with SandboxClient(service.url) as client:
        reply, stopped = await client.run_program_job_until(
            JOB, lambda i, result: result.status == "ok")
    assert stopped and [t.status for t in reply.tests] == ["ok", "ok", "timeout"]


async def test_malformed_streamed_job_is_rejected_before_the_stream(service):
    from smolscript_sandbox.errors import JobRejected

    async with SandboxClient(service.url) as client:
        with pytest.raises(JobRejected, match="unknown runtime"):
            await client.run_program_job_until(
                {"runtime": "cobol", "files": {"main.cob": "x"}, "tests": []},
                lambda i, r: True)


async def test_a_stop_at_the_last_test_still_frees_the_slot(service):
    """The client leaves while the job sweeps its slot: the sweep is not cut short."""
    quick = {**JOB, "files": {"main.py": "print(2 * int(input()))\n"}}
    async with SandboxClient(service.url) as client:
        for _ in range(4):
            _, stopped = await client.run_program_job_until(quick, lambda i, r: i < 4)
            assert stopped
    for _ in range(50):
        if await busy_slots(service.url) == 0:
            break
        await asyncio.sleep(0.1)
    assert await busy_slots(service.url) == 0
