"""Load: 256 concurrent jobs in all nine languages through the real service.

224 program jobs (seven languages) and 32 browser jobs (HTML, CSS, DOM) run at once. Every job
must come back (none lost, none infra_error) with the right result for its own inputs, so that
a mix-up between concurrent jobs or slots would fail the test. Runs against the host service
and against the service container (`target` fixture).
"""

from __future__ import annotations

import asyncio
import time

import pytest
from smolscript.frames import frame, harness_stdin
from smolscript.languages import LANGUAGES, render_job_files
from smolscript.scoring import build_browser_job
from smolscript.types import canonical_output, encode_stdin
from smolscript.web import score_browser_result
from smolscript_builder.web import generate_web_tasks
from smolscript_sandbox.client import SandboxClient
from smolscript_sandbox.schema import BrowserJob, ProgramJob

pytestmark = pytest.mark.integration

JOBS = 256
BROWSER_JOBS = 32
SIGNATURE = {
    "params": [{"name": "n", "type": "int"}, {"name": "xs", "type": "list[int]"}],
    "returns": "list[int]",
}
# Body of `scale(n, xs) -> [x * n for x in xs]` per language (header from the language table).
BODIES = {
    "python": "    return [x * n for x in xs]\n",
    "javascript": "  return xs.map((x) => x * n);\n",
    "cpp": "    std::vector<int> r;\n    for (int x : xs) r.push_back(x * n);\n    return r;\n",
    "c": (
        "    int *r = malloc(sizeof(int) * (size_t)(xs_len + 1));\n"
        "    for (int i = 0; i < xs_len; i++) r[i] = xs[i] * n;\n"
        "    *out_len = xs_len;\n    return r;\n"
    ),
    "lua": "  local r = {}\n  for i, x in ipairs(xs) do r[i] = x * n end\n  return r\n",
    "csharp": "        var r = new List<int>();\n        foreach (var x in xs) r.Add(x * n);\n"
    "        return r;\n",
    "rust": "    xs.iter().map(|x| x * n).collect()\n",
}


NONCE = "5" * 32  # the result nonce of every job here (scoring makes a fresh one per job)


def job_for(index: int) -> tuple[ProgramJob, list[str]]:
    """The index-th job (language round-robin) and the expected canonical outputs."""
    language = sorted(BODIES)[index % len(BODIES)]
    spec = LANGUAGES[language]
    source = spec.imports + spec.entry_header(SIGNATURE) + BODIES[language] + spec.closing()
    cases = [(index, [1, 2, index % 50]), (-3, [index, 0])]
    job = ProgramJob(
        runtime=language,
        files=render_job_files(language, source, SIGNATURE),
        tests=[{"stdin": harness_stdin(NONCE, encode_stdin(list(args), SIGNATURE))}
               for args in cases],
    )
    # What the service reports: the harness's framed result, one final line end stripped.
    expected = [frame(NONCE, canonical_output([x * n for x in xs], "list[int]"))[:-1]
                for n, xs in cases]
    return job, expected


def browser_jobs() -> list[tuple[BrowserJob, dict]]:
    """(job, task) pairs: references of generated HTML, CSS and DOM tasks, round-robin."""
    tasks = [
        t for lang in ("html", "css", "javascript") for t in generate_web_tasks(lang, 4, 1, "easy")
    ]
    picked = [tasks[i % len(tasks)] for i in range(BROWSER_JOBS)]
    return [(build_browser_job(t, t["reference_solution"]), t) for t in picked]


async def test_256_concurrent_mixed_language_jobs(target):
    health = target.health
    programs = [job_for(i) for i in range(JOBS - BROWSER_JOBS)]
    pages = browser_jobs()
    start = time.monotonic()
    async with SandboxClient(target.url, max_concurrency=JOBS) as client:
        results = await asyncio.gather(
            *(client.run_program_job(job) for job, _ in programs),
            *(client.run_browser_job(job) for job, _ in pages),
            return_exceptions=True,
        )
    wall = time.monotonic() - start
    errors = [r for r in results if isinstance(r, BaseException)]
    assert errors == []
    assert len(results) == JOBS
    for (job, expected), result in zip(programs, results[: len(programs)], strict=True):
        assert result.status == "ok", (job.runtime, result)
        assert [t.status for t in result.tests] == ["ok", "ok"], result
        assert [t.stdout for t in result.tests] == expected, (job, result)
    for (_job, task), result in zip(pages, results[len(programs) :], strict=True):
        assert result.status == "ok", result
        assert score_browser_result(result, task["hidden_tests"])["passed"], result
    tests = 2 * len(programs)
    print(
        f"\nload ({target.name}): {JOBS} jobs ({len(programs)} program / {tests} tests, "
        f"{len(pages)} browser) "
        f"in {wall:.1f} s on {health['slots']} slots + {health['browser_slots']} browsers "
        f"({JOBS / wall:.1f} jobs/s)"
    )


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
