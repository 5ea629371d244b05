"""`smoltalkbench-report`: print the report of a results file with the collection's one renderer
(the same tables as `smol-envs report`) and write its PNG chart.

Exit status: 0 done; 2 the results cannot be reported (one line says why, e.g. a run of another
environment, or rows of mixed behaviour versions; `--debug` or SMOL_ENVS_DEBUG=1 shows the
traceback).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from smol_envs_core.cli import add_report_options, guarded, show_reports
from smol_envs_core.report import read_results, report_results
from smol_envs_core.report.charts import png

from smoltalkbench import report

ENV_ID = "smoltalkbench"


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
    add_report_options(parser)
    return parser


def _run(args: argparse.Namespace) -> int:
    results = read_results(args.results, expect=ENV_ID)
    [run] = report_results([results], {ENV_ID: lambda: report.report_hook},
                           allow_mixed_versions=args.allow_mixed_versions)
    show_reports([run], args.html, prog="smoltalkbench-report")
    model = None if run.header.model == "?" else run.header.model
    chart = png(run.body.charts[0], args.png or run.header.path / "smoltalkbench_report.png",
                model, figsize=(7, 4.5))
    print(f"chart: {chart}")
    if args.json:
        summary = report.summarize(report.samples_of(results), model=model)
        Path(args.json).write_text(json.dumps(report.to_dict(summary), indent=2) + "\n")
    return 0


def main(argv: list[str] | None = None) -> int:
    """Entry point: `smoltalkbench-report RESULTS [--png PATH] [--json PATH] [--html PAGE]
    [--allow-mixed-versions] [--debug]`; returns the exit status."""
    args = _parser().parse_args(argv)
    return guarded("smoltalkbench-report", args, lambda: _run(args))


if __name__ == "__main__":
    raise SystemExit(main())
