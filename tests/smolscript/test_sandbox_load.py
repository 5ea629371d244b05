"""Load: 256 concurrent program jobs in seven languages through the real service.

Every job must come back (none lost, none infra_error) with the right output for its own
inputs, so that a mix-up between concurrent jobs or slots would fail the test.
"""

from __future__ import annotations

import asyncio
import time

import pytest
from smolscript.client import SandboxClient
from smolscript.languages import LANGUAGES
from smolscript.types import canonical_output, encode_stdin
from smolscript_sandbox.testing import ensure_service

pytestmark = pytest.mark.integration

JOBS = 256
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


def job_for(index: int) -> tuple[dict, list[str]]:
    """The index-th job (language round-robin) and the expected canonical outputs."""
    language = sorted(BODIES)[index % len(BODIES)]
    spec = LANGUAGES[language]
    source = spec.imports + spec.entry_header(SIGNATURE) + BODIES[language] + spec.closing()
    cases = [(index, [1, 2, index % 50]), (-3, [index, 0])]
    job = {
        "language": language,
        "source": source,
        "entry_point": spec.entry_point,
        "signature": SIGNATURE,
        "tests": [{"stdin": encode_stdin(list(args), SIGNATURE)} for args in cases],
    }
    expected = [canonical_output([x * n for x in xs], "list[int]") for n, xs in cases]
    return job, expected


async def test_256_concurrent_mixed_language_jobs():
    health = ensure_service()
    jobs = [job_for(i) for i in range(JOBS)]
    start = time.monotonic()
    async with SandboxClient(max_concurrency=JOBS) as client:
        results = await asyncio.gather(
            *(client.run_program_job(job) for job, _ in jobs), return_exceptions=True
        )
    wall = time.monotonic() - start
    errors = [r for r in results if isinstance(r, BaseException)]
    assert errors == []
    assert len(results) == JOBS
    for (job, expected), result in zip(jobs, results, strict=True):
        assert result["status"] == "ok", (job["language"], result)
        assert [t["status"] for t in result["tests"]] == ["ok", "ok"], result
        assert [t["stdout"] for t in result["tests"]] == expected, (job, result)
    tests = 2 * JOBS
    print(
        f"\nload: {JOBS} jobs / {tests} tests in {wall:.1f} s on {health['slots']} slots "
        f"({JOBS / wall:.1f} jobs/s, {tests / wall:.1f} tests/s)"
    )
