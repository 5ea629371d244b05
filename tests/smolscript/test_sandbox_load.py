"""Load: concurrent jobs in all nine languages through the real service.

56 program jobs (seven languages, eight each) and 8 browser jobs (HTML, CSS, DOM) run at once,
many times the service's slots, so that they queue. Every job must come back (none lost, none
infra_error) with the right result for its own inputs, so that a mix-up between concurrent
jobs or slots would fail the test. Runs against the host service and against the service
container (`target` fixture).

The full size (256 jobs: 224 program, 32 browser; 27 s on the host and 47 s in the container
in the suite before) is the benchmark `benchmarks/bench_smolscript_load.py`, through the same
code (`tests.support.sandbox_load`).
"""

from __future__ import annotations

import asyncio

import pytest
from smolscript.frames import frame, harness_stdin
from smolscript.languages import LANGUAGES, render_job_files
from smolscript.types import canonical_output, encode_stdin
from smolscript_sandbox.client import SandboxClient
from smolscript_sandbox.schema import ProgramJob

from tests.support.sandbox_load import BODIES, NONCE, SIGNATURE, run_load

pytestmark = pytest.mark.integration

JOBS = 64
BROWSER_JOBS = 8


async def test_concurrent_mixed_language_jobs(target):
    run = await run_load(target.url, JOBS, BROWSER_JOBS)
    print("\n" + run.line(target.name, target.health))
    assert run.programs + run.browsers == JOBS
    assert JOBS > 4 * (target.health["slots"] + target.health["browser_slots"])  # they queue
    assert run.problems == []


async def test_long_jobs_of_fast_tests_never_run_out_of_processes(target):
    """Every test of a job leaves a bwrap helper orphaned to the service, a zombie that counts
    against the slot uid's process limit (64 for a test run) until it is reaped. A slot that
    runs many fast tests must not collect enough of them to make its next sandbox fail to
    start ("Creating new namespace failed: Resource temporarily unavailable", an infra_error):
    four jobs of 300 tests each, one per slot, all must pass."""
    spec = LANGUAGES["c"]
    source = spec.imports + spec.entry_header(SIGNATURE) + BODIES["c"] + spec.closing()
    tests = [{"stdin": harness_stdin(NONCE, encode_stdin([i, [i]], SIGNATURE))}
             for i in range(300)]
    job = ProgramJob(runtime="c", files=render_job_files("c", source, SIGNATURE), tests=tests)
    async with SandboxClient(target.url, max_concurrency=8) as client:
        results = await asyncio.gather(*(client.run_program_job(job) for _ in range(4)))
    for result in results:
        assert result.status == "ok", result.status
        bad = [t for t in result.tests if t.status != "ok"]
        assert bad == [], (len(bad), bad[:1])
        assert [t.stdout for t in result.tests] == [
            frame(NONCE, canonical_output([i * i], "list[int]"))[:-1] for i in range(300)]
