"""`smol-envs`: the collection's command line.

    smol-envs report RUN [RUN ...] [--html PAGE] [--allow-mixed-versions] [--debug]

`report` reads `vf-eval -s` result folders of any of the collection's environments (a run
folder, its results.jsonl, or a folder searched for runs), recognises each run's environment
and prints its table headed by model, endpoint, date, dataset version, behaviour version and
run path, each headline figure with its N, standard error and 95% interval; `--html` also
writes one static page with every run's tables and charts side by side. Runs of one
environment scored by different behaviour versions are refused unless --allow-mixed-versions.

Exit status: 0 done; 2 a run cannot be reported, or runs mix behaviour versions (one line says
why; `--debug` or SMOL_ENVS_DEBUG=1 shows the traceback).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any


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
    add_report_options(report)
    return parser


def add_report_options(parser: argparse.ArgumentParser, html: bool = True) -> None:
    """The options every report command shares: --html PAGE (when `html`),
    --allow-mixed-versions and --debug."""
    if html:
        parser.add_argument("--html", type=Path, default=None, metavar="PAGE",
                            help="also write one static HTML page with every run's tables and "
                                 "charts")
    parser.add_argument("--allow-mixed-versions", action="store_true",
                        help="report runs of one environment scored by different behaviour "
                             "versions side by side (refused by default: not comparable)")
    parser.add_argument("--debug", action="store_true",
                        help="show the traceback of an error instead of one line")


def show_reports(runs: Sequence[Any], html: Path | None = None, prog: str = "smol-envs") -> None:
    """The one renderer's output: every run in the terminal (`report.text`), and the HTML page
    (`report.html`) when `html` is a path."""
    from .report.html import write_page
    from .report.text import print_reports

    print_reports(runs)
    if html is not None:
        print(f"{prog}: report page written to {write_page(runs, html)}")


def guarded(prog: str, args: argparse.Namespace, command: Callable[[], int],
            errors: tuple[type[BaseException], ...] = ()) -> int:
    """Run `command`; a SmolEnvsError, OSError or one of `errors` becomes one line
    "PROG: error: ..." on stderr and exit status 2 (re-raised with --debug or
    SMOL_ENVS_DEBUG=1)."""
    from .errors import SmolEnvsError

    try:
        return command()
    except (SmolEnvsError, OSError, *errors) as exc:
        if getattr(args, "debug", False) or os.environ.get("SMOL_ENVS_DEBUG"):
            raise
        print(f"{prog}: error: {exc}", file=sys.stderr)
        return 2


def _report(args: argparse.Namespace) -> int:
    from .report import report_runs

    show_reports(report_runs(args.runs, args.allow_mixed_versions), args.html)
    return 0


def main(argv: list[str] | None = None) -> int:
    """Entry point of `smol-envs`; returns the exit status."""
    args = _parser().parse_args(argv)
    return guarded("smol-envs", args, lambda: _report(args))


if __name__ == "__main__":
    sys.exit(main())
