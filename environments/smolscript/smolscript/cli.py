"""Command line `smolscript`: `evaluate` (score predictions) and `report` (summarize results).

    smolscript evaluate --predictions predictions.jsonl --output results.json [--resume]
        [--language python rust] [--difficulty easy] [--edition default]
        [--service-url URL] [--concurrency 8]
    smolscript report RESULTS [--chart chart.png]
    smolscript example-prompts [--out DIR]

Exit status: 0 done; 2 bad arguments, data or resume mismatch; 3 stopped on an
infrastructure error (the output keeps the scored tasks and no score).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from smolscript.data import DIFFICULTIES, EDITIONS
from smolscript.errors import DataError
from smolscript.languages import LANGUAGE_ORDER


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="smolscript", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    ev = sub.add_parser("evaluate", help="score externally generated code")
    ev.add_argument("--predictions", required=True, help='JSONL of {"id": ..., "code": ...}')
    ev.add_argument("--output", required=True, help="results JSON to write")
    ev.add_argument("--resume", action="store_true", help="continue an existing output")
    ev.add_argument("--language", nargs="+", choices=LANGUAGE_ORDER, default=None)
    ev.add_argument("--difficulty", nargs="+", choices=DIFFICULTIES, default=None)
    ev.add_argument("--edition", choices=sorted(EDITIONS), default="default")
    ev.add_argument("--service-url", default=None,
                    help="scoring service (default: reuse or start the local one)")
    ev.add_argument("--concurrency", type=int, default=8, help="jobs in flight (default 8)")
    ev.add_argument("--chart", default=None, help="also write a bar chart PNG here")
    rp = sub.add_parser("report", help="summarize a results file (evaluator or vf-eval -s)")
    rp.add_argument("results", help="results.json, or a vf-eval results.jsonl / folder")
    rp.add_argument("--chart", default=None, help="bar chart PNG path (default: beside results)")
    rp.add_argument("--edition", choices=sorted(EDITIONS), default="default",
                    help="edition of a vf-eval run (to tell complete from partial runs)")
    ex = sub.add_parser("example-prompts", help="write one example prompt per language")
    ex.add_argument("--out", default=str(Path(__file__).resolve().parent / "example_prompts"))
    ex.add_argument("--edition", choices=sorted(EDITIONS), default="default")
    return parser


def _example_prompts(args: argparse.Namespace) -> int:
    from smolscript import data
    from smolscript.prompts import write_example_prompts

    for path in write_example_prompts(args.out, data.load_tasks(args.edition)):
        print(path)
    return 0


def _print_summary(summary: dict, chart: str | Path | None, title: str) -> None:
    from rich.console import Console

    from smolscript import report

    console = Console()
    console.print(report.render_table(summary, title=title))
    if summary["infra_errors"]:
        console.print(f"[red]{summary['infra_errors']} infrastructure error(s): no score[/red]")
    for binary, versions in summary.get("toolchains", {}).items():
        console.print(f"scored with {binary}: {' | '.join(versions)}", highlight=False)
    if chart:
        console.print(f"chart: {report.bar_chart(summary, chart, title=title)}")


def _evaluate(args: argparse.Namespace) -> int:
    from rich.progress import Progress
    from smolscript_sandbox.client import SandboxClient

    from smolscript.errors import ScoringInfraError
    from smolscript.evaluate import EvaluationError, InfraStop, evaluate_predictions
    from smolscript.scoring import resolve_service_url

    try:
        url = resolve_service_url(args.service_url)
    except ScoringInfraError as exc:
        print(f"smolscript: {exc}", file=sys.stderr)
        return 3
    try:
        with Progress(transient=True) as bar:
            job = bar.add_task("scoring", total=None)
            document = evaluate_predictions(
                args.predictions, args.output,
                client_factory=lambda: SandboxClient(url, max_concurrency=args.concurrency),
                edition=args.edition, languages=args.language, difficulties=args.difficulty,
                resume=args.resume, concurrency=args.concurrency,
                progress=lambda done, total: bar.update(job, completed=done, total=total))
    except InfraStop as exc:
        print(f"smolscript: {exc}", file=sys.stderr)
        return 3
    except (EvaluationError, DataError) as exc:
        print(f"smolscript: {exc}", file=sys.stderr)
        return 2
    _print_summary(document["summary"], args.chart, title=Path(args.output).name)
    return 0


def _report(args: argparse.Namespace) -> int:
    from smolscript import data, report

    try:
        records, meta = report.load_records(args.results)
    except report.ReportError as exc:
        print(f"smolscript: {exc}", file=sys.stderr)
        return 2
    settings = meta.get("settings") if isinstance(meta.get("settings"), dict) else None
    if settings:  # evaluator results: the run says what it selected
        langs, selected = settings["languages"], meta.get("selected_ids")
        filtered = langs != list(LANGUAGE_ORDER) or settings["difficulties"] != list(DIFFICULTIES)
    else:  # vf-eval results: selection from the env arguments recorded in metadata
        env_args = meta.get("env_args") or {}
        langs = env_args.get("languages") or None
        diffs = env_args.get("difficulties") or None
        edition = env_args.get("edition", args.edition)
        filtered = bool(langs or diffs)
        try:
            selected = [t["id"] for t in data.load_tasks(edition, langs, diffs)]
        except DataError as exc:
            print(f"smolscript: {exc}", file=sys.stderr)
            return 2
    summary = report.summarize(records, selected_languages=langs, expected_ids=selected,
                               filtered=filtered)
    chart = args.chart or Path(args.results).with_suffix("").as_posix() + "_chart.png"
    _print_summary(summary, chart, title=Path(args.results).name)
    return 0


def main(argv: list[str] | None = None) -> int:
    """Entry point of the `smolscript` command; returns the exit status."""
    args = _parser().parse_args(argv)
    commands = {"evaluate": _evaluate, "report": _report, "example-prompts": _example_prompts}
    return commands[args.command](args)


if __name__ == "__main__":
    sys.exit(main())
