"""Benchmark: full execution validation of the default smolscript edition vs a MultiPL-E-style
baseline, measured in the same run on the same tasks.

1. The full default validation (350 references, 350 negative controls, 188 near-misses) the
   way `scripts/validate_smolscript.py` runs it: one service job per check (compile once, a
   fresh sandboxed process per test), a must-fail check stopping at its first failing chunk.
2. A stratified sample (`--per-language` tasks of each of the nine languages, near-miss tasks
   first, so that every language and all three check kinds are in it), run twice, language
   by language: the service's way (as in 1), then the baseline.
3. The baseline (MultiPL-E's evaluation design: every test is a program of its own, compiled
   and run from scratch; nothing kept warm) through the same service and the same sandbox:
   one job per hidden test, so each test gets a fresh slot folder, a fresh compile and a
   fresh process; a browser test gets a fresh browser context and page load. A must-fail
   check stops at its first failing test, in the order the validation uses (the same early
   stop as 1 gets, so the comparison does not favour the service).

Prints, per language, the sample's wall time both ways, the ratio measured on the sample, and
the baseline projected to the full validation (each language's measured baseline wall time
per check times its number of checks in the full validation); which figures are measured and
which projected is said on each line. Targets (issue 13): full validation <= 120 s on an idle
2-core machine, >= 10x faster than the baseline.

Usage: uv run python benchmarks/bench_smolscript_validation.py [--data data/smolscript]
       [--per-language 2] [--skip-full] [--url http://127.0.0.1:8797]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import time
from pathlib import Path

LANGUAGES = ("python", "javascript", "cpp", "c", "csharp", "rust", "lua", "html", "css")


def loadavg() -> str:
    """The 1/5/15-minute load averages, as one string."""
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def stratified(rows: list[dict], solutions: dict, per_language: int) -> list[dict]:
    """`per_language` tasks of each language, those with a near-miss first (so every check
    kind a language has is sampled), then in row order."""
    picked = []
    for language in LANGUAGES:
        mine = [r for r in rows if r["language"] == language]
        mine.sort(key=lambda r: not solutions[r["id"]].get("near_miss"))
        picked.extend(mine[:per_language])
    return picked


async def baseline_check(check, row: dict, hidden: dict, client,
                         gate: asyncio.Semaphore) -> tuple[bool, int]:
    """(passed, jobs run) of one check, MultiPL-E style: one job per hidden test (fresh
    compile and process, or fresh browser page), at most `gate` jobs in flight. A must-pass
    check sends all its tests at once; a must-fail check runs them one by one in the
    validation's order and stops at its first failing test (as a MultiPL-E program stops at
    its first failing assertion)."""
    from smolscript.verdict import score_code
    from smolscript_builder.validate import failure_order

    tests = hidden["tests"]

    async def one(index: int) -> bool:
        async with gate:
            verdict = await score_code(row, {**hidden, "tests": [tests[index]]}, check.code,
                                       client)
        return bool(verdict["passed"])

    if check.must_pass or row["modality"] != "program":
        flags = await asyncio.gather(*(one(i) for i in range(len(tests))))
        return bool(tests) and all(flags), len(tests)
    jobs = 0
    for index in (i for chunk in failure_order(check, hidden) for i in chunk):
        jobs += 1
        if not await one(index):
            return False, jobs
    return bool(tests), jobs


async def run_checks(checks, rows: dict, hidden: dict, url: str, width: int,
                     baseline: bool) -> dict:
    """Run `checks` the service's way (at most `width` checks in flight, as the validation
    runs them) or the baseline's (at most `width` jobs in flight); returns wall seconds, jobs
    (baseline requests), tests and whether every verdict was as expected."""
    from smolscript.verdict import score_code
    from smolscript_builder.validate import score_check
    from smolscript_sandbox.client import SandboxClient

    gate = asyncio.Semaphore(width)
    async with SandboxClient(url, max_concurrency=width) as client:

        async def one(check) -> tuple[bool, int, int]:
            row, part = rows[check.task_id], hidden[check.task_id]
            if baseline:
                passed, jobs = await baseline_check(check, row, part, client, gate)
                return passed == check.must_pass, jobs, jobs
            async with gate:
                verdict, ran = await score_check(check, row, part, client, score_code)
            return verdict["passed"] == check.must_pass, 0, ran

        start = time.monotonic()
        done = await asyncio.gather(*(one(c) for c in checks))
        wall = time.monotonic() - start
    return {"wall_s": wall, "jobs": sum(d[1] for d in done), "tests": sum(d[2] for d in done),
            "as_expected": all(d[0] for d in done), "checks": len(checks)}


def print_ceiling(stages: dict[str, float], baseline_s: float) -> None:
    """Print the best ratio any service could reach against `baseline_s` while keeping a
    fresh sandboxed process per test: its per-test floor (isolation set-up, the test
    processes, the browser work) as wall time on all cores, with compiles, the service's own
    Python and the host's work taken as free."""
    floor_cpu = sum(stages[k] for k in ("isolation setup", "run", "browser"))
    floor_wall = floor_cpu / (os.cpu_count() or 1)
    print(f"ceiling: the per-test floor (isolation set-up + test processes + browser) is "
          f"{floor_cpu:.1f} CPU-s = {floor_wall:.1f} s on {os.cpu_count()} cores with every "
          f"other stage free; against this baseline no service keeping a fresh sandboxed "
          f"process per test can pass {baseline_s / floor_wall:.1f}x")


