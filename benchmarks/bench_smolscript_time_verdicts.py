"""Benchmark: time verdicts do not depend on machine load (issue 15, item 1).

Runs a correct Python solution that needs about 90% of the CPU limit (it spins until its
process has used `--cpu-fraction` x 3 s of CPU, then answers) through the scoring service,
`--runs` times at client concurrency 1 and 16, with `--busy` processes spinning beside the
service; a control at 110% of the limit must time out every time, and a sleeper (blocked, no
CPU) must still end at the wall limit. A flip is a run whose verdict differs from the one the
code deserves (pass at 90%, timeout at 110%). Prints a markdown table and the load average.

Usage: uv run python benchmarks/bench_smolscript_time_verdicts.py [--url URL] [--runs 20]
       [--busy 2] [--concurrency 1 16]
The default URL is $SMOLSCRIPT_SANDBOX_TEST_URL (the service is started there if none answers).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import subprocess
import sys
import time

SIGNATURE = {"params": [{"name": "n", "type": "int"}], "returns": "int"}
SPIN = (
    "import time\n\n\ndef solve(n):\n"
    "    while time.process_time() < {cpu:.3f}:\n        pass\n    return n * 2\n"
)
SLEEP = "import time\n\n\ndef solve(n):\n    time.sleep(30)\n    return n * 2\n"
CPU_LIMIT_S = 3.0
NONCE = "5" * 32  # the harness's result nonce (frames.py) of every job here


def job(code: str, n: int):
    """The service job of `code` on one test with argument `n`."""
    from smolscript.frames import harness_stdin
    from smolscript.languages import render_job_files
    from smolscript.types import encode_stdin
    from smolscript_sandbox.schema import ProgramJob

    return ProgramJob(runtime="python", files=render_job_files("python", code, SIGNATURE),
                      tests=[{"stdin": harness_stdin(NONCE, encode_stdin([n], SIGNATURE))}])


async def run_row(url: str, code: str, runs: int, concurrency: int, want: str) -> dict:
    """`runs` jobs of `code` with `concurrency` in flight; counts verdicts that differ from
    `want` ("ok" with the right answer, or "timeout")."""
    from smolscript.frames import read_result
    from smolscript_sandbox.client import SandboxClient

    async with SandboxClient(url, max_concurrency=concurrency) as client:
        gate = asyncio.Semaphore(concurrency)

        async def one(i: int):
            async with gate:
                reply = await client.run_program_job(job(code, i))
            return reply.tests[0], i

        started = time.monotonic()
        results = await asyncio.gather(*(one(i) for i in range(runs)))
        wall = time.monotonic() - started
    verdicts = ["ok" if t.status == "ok" and read_result(t.stdout, NONCE)[0] == str(2 * i)
                else t.status
                for t, i in results]
    return {"runs": runs, "concurrency": concurrency, "want": want,
            "passed": verdicts.count("ok"), "timeouts": verdicts.count("timeout"),
            "flips": sum(v != want for v in verdicts), "other": sorted(set(verdicts)),
            "wall_s": wall, "max_time_s": max(t.time_s for t, _ in results),
            "median_time_s": statistics.median(t.time_s for t, _ in results),
            "max_cpu_s": max(t.cpu_s for t, _ in results)}


def loadavg() -> str:
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


async def main(args: argparse.Namespace) -> int:
    from smolscript_sandbox.testing import TEST_URL, ensure_service

    url = args.url or TEST_URL
    if args.url is None:
        ensure_service(url)
    busy = [subprocess.Popen([sys.executable, "-c", "while True: pass"])
            for _ in range(args.busy)]
    rows = []
    try:
        time.sleep(1.0)
        near = SPIN.format(cpu=args.cpu_fraction * CPU_LIMIT_S)
        over = SPIN.format(cpu=1.1 * CPU_LIMIT_S)
        for concurrency in args.concurrency:
            for label, code, want in ((f"{args.cpu_fraction:.0%} of CPU limit", near, "ok"),
                                      ("110% of CPU limit", over, "timeout")):
                before = loadavg()
                row = await run_row(url, code, args.runs, concurrency, want)
                row.update(label=label, load=f"{before} -> {loadavg()}")
                rows.append(row)
                print(f"  {label} x{concurrency}: {row}", flush=True)
        sleeper = await run_row(url, SLEEP, 1, 1, "timeout")
    finally:
        for proc in busy:
            proc.kill()
            proc.wait()
    print(f"\nservice {url}; {args.busy} busy processes beside it; {args.runs} runs per row\n")
    print("| solution | concurrency | runs | passed | timeouts | flips | median / max wall s "
          "| max CPU s seen | load average (1/5/15 min) before -> after |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['label']} | {r['concurrency']} | {r['runs']} | {r['passed']} | "
              f"{r['timeouts']} | {r['flips']} | {r['median_time_s']:.1f} / "
              f"{r['max_time_s']:.1f} | {r['max_cpu_s']:.2f} | {r['load']} |")
    print(f"\nsleeper (blocked, no CPU): {sleeper['other']} after {sleeper['max_time_s']:.1f} s")
    flips = sum(r["flips"] for r in rows) + sleeper["flips"]
    print(f"flips: {flips}")
    from target_lines import Outcome

    outcome = Outcome()
    outcome.check(not flips, f"{flips} verdicts differ from the expected one")
    return outcome.finish()


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--url", default=None)
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--busy", type=int, default=2)
    parser.add_argument("--cpu-fraction", type=float, default=0.9)
    parser.add_argument("--concurrency", type=int, nargs="+", default=[1, 16])
    return parser.parse_args(argv)


if __name__ == "__main__":
    raise SystemExit(asyncio.run(main(parse_args())))
