"""Benchmark: 256 concurrent mixed-language jobs through the real scoring service (the full
size of tests/smolscript/test_sandbox_load.py, which sends 64 through the same code,
`tests.support.sandbox_load`).

224 program jobs (seven languages, round-robin, inputs depending on the job's index) and 32
browser jobs (HTML, CSS, DOM references) are sent at once. Every job must come back with the
result for its own inputs: a lost job, an infra_error or another job's output is a failed
check (exit 1). Prints the jobs, tests, wall time, throughput and load average; the target is
the throughput measured on the host service in the suite before (256 jobs in 27 s on an idle
2-core machine: at least 9 jobs/s).

Usage: uv run python benchmarks/bench_smolscript_load.py [--jobs 256] [--browser-jobs 32]
       [--url http://127.0.0.1:8797]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
TARGET_JOBS_PER_S = 9.0


def main(argv: list[str] | None = None) -> int:
    """Run the load once; returns the exit status of `Outcome.finish`."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=256)
    parser.add_argument("--browser-jobs", type=int, default=32)
    parser.add_argument(
        "--url",
        default=os.environ.get("SMOLSCRIPT_SANDBOX_TEST_URL", "http://127.0.0.1:8797"),
        help="a dedicated service (started here if none answers)")
    args = parser.parse_args(argv)
    if str(REPO) not in sys.path:  # the shared run code lives beside the suite's test
        sys.path.insert(0, str(REPO))

    from smolscript_sandbox.testing import ensure_service
    from target_lines import Outcome

    from tests.support.sandbox_load import run_load

    health = ensure_service(args.url)
    before = " ".join(f"{x:.2f}" for x in os.getloadavg())
    run = asyncio.run(run_load(args.url, args.jobs, args.browser_jobs))
    print(run.line("host", health))
    print(f"load average {before} before, "
          f"{' '.join(f'{x:.2f}' for x in os.getloadavg())} after")
    outcome = Outcome()
    for problem in run.problems[:20]:
        print(f"  {problem[:300]}")
    outcome.check(not run.problems, f"{len(run.problems)} job(s) lost, failed or mixed up")
    rate = (run.programs + run.browsers) / run.wall_s
    outcome.target(f">= {TARGET_JOBS_PER_S:.0f} jobs/s", rate >= TARGET_JOBS_PER_S,
                   f"{rate:.1f} jobs/s, load average {before} before")
    return outcome.finish()


if __name__ == "__main__":
    raise SystemExit(main())