def measure_full(args, outcome):
    """Run the full validation once, recording its stages; print its figures. Returns (the
    ExecutionSummary, the stage table or None, the load average before it). A validation that
    did not pass every planned check, or a service that restarted during it (its CPU counters
    start again, so the difference would be meaningless), is recorded in `outcome`."""
    from smolscript_builder.validate import validate_full
    from smolscript_sandbox.testing import ensure_service
    from smolscript_stages import Recorder, stage_table

    recorder = Recorder()
    recorder.install()
    health0, load_before, host0 = ensure_service(args.url), loadavg(), time.process_time()
    full = asyncio.run(validate_full(args.data, url=args.url))
    health1, host_cpu = ensure_service(args.url), time.process_time() - host0
    recorder.active = False
    print(f"full validation (measured): status={full.status} "
          f"checks={full.checks_run}/{full.checks_planned} {full.by_role} "
          f"tests={full.tests_run} wall={full.wall_s:.1f} s ({full.tests_per_s:.1f} tests/s)")
    if full.failure or full.reason:
        print(f"  {full.failure or full.reason}")
    outcome.check(full.status == "passed" and full.checks_run == full.checks_planned,
                  f"full validation {full.status} after {full.checks_run} of "
                  f"{full.checks_planned} checks")
    if not outcome.check(health1["pid"] == health0["pid"],
                         f"the service restarted during the validation (pid {health0['pid']} "
                         f"-> {health1['pid']}): its CPU figure is void"):
        return full, None, load_before
    before, after = health0["cpu_s"], health1["cpu_s"]
    cpu = sum(after[k] - before[k] for k in ("service", "children", "browsers"))
    print(f"  CPU of the service, its sandboxes and browsers: {cpu:.1f} s; load average "
          f"{load_before} before, {loadavg()} after")
    return full, stage_table(recorder, health0, health1, host_cpu), load_before


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=Path("data/smolscript"))
    parser.add_argument("--per-language", type=int, default=2,
                        help="tasks per language in the sample (all their checks run); 0: the full "
                        "validation alone")
    parser.add_argument("--skip-full", action="store_true",
                        help="sample only (no full validation, no projection against it)")
    parser.add_argument(
        "--url",
        default=os.environ.get("SMOLSCRIPT_SANDBOX_TEST_URL", "http://127.0.0.1:8797"),
        help="a dedicated service (started here if none answers), so that no other client's "
        "jobs share its slots during the measurement",
    )
    args = parser.parse_args()

    from smolscript_builder.validate import load_edition, plan_checks
    from smolscript_sandbox.testing import ensure_service
    from target_lines import Outcome

    os.environ["SMOLSCRIPT_SANDBOX_URL"] = args.url  # the client and the scorer use it
    health = ensure_service(args.url)
    width = 2 * int(health["slots"])
    print(f"cores={os.cpu_count()} slots={health['slots']} isolation={health['isolation']} "
          f"fingerprint={health['fingerprint']} concurrency={width}")
    rows, solutions, hidden = load_edition(args.data)
    by_id = {r["id"]: r for r in rows}
    all_checks = plan_checks(rows, solutions)
    outcome = Outcome()

    full = stages = None
    if not args.skip_full:
        full, stages, load_before = measure_full(args, outcome)
        if not outcome.complete:  # nothing measured on a partial run is worth projecting
            raise SystemExit(outcome.finish())

    if args.per_language < 1:  # the full validation alone: nothing to compare it with
        raise SystemExit(outcome.finish())
    sample = stratified(rows, solutions, args.per_language)
    print(f"\nstratified sample: {len(sample)} tasks ({args.per_language} per language), "
          f"load average {loadavg()}")
    print("| language | checks (ref/nc/nm) | service s | service tests | baseline s "
          "| baseline jobs | measured ratio | full checks | projected baseline s |")
    print("|---|---|---|---|---|---|---|---|---|")
    totals = {"service": 0.0, "baseline": 0.0, "projected": 0.0}
    for language in LANGUAGES:
        ids = {r["id"] for r in sample if r["language"] == language}
        checks = [c for c in plan_checks([by_id[i] for i in sorted(ids)], solutions)]
        if not checks:  # an edition without this language
            continue
        full_count = sum(1 for c in all_checks if by_id[c.task_id]["language"] == language)
        ours = asyncio.run(run_checks(checks, by_id, hidden, args.url, width, baseline=False))
        base = asyncio.run(run_checks(checks, by_id, hidden, args.url, width, baseline=True))
        outcome.check(ours["as_expected"] and base["as_expected"],
                      f"{language}: a verdict of the sample was not as expected")
        projected = base["wall_s"] / len(checks) * full_count
        kinds = "/".join(str(sum(c.role == role for c in checks))
                         for role in ("reference", "negative_control", "near_miss"))
        totals["service"] += ours["wall_s"]
        totals["baseline"] += base["wall_s"]
        totals["projected"] += projected
        print(f"| {language} | {kinds} | {ours['wall_s']:.1f} | {ours['tests']} "
              f"| {base['wall_s']:.1f} | {base['jobs']} "
              f"| {base['wall_s'] / ours['wall_s']:.1f}x | {full_count} | {projected:.0f} |",
              flush=True)
    if not outcome.check(totals["service"] > 0, "the sample ran no check"):
        raise SystemExit(outcome.finish())
    print(f"sample, measured in this run: service {totals['service']:.1f} s, baseline "
          f"{totals['baseline']:.1f} s: baseline/service = "
          f"{totals['baseline'] / totals['service']:.1f}x (load average {loadavg()})")
    if full is not None and outcome.complete:
        ratio = totals["projected"] / full.wall_s
        print(f"full validation: service {full.wall_s:.1f} s measured; baseline "
              f"{totals['projected']:.0f} s PROJECTED from the sample (not run in full: "
              f"about {totals['projected'] / 60:.0f} min on 2 cores): {ratio:.1f}x")
        if stages is not None:
            print_ceiling(stages, totals["projected"])
        outcome.target("full validation <= 120 s", full.wall_s <= 120,
                       f"{full.wall_s:.1f} s, load average {load_before} before it")
        outcome.target(">= 10x the baseline", ratio >= 10, f"{ratio:.1f}x projected")
    raise SystemExit(outcome.finish())


if __name__ == "__main__":
    main()
