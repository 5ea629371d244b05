"""`smol-envs`: the collection's command line.

    smol-envs report RUN [RUN ...] [--html PAGE] [--debug]

`report` reads `vf-eval -s` result folders of any of the collection's environments (a run
folder, its results.jsonl, or a folder searched for runs), recognises each run's environment
and prints its table headed by model, endpoint, date, dataset version and run path; `--html`
also writes one static page with every run's tables and charts side by side.

Exit status: 0 done; 2 a run cannot be reported (one line says why; `--debug` or
SMOL_ENVS_DEBUG=1 shows the traceback).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path


class HelpFormatter(argparse.RawDescriptionHelpFormatter, argparse.ArgumentDefaultsHelpFormatter):
    """The collection's --help layout: descriptions as written (docstrings keep their lines),
    every argument's default shown after its help text."""


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="smol-envs", description=__doc__.split("\n\n")[0],
        formatter_class=HelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    report = sub.add_parser(
        "report", help="print (and optionally --html) the report of one or more vf-eval runs",
        description=__doc__.split("\n\n", 2)[2].split("\n\nExit")[0],
        formatter_class=HelpFormatter)
    report.add_argument("runs", nargs="+", metavar="RUN",
                        help="a vf-eval -s run folder, its results.jsonl, or a folder holding runs")
    report.add_argument("--html", type=Path, default=None, metavar="PAGE",
                        help="also write one static HTML page with every run's tables and charts")
    report.add_argument("--debug", action="store_true",
                        help="show the traceback of an error instead of one line")
    return parser


def _report(args: argparse.Namespace) -> int:
    from .report_html import write_page
    from .report_text import print_reports
    from .runreport import report_runs

    runs = report_runs(args.runs)
    print_reports(runs)
    if args.html is not None:
        print(f"smol-envs: report page written to {write_page(runs, args.html)}")
    return 0


def main(argv: list[str] | None = None) -> int:
    """Entry point of `smol-envs`; returns the exit status."""
    from .errors import SmolEnvsError

    args = _parser().parse_args(argv)
    try:
        return _report(args)
    except (SmolEnvsError, OSError) as exc:
        if args.debug or os.environ.get("SMOL_ENVS_DEBUG"):
            raise
        print(f"smol-envs: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
