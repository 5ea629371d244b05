"""`smoltalkbench-report`: print the report table for a results file and write its PNG chart.

Exit status: 0 done; 2 the results cannot be reported (one line says why, e.g. a run of another
environment; `--debug` or SMOL_ENVS_DEBUG=1 shows the traceback).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from smol_envs_core.errors import SmolEnvsError
from smol_envs_core.results import ResultsError, read_results
from smol_envs_core.runreport import expect_environment

from smoltalkbench import report


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="smoltalkbench-report", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "results", help="results.jsonl from `vf-eval smoltalkbench -s`, or its folder"
    )
    parser.add_argument(
        "--png", help="chart path (default: smoltalkbench_report.png beside the results)"
    )
    parser.add_argument("--json", help="also write the figures as JSON to this path "
                        "(default: not written)")
    parser.add_argument("--debug", action="store_true",
                        help="show the traceback of an error instead of one line")
    return parser


def _run(args: argparse.Namespace) -> int:
    from rich.console import Console

    results = Path(args.results)
    expect_environment(read_results(results), "smoltalkbench")
    summary = report.summarize(report.load_samples(results), model=report.run_model(results))
    Console().print(report.render(summary))
    folder = results if results.is_dir() else results.parent
    png = report.plot(summary, args.png or folder / "smoltalkbench_report.png")
    print(f"chart: {png}")
    if args.json:
        Path(args.json).write_text(json.dumps(report.to_dict(summary), indent=2) + "\n")
    return 0


def main(argv: list[str] | None = None) -> int:
    """Entry point: `smoltalkbench-report RESULTS [--png PATH] [--json PATH] [--debug]`;
    returns the exit status."""
    args = _parser().parse_args(argv)
    try:
        return _run(args)
    except (SmolEnvsError, ResultsError, OSError) as exc:
        if args.debug or os.environ.get("SMOL_ENVS_DEBUG"):
            raise
        print(f"smoltalkbench-report: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    raise SystemExit(main())
