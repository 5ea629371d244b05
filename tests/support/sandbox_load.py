"""Concurrent mixed-language jobs through a scoring service, each checked against the result
for its own inputs: shared by the suite's load test (tests/smolscript/test_sandbox_load.py, a
standing size), the replica test and the full-size benchmark
(benchmarks/bench_smolscript_load.py, 256 jobs), so that every size runs one code path.

Program jobs run `scale(n, xs) -> [x * n for x in xs]` in the seven program languages
(round-robin), with inputs that depend on the job's index; browser jobs are references of
generated HTML, CSS and DOM tasks. A mix-up between concurrent jobs or slots gives a job
another job's output and is reported as a problem.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from typing import Any

from smolscript.frames import frame, harness_stdin
from smolscript.languages import LANGUAGES, render_job_files
from smolscript.types import canonical_output, encode_stdin
from smolscript.verdict import build_browser_job
from smolscript.web import score_browser_result
from smolscript_builder.web import generate_web_tasks
from smolscript_sandbox.client import SandboxClient
from smolscript_sandbox.schema import BrowserJob, ProgramJob

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


def browser_jobs(count: int) -> list[tuple[BrowserJob, dict]]:
    """`count` (job, task) pairs: references of generated HTML, CSS and DOM tasks,
    round-robin."""
    tasks = [
        t for lang in ("html", "css", "javascript") for t in generate_web_tasks(lang, 4, 1, "easy")
    ]
    picked = [tasks[i % len(tasks)] for i in range(count)]
    return [(build_browser_job(t, t["reference_solution"]), t) for t in picked]


@dataclass(frozen=True)
class LoadRun:
    """One load run: jobs sent, program tests, wall seconds, and its problems (one line per
    job lost, failed or answered with another job's output; empty when all is right)."""

    programs: int
    browsers: int
    tests: int
    wall_s: float
    problems: list[str]

    def line(self, name: str, health: dict[str, Any]) -> str:
        """One line of figures for target `name` with health record `health`."""
        jobs = self.programs + self.browsers
        return (f"load ({name}): {jobs} jobs ({self.programs} program / {self.tests} tests, "
                f"{self.browsers} browser) in {self.wall_s:.1f} s on {health['slots']} slots + "
                f"{health['browser_slots']} browsers ({jobs / self.wall_s:.1f} jobs/s)")


def _problems(programs, pages, results) -> list[str]:
    problems = [f"job {i}: {r!r}" for i, r in enumerate(results) if isinstance(r, BaseException)]
    if problems:
        return problems
    for index, ((job, expected), result) in enumerate(zip(programs, results, strict=False)):
        if result.status != "ok" or [t.status for t in result.tests] != ["ok", "ok"]:
            problems.append(f"program job {index} ({job.runtime}): {result!r}")
        elif [t.stdout for t in result.tests] != expected:
            problems.append(f"program job {index} ({job.runtime}): outputs "
                            f"{[t.stdout for t in result.tests]} != expected {expected}")
    for index, ((_job, task), result) in enumerate(zip(pages, results[len(programs):],
                                                       strict=False)):
        if result.status != "ok" or not score_browser_result(result, task["hidden_tests"])[
                "passed"]:
            problems.append(f"browser job {index} ({task['id']}): {result!r}")
    return problems


async def run_load(url: str, jobs: int, browsers: int) -> LoadRun:
    """Send `jobs` jobs at once to the service at `url`, `browsers` of them browser jobs and
    the rest program jobs, and check every answer. Raises ValueError when `browsers` is not
    in [0, jobs]."""
    if not 0 <= browsers <= jobs:
        raise ValueError(f"browsers must be in [0, {jobs}], got {browsers}")
    programs = [job_for(i) for i in range(jobs - browsers)]
    pages = browser_jobs(browsers)
    start = time.monotonic()
    async with SandboxClient(url, max_concurrency=jobs) as client:
        results = await asyncio.gather(
            *(client.run_program_job(job) for job, _ in programs),
            *(client.run_browser_job(job) for job, _ in pages),
            return_exceptions=True,
        )
    wall = time.monotonic() - start
    problems = _problems(programs, pages, results)
    if len(results) != jobs:
        problems.append(f"{len(results)} results for {jobs} jobs")
    return LoadRun(len(programs), len(pages), 2 * len(programs), round(wall, 2), problems)
