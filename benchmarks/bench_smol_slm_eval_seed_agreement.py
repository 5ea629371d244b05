"""Full-size agreement of smol-slm-eval with the seed's slm-eval 0.0.1, row by row, live.

The suite's standing test (tests/smol_slm_eval/test_seed_agreement.py) runs the same comparison
(tests/smol_slm_eval/seed_agreement.py) on the first 12 rows of each multiple-choice task, 5 of
math_500 and 3 of each BFCL category; this runs it at full size: by default the first 50 rows
of HellaSwag, ARC-Easy, ARC-Challenge and math_500, and of each single-turn BFCL category,
against the local SmolLM2-135M-Instruct server (`smol-envs-serve`, started on
$SMOL_ENVS_MODEL_PORT when none of ours runs there, stopped again only if started here). It
builds the seed's venv on first use (`seed_peer.py`). 24.5 minutes on an idle 2-core machine
at 50 rows (issue 32's note). Prints both agreement tables, each part's wall time and the load
average before and after, then ends through target_lines.py: a part that failed to run or a row
that differs is a `FAILED:` line (exit 1); a complete run judges the target "every row agrees".

    uv run python benchmarks/bench_smol_slm_eval_seed_agreement.py [--mc-rows 50]
        [--math-rows 50] [--bfcl-rows 50] [--bfcl-categories simple_python,multiple]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
for folder in (REPO, REPO / "benchmarks"):
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))


def load() -> str:
    """The 1/5/15-minute load averages and the CPU count, as text."""
    return " ".join(f"{x:.2f}" for x in os.getloadavg()) + f" ({os.cpu_count()} CPUs)"


def main(argv: list[str] | None = None) -> int:
    """Run both parts, print their tables and figures; the exit status of `Outcome.finish`."""
    from smol_envs_core import procman
    from smol_envs_core.server import serve
    from smol_slm_eval.tasks import BFCL_CATEGORIES
    from target_lines import Outcome

    from tests.smol_slm_eval import seed_agreement

    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mc-rows", type=int, default=50)
    parser.add_argument("--math-rows", type=int, default=50)
    parser.add_argument("--bfcl-rows", type=int, default=50)
    parser.add_argument("--bfcl-categories", default=",".join(BFCL_CATEGORIES))
    args = parser.parse_args(argv)
    categories = args.bfcl_categories.split(",")
    os.environ.setdefault("SLM_EVAL_CACHE", str(REPO / ".cache" / "slm_eval"))

    outcome = Outcome()
    print(f"load average before: {load()}", flush=True)
    port = serve.default_port()
    state = serve.state_dir(port)
    procman.add_user(state)
    started_here = False
    rows_compared = 0
    try:
        started_here = serve.start_with_owner(serve.DEFAULT_HOST, port, threads=2)
        base_url = serve.base_url(serve.DEFAULT_HOST, port)
        parts = [
            (f"multiple choice x{args.mc_rows}, math_500 x{args.math_rows}",
             3 * args.mc_rows + args.math_rows,
             lambda d: seed_agreement.agree_on_choice_and_math(
                 d, base_url, serve.MODEL_NAME, args.mc_rows, args.math_rows)),
            (f"BFCL x{args.bfcl_rows} in {len(categories)} categories",
             args.bfcl_rows * len(categories),
             lambda d: seed_agreement.agree_on_bfcl(d, base_url, serve.MODEL_NAME,
                                                    categories, args.bfcl_rows)),
        ]
        for name, rows, part in parts:
            began = time.monotonic()
            with tempfile.TemporaryDirectory() as folder:
                try:
                    found = part(Path(folder))
                except RuntimeError as exc:
                    outcome.fail(f"{name}: did not run: {str(exc).splitlines()[0]}")
                    continue
            print("\n" + "\n".join(found.lines))
            print(f"{name}: {time.monotonic() - began:.0f} s, load average {load()}", flush=True)
            outcome.check(found.problems == [],
                          f"{name}: {len(found.problems)} rows or tasks differ: "
                          f"{found.problems[:5]}")
            rows_compared += rows
    finally:
        procman.release(state, started_here)
    print(f"load average after: {load()}")
    outcome.target("every row agrees with the seed", True,
                   f"{rows_compared} rows compared, 0 differing")
    return outcome.finish()


if __name__ == "__main__":
    sys.exit(main())
