"""`smol-envs`: the collection's command line.

    smol-envs report RUN [RUN ...] [--html PAGE] [--markdown [PATH]] [--update-readme README]
                     [--allow-mixed-versions] [--debug]
    smol-envs compare RUN_A RUN_B [--markdown [PATH]] [--allow-mixed-versions] [--debug]
    smol-envs eval MODEL [MODEL ...] [--suite quick|full] [--env ID ...] [--limit N]
                   [--output DIR] [--resume] [--judge J] [--sweep DIR] [--list]

`report` reads `vf-eval -s` result folders of any of the collection's environments (a run
folder, its results.jsonl, verifiers 0.4's `vf-eval` output folder (traces.jsonl), or a folder
searched for runs), recognises each run's environment
and prints its table headed by model, endpoint, date, dataset version, coverage (the full
benchmark or the subset run), behaviour version and run path, each headline figure with its N,
standard error and 95% interval; `--html` also writes one static page with every run's tables
and charts side by side; `--markdown` writes the same reports as Markdown (to PATH, or to
stdout instead of the terminal tables), with a leaderboard (models x benchmark headlines) when
the runs span several models; `--update-readme README` rewrites the leaderboard block between
the README's `<!-- leaderboard:start -->` and `<!-- leaderboard:end -->` lines. Runs of one
environment scored by different behaviour versions are refused unless --allow-mixed-versions.

`compare` pairs two runs of the same environment and dataset on the rows they share (different
environments, dataset hashes or behaviour versions are refused; unmatched rows are counted) and
prints the headline's difference B - A with its 95% interval (McNemar's exact test and
Newcombe's interval for pass/fail rows, a seeded paired bootstrap for graded scores, macro
averages and composites), the same per slice / language / task, the rows that changed each
way, and a verdict with the smallest difference detectable at this N.

`eval` scores MODEL (a registered alias, a GGUF file, a Hugging Face checkpoint folder, or an
OpenAI-compatible base URL with --model-id) across the collection in one command: see
`smol-envs eval --help` and `smol_envs_core.evalrun`.

Exit status: 0 done; 2 a run cannot be reported or compared, or runs mix behaviour versions
(one line says why; `--debug` or SMOL_ENVS_DEBUG=1 shows the traceback).
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
    sections = __doc__.split("\n\n")
    report = sub.add_parser(
        "report", help="print (and optionally --html / --markdown) the report of one or more "
                       "vf-eval runs",
        description=sections[2], formatter_class=HelpFormatter)
    report.add_argument("runs", nargs="+", metavar="RUN",
                        help="a vf-eval -s run folder, its results.jsonl, a verifiers 0.4 "
                        "vf-eval output folder (traces.jsonl), or a folder holding runs")
    add_report_options(report)
    _markdown_option(report)
    report.add_argument("--update-readme", type=Path, default=None, metavar="README",
                        help="rewrite the leaderboard block between the README's markers "
                             "from these runs (instead of printing the report)")
    compare = sub.add_parser(
        "compare", help="paired comparison of two runs of one environment and dataset",
        description=sections[3], formatter_class=HelpFormatter)
    compare.add_argument("run_a", metavar="RUN_A", help="the first run (A): a run folder or its "
                                                        "results.jsonl (or traces.jsonl)")
    compare.add_argument("run_b", metavar="RUN_B", help="the second run (B), compared with A")
    add_report_options(compare, html=False)
    _markdown_option(compare)
    from .evalrun.cli import add_eval_parser

    add_eval_parser(sub, HelpFormatter)
    return parser


def _markdown_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--markdown", nargs="?", const="-", default=None, type=str,
                        metavar="PATH", help="also write it as Markdown to PATH; without PATH, "
                                             "print Markdown instead of the terminal tables")


def _write_markdown(text: str, where: str) -> None:
    if where == "-":
        sys.stdout.write(text)
        return
    path = Path(where)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    print(f"smol-envs: Markdown written to {path}")


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
    from .report.markdown import reports_markdown, update_readme

    runs = report_runs(args.runs, args.allow_mixed_versions)
    if args.update_readme is not None:
        path = update_readme(args.update_readme, runs)
        print(f"smol-envs: leaderboard block of {path} rewritten from {len(runs)} run(s)")
    if args.markdown is not None:
        _write_markdown(reports_markdown(runs, Path.cwd()), args.markdown)
    if args.markdown != "-" and args.update_readme is None:
        show_reports(runs, args.html)
    elif args.html is not None:
        from .report.html import write_page

        print(f"smol-envs: report page written to {write_page(runs, args.html)}")
    return 0


def _compare(args: argparse.Namespace) -> int:
    from .report.compare import compare_runs
    from .report.markdown import comparison_markdown
    from .report.text import print_comparison

    comparison = compare_runs(args.run_a, args.run_b, args.allow_mixed_versions)
    if args.markdown is not None:
        _write_markdown(comparison_markdown(comparison), args.markdown)
    if args.markdown != "-":
        print_comparison(comparison)
    return 0


def main(argv: list[str] | None = None) -> int:
    """Entry point of `smol-envs`; returns the exit status."""
    args = _parser().parse_args(argv)
    if args.command == "eval":
        from .evalrun.cli import run_eval

        return guarded("smol-envs eval", args, lambda: run_eval(args, argv))
    command = _compare if args.command == "compare" else _report
    return guarded("smol-envs", args, lambda: command(args))


if __name__ == "__main__":
    sys.exit(main())
