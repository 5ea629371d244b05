"""Benchmark: every reference of a smolscript edition through the real scoring service on a
saturated machine (the full-size version of tests/smolscript/test_sandbox_saturated.py, which
runs a stratified sample of the same edition through the same code,
`tests.support.smolscript_saturated`).

Three busy loops per usable CPU run beside the service while all references are scored at
concurrency 48 (issue 43, item 4: at load average about 10 a JavaScript reference once came
back `runtime_error` and a browser slot's set-up timed out). Prints the references, the loops,
the load average reached, the wall time and each reference that did not pass. A reference that
does not pass or an infrastructure error is a failed check (exit 1); the target is that the
run really saturated the machine (1-minute load average at least twice the usable CPUs).

Usage: uv run python benchmarks/bench_smolscript_saturated.py [--edition default]
       [--url http://127.0.0.1:8797]
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def main(argv: list[str] | None = None) -> int:
    """Run the saturated scoring of every reference of `--edition`; returns the exit status
    of `Outcome.finish` (1 when a reference failed or an infrastructure error occurred)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--edition", default="default", help="smolscript edition to score")
    parser.add_argument(
        "--url",
        default=os.environ.get("SMOLSCRIPT_SANDBOX_TEST_URL", "http://127.0.0.1:8797"),
        help="a dedicated service (started here if none answers)")
    args = parser.parse_args(argv)
    if str(REPO) not in sys.path:  # the shared run code lives beside the suite's test
        sys.path.insert(0, str(REPO))

    from smolscript import data
    from smolscript_sandbox.testing import ensure_service
    from target_lines import Outcome

    from tests.support.smolscript_saturated import run_saturated

    health = ensure_service(args.url)
    print(f"cores={os.cpu_count()} slots={health['slots']} "
          f"browser_slots={health['browser_slots']} load average before "
          f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}", flush=True)
    tasks = data.load_tasks(args.edition)
    run = run_saturated(tasks, data.load_hidden(args.edition),
                        data.load_references(args.edition), args.url)
    print(run.line())
    outcome = Outcome()
    infra = {tid: why for tid, why in run.failed.items() if why.startswith("infra: ")}
    wrong = {tid: why for tid, why in run.failed.items() if tid not in infra}
    for tid, why in sorted(run.failed.items()):
        print(f"  {tid}: {why[:300]}")
    outcome.check(not infra, f"{len(infra)} infrastructure error(s), e.g. "
                  f"{next(iter(infra.items()), None)}")
    outcome.check(not wrong, f"{len(wrong)} of {len(tasks)} references did not pass")
    outcome.check(len(run.outcomes) == len(tasks),
                  f"{len(run.outcomes)} verdicts for {len(tasks)} references")
    outcome.target("the machine was saturated (1-min load average >= 2 x CPUs)",
                   run.load[0] >= 2 * run.cpus,
                   f"load average {run.load[0]:.1f} on {run.cpus} CPUs")
    return outcome.finish()


if __name__ == "__main__":
    raise SystemExit(main())
