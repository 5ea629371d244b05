"""Benchmark: full execution validation of the default smolscript edition vs a naive baseline.

Prints the wall time and tests/s of the full validation (references, negative controls and
near-misses through the scoring service: compile once per job, a fresh sandboxed process per
test) and, in the same run, on a sample of program references: the service's way next to a
naive MultiPL-E-style baseline (every test is its own job, compiled and run from scratch),
with the baseline projected to the full validation. Target: full default validation under
5 minutes on 2 cores.

Usage: uv run python benchmarks/bench_smolscript_validation.py [--data data/smolscript]
       [--sample-per-language 3]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import time
from pathlib import Path


def sample(rows: list[dict], per_language: int) -> list[dict]:
    """The first `per_language` program tasks of each language, in row order."""
    picked: dict[str, list[dict]] = {}
    for row in rows:
        bucket = picked.setdefault(row["language"], [])
        if row["modality"] == "program" and len(bucket) < per_language:
            bucket.append(row)
    return [row for bucket in picked.values() for row in bucket]


async def run_sample(rows, solutions, hidden, *, per_test: bool, concurrency: int) -> dict:
    """Run the sample's references: one job per task (per_test False) or per test (True)."""
    from smolscript.scoring import judge_program, program_job
    from smolscript_sandbox.client import SandboxClient

    jobs = []
    for row in rows:
        tests = hidden[row["id"]]["tests"]
        groups = [[t] for t in tests] if per_test else [tests]
        for group in groups:
            part = {**hidden[row["id"]], "tests": group}
            jobs.append((row, part, solutions[row["id"]]["reference_solution"]))
    semaphore = asyncio.Semaphore(concurrency)
    async with SandboxClient(max_concurrency=concurrency) as client:

        async def run(row, part, code) -> tuple[int, int]:
            async with semaphore:
                reply = await client.run_program_job(program_job(row, part, code))
            verdict = judge_program(row, part, reply)
            return len(part["tests"]), sum(t["passed"] for t in verdict["tests"])

        start = time.monotonic()
        counts = await asyncio.gather(*(run(*job) for job in jobs))
        wall = time.monotonic() - start
    tests = sum(c[0] for c in counts)
    return {
        "tests": tests,
        "passed": sum(c[1] for c in counts),
        "wall_s": wall,
        "tests_per_s": tests / wall,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=Path("data/smolscript"))
    parser.add_argument("--sample-per-language", type=int, default=3)
    parser.add_argument(
        "--url",
        default="http://127.0.0.1:8797",
        help="a dedicated service (started here if none answers), so that no other client's "
        "jobs share its slots during the measurement",
    )
    args = parser.parse_args()

    from smolscript_builder.validate import load_edition, validate_full
    from smolscript_sandbox.testing import ensure_service

    os.environ["SMOLSCRIPT_SANDBOX_URL"] = args.url  # the client and the scorer use it
    health = ensure_service(args.url)
    slots = int(health["slots"])
    width = 2 * slots
    print(
        f"cores={os.cpu_count()} slots={slots} isolation={health['isolation']} "
        f"fingerprint={health['fingerprint']}"
    )
    rows, solutions, hidden = load_edition(args.data)

    before = ensure_service(args.url)["cpu_s"]
    load_before = os.getloadavg()[0]
    full = asyncio.run(validate_full(args.data, url=args.url))
    after = ensure_service(args.url)["cpu_s"]
    cpu = sum(after[k] - before[k] for k in ("service", "children", "browsers"))
    print(
        f"full validation: status={full.status} checks={full.checks_run}/{full.checks_planned} "
        f"{full.by_role} tests={full.tests_run} wall={full.wall_s:.1f} s "
        f"({full.tests_per_s:.1f} tests/s)"
    )
    if full.failure or full.reason:
        print(f"  {full.failure or full.reason}")
    print(
        f"  CPU used by the service, its sandboxes and its browsers: {cpu:.1f} s "
        f"(= {cpu / 2:.1f} s of wall time on 2 idle cores); host load average "
        f"{load_before:.1f} before, {os.getloadavg()[0]:.1f} after"
    )

    picked = sample(rows, args.sample_per_language)
    ours = asyncio.run(run_sample(picked, solutions, hidden, per_test=False, concurrency=width))
    naive = asyncio.run(run_sample(picked, solutions, hidden, per_test=True, concurrency=width))
    projected = full.tests_run / naive["tests_per_s"]
    print(f"sample: {len(picked)} program references, {ours['tests']} tests")
    print("| method | tests | passed | wall s | tests/s |")
    print("|---|---|---|---|---|")
    print(
        f"| full validation (service) | {full.tests_run} | - | {full.wall_s:.1f} "
        f"| {full.tests_per_s:.1f} |"
    )
    for name, r in (
        ("sample, service (compile once per job)", ours),
        ("sample, naive (compile+run per test)", naive),
    ):
        print(
            f"| {name} | {r['tests']} | {r['passed']} | {r['wall_s']:.1f} "
            f"| {r['tests_per_s']:.1f} |"
        )
    print(
        f"naive baseline projected to the full validation: {projected:.0f} s "
        f"(service: {full.wall_s:.0f} s, {projected / max(full.wall_s, 1e-9):.1f}x slower)"
    )
    met = full.status == "passed" and full.wall_s < 300
    print(
        f"target full default validation < 300 s: {'met' if met else 'NOT met'} "
        f"on {os.cpu_count()} cores"
    )


if __name__ == "__main__":
    main()
