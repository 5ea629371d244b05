"""Benchmark: CPU per browser job with Chromium's headless shell vs the full browser.

Runs every browser check of the default smolscript edition (each browser task's reference and
negative control: 148 jobs) through the service's own probe executor
(`smolscript_sandbox.executor.run_browser_job`: a fresh context and page per job) on one warm
browser per binary, outside bubblewrap so that only the browser differs. Prints, per binary,
CPU-seconds and wall seconds per job and the executor's own step timings, then whether the
observations of every job are identical between the binaries. Exits 1 if they differ or if
any job of any binary ended in an infrastructure error.

CPU is the whole machine's (/proc/stat, busy time), so run it on an otherwise idle machine;
the load average is printed beside each figure.

Usage: uv run python benchmarks/bench_smolscript_browser.py [--data data/smolscript]
       [--binary PATH ...]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import time
from pathlib import Path


def busy_cpu_s() -> float:
    """Busy CPU-seconds of the whole machine since boot (all but idle and iowait)."""
    with open("/proc/stat", encoding="ascii") as fh:
        ticks = [int(x) for x in fh.readline().split()[1:]]
    return (sum(ticks) - ticks[3] - ticks[4]) / os.sysconf("SC_CLK_TCK")


def browser_jobs(data: Path) -> list[dict]:
    """One job per browser check: each browser task's reference, then its negative control."""
    from smolscript.verdict import build_browser_job

    rows = [json.loads(line) for line in (data / "smolscript.jsonl").open(encoding="utf-8")]
    solutions = {}
    for line in (data / "references" / "solutions.jsonl").open(encoding="utf-8"):
        record = json.loads(line)
        solutions[record["id"]] = record
    jobs = []
    for row in rows:
        if row.get("modality") == "browser":
            for code in (solutions[row["id"]]["reference_solution"],
                         solutions[row["id"]]["negative_control"]):
                jobs.append(build_browser_job(row, code).model_dump())
    return jobs


async def measure(binary: str, jobs: list[dict], warmup: int = 4) -> tuple[dict, list]:
    """Run `jobs` one after another on one warm browser; returns (figures, observations)."""
    from playwright.async_api import async_playwright
    from smolscript_sandbox.executor import launch_chromium, run_browser_job

    async with async_playwright() as playwright:
        browser = await launch_chromium(playwright, binary)
        try:
            for job in jobs[:warmup]:
                await run_browser_job(browser, job)
            load, cpu0, wall0 = os.getloadavg()[0], busy_cpu_s(), time.perf_counter()
            replies = [await run_browser_job(browser, job) for job in jobs]
            cpu, wall = busy_cpu_s() - cpu0, time.perf_counter() - wall0
        finally:
            await browser.close()
    steps: dict[str, float] = {}
    for reply in replies:
        for name, seconds in reply["timings"].items():
            steps[name] = steps.get(name, 0.0) + seconds
    statuses = sorted({r["status"] for r in replies})
    figures = {"cpu_per_job": cpu / len(jobs), "wall_per_job": wall / len(jobs), "load": load,
               "steps": {k: v / len(jobs) for k, v in steps.items()}, "statuses": statuses}
    return figures, [r["observations"] for r in replies]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=Path("data/smolscript"))
    parser.add_argument("--binary", action="append", default=None,
                        help="a Chromium executable (repeatable); default: the headless shell "
                        "and the full browser, those installed")
    args = parser.parse_args()
    from smolscript_sandbox.executor import CHROMIUM_PATHS

    candidates = args.binary or CHROMIUM_PATHS[:2]  # the headless shell and the full browser
    binaries = [b for b in candidates if os.access(b, os.X_OK)]
    if not binaries:
        raise SystemExit(f"no Chromium found among {candidates}")
    jobs = browser_jobs(args.data)
    print(f"{len(jobs)} browser jobs (reference + negative control of each browser task), "
          f"one warm browser per binary, run one after another; cores={os.cpu_count()}")
    print("| binary | CPU s per job | wall s per job | setup s | probes s | statuses | load |")
    print("|---|---|---|---|---|---|---|")
    observed, broken = {}, []
    for binary in binaries:
        figures, observed[binary] = asyncio.run(measure(binary, jobs))
        if "infra_error" in figures["statuses"]:
            broken.append(binary)
        steps = figures["steps"]
        print(f"| {binary} | {figures['cpu_per_job']:.3f} | {figures['wall_per_job']:.3f} "
              f"| {steps.get('setup_s', 0):.3f} | {steps.get('probes_s', 0):.3f} "
              f"| {','.join(figures['statuses'])} | {figures['load']:.2f} |", flush=True)
    first = binaries[0]
    differ = [b for b in binaries[1:] if observed[b] != observed[first]]
    if len(binaries) > 1:
        same = "identical" if not differ else f"DIFFERENT for {', '.join(differ)}"
        print(f"observations of all {len(jobs)} jobs: {same} (against {first})")
    from target_lines import Outcome

    outcome = Outcome()
    outcome.check(not broken, f"browser infrastructure errors with {', '.join(broken)}: no "
                  "figure above is a measurement of working browser jobs")
    outcome.check(not differ, f"observations differ for {', '.join(differ)}")
    raise SystemExit(outcome.finish())


if __name__ == "__main__":
    main()
