"""Every verdict of the full smolscript validation, written to a JSON file, so that two runs
(say, before and after a change to the scoring service) can be compared check by check.

Unlike `scripts/validate_smolscript.py`, which stops at the first unexpected verdict, this runs
all checks (the validation's own `score_check`: a must-fail check stops at its first failing
chunk) and records, per check, whether it passed, its status and per-test statuses; `--compare
A.json B.json` prints how many verdicts agree and lists those that do not.

Usage: uv run python benchmarks/smolscript_verdicts.py run OUT.json [--url URL] [--data DIR]
       uv run python benchmarks/smolscript_verdicts.py compare BEFORE.json AFTER.json
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import time
from pathlib import Path


async def run_all(data: Path, url: str, width: int) -> dict[str, dict]:
    """{check key: verdict summary} of every check of the edition under `data`."""
    from smolscript.verdict import score_code
    from smolscript_builder.validate import load_edition, plan_checks, score_check
    from smolscript_sandbox.client import SandboxClient

    rows, solutions, hidden = load_edition(data)
    by_id = {r["id"]: r for r in rows}
    checks = plan_checks(rows, solutions)
    gate = asyncio.Semaphore(width)
    out: dict[str, dict] = {}
    async with SandboxClient(url, max_concurrency=64) as client:

        async def one(check) -> None:
            async with gate:
                verdict, ran = await score_check(check, by_id[check.task_id],
                                                 hidden[check.task_id], client, score_code)
            out[f"{check.task_id}/{check.role}"] = {
                "passed": bool(verdict["passed"]),
                "as_expected": bool(verdict["passed"]) == check.must_pass,
                "status": verdict.get("status"),
                "tests": [t.get("status") for t in verdict.get("tests") or []],
                "ran": ran,
            }

        await asyncio.gather(*(one(c) for c in checks))
    return dict(sorted(out.items()))


def compare(before: dict[str, dict], after: dict[str, dict]) -> int:
    """Print the agreement of two verdict files; returns the number of differing checks."""
    keys = sorted(set(before) | set(after))
    differ = [k for k in keys if before.get(k) != after.get(k)]
    expected = sum(1 for k in keys if (after.get(k) or {}).get("as_expected"))
    print(f"verdicts identical: {len(keys) - len(differ)}/{len(keys)} "
          f"(passed, status, per-test statuses); as expected after: {expected}/{len(keys)}")
    for key in differ[:20]:
        print(f"  {key}: before {before.get(key)} after {after.get(key)}")
    return len(differ)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run")
    run.add_argument("out", type=Path)
    run.add_argument("--data", type=Path, default=Path("data/smolscript"))
    run.add_argument("--url", default=os.environ.get("SMOLSCRIPT_SANDBOX_TEST_URL",
                                                     "http://127.0.0.1:8797"))
    cmp = sub.add_parser("compare")
    cmp.add_argument("before", type=Path)
    cmp.add_argument("after", type=Path)
    args = parser.parse_args()
    from target_lines import Outcome

    outcome = Outcome()
    if args.command == "compare":
        differ = compare(json.loads(args.before.read_text()), json.loads(args.after.read_text()))
        outcome.check(not differ, f"{differ} checks' verdicts differ")
        sys.exit(outcome.finish())

    from smolscript_sandbox.testing import ensure_service

    os.environ["SMOLSCRIPT_SANDBOX_URL"] = args.url
    health = ensure_service(args.url)
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    start = time.monotonic()
    verdicts = asyncio.run(run_all(args.data, args.url, 2 * int(health["slots"])))
    wall = time.monotonic() - start
    args.out.write_text(json.dumps(verdicts, indent=1) + "\n")
    good = sum(v["as_expected"] for v in verdicts.values())
    print(f"{len(verdicts)} checks, {good} as expected, wall {wall:.1f} s (load average "
          f"{load} before, {' '.join(f'{x:.2f}' for x in os.getloadavg())} after); "
          f"written to {args.out}")
    outcome.check(good == len(verdicts), f"{len(verdicts) - good} of {len(verdicts)} checks "
                  "were not as expected")
    sys.exit(outcome.finish())


if __name__ == "__main__":
    main()
