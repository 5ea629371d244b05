"""Command line `smolscript`: `evaluate` (score predictions) and `report` (summarize results).

    smolscript evaluate --predictions predictions.jsonl --output results.json [--resume]
        [--language python rust] [--difficulty easy] [--edition default]
        [--service-url URL] [--concurrency 8]
    smolscript evaluate --model MODEL --output results.json [--resume] [--revision SHA]
        [--batch-size 64] [--max-new-tokens N] [--context-length N] [--threads N]
        [--device cuda] [--language ...] [--difficulty ...] [--edition default] ...
    smolscript report RESULTS [--chart chart.png] [--html PAGE] [--allow-mixed-versions]
    smolscript example-prompts [--out DIR] [--edition default]

`--model` generates in process (a GGUF file through llama.cpp, a transformers model folder or
a Hub id through transformers), greedy with the card's template and budgets, then scores.
`evaluate` and `report` print through the collection's one renderer (the tables of
`smol-envs report`, headline with N and 95% interval) and write the bar chart.

Exit status: 0 done; 2 bad arguments, data or resume mismatch, or rows of mixed behaviour
versions; 3 stopped on an infrastructure error (the output keeps the scored tasks and no score).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from smol_envs_core.cli import HelpFormatter, add_report_options

from smolscript.data import DIFFICULTIES, EDITIONS
from smolscript.errors import DataError
from smolscript.languages import LANGUAGE_ORDER


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="smolscript", description=__doc__,
                                     formatter_class=HelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    editions = sorted(EDITIONS)
    ev = sub.add_parser("evaluate", help="generate with a model in process, or score "
                        "externally generated code", formatter_class=HelpFormatter,
                        description="Generate with --model in process (greedy, seed 0, the one "
                                    "completion template, the versioned budgets) and score the "
                                    "continuations, or score a predictions file (one "
                                    "{\"id\", \"code\"} object per line: complete source, raw or "
                                    "one fenced block) with the hidden tests; exit 2 on bad "
                                    "input, 3 on an infrastructure error (the output keeps what "
                                    "was generated and scored, and no score).")
    source = ev.add_mutually_exclusive_group(required=True)
    source.add_argument("--predictions", help='JSONL of {"id": ..., "code": ...}')
    source.add_argument("--model", help="a GGUF file (llama.cpp), a transformers model folder "
                        "or a Hugging Face Hub id (transformers; needs the Hub or its cache)")
    ev.add_argument("--revision", default=None,
                    help="with a Hub id: the branch, tag or commit to pin (default: main, "
                         "resolved to its commit)")
    ev.add_argument("--batch-size", type=int, default=64,
                    help="prompts per generated batch (halved on out-of-memory, recorded); "
                         "llama.cpp runs a batch's sequences one by one")
    ev.add_argument("--max-new-tokens", type=int, default=None,
                    help="replace every task's token budget (a separately recorded "
                         "experiment: no official score); default: the versioned budgets")
    ev.add_argument("--context-length", type=int, default=None,
                    help="model context in tokens (default: 2048 for GGUF, as the local server; "
                         "the model's maximum for transformers); prompts never truncated")
    ev.add_argument("--threads", type=int, default=None, help="CPU threads for generation "
                    "(default: the backend's: half the cores for llama.cpp, torch's for "
                    "transformers)")
    ev.add_argument("--device", default=None, help="transformers device, e.g. cuda, cpu "
                    "(default: cuda when available)")
    ev.add_argument("--output", required=True, help="results JSON to write")
    ev.add_argument("--resume", action="store_true", help="continue an existing output")
    ev.add_argument("--language", nargs="+", choices=LANGUAGE_ORDER, default=None,
                    help="score only these languages (a filtered run: no official score); "
                         "default: all nine")
    ev.add_argument("--difficulty", nargs="+", choices=DIFFICULTIES, default=None,
                    help="score only these difficulties (a filtered run); default: all")
    ev.add_argument("--edition", choices=editions, default="default",
                    help="dataset edition the predictions answer")
    ev.add_argument("--service-url", default=None,
                    help="scoring service; default: reuse or start the local one")
    ev.add_argument("--concurrency", type=int, default=8, help="scoring jobs in flight")
    ev.add_argument("--chart", default=None, help="also write a bar chart PNG here "
                    "(default: none)")
    rp = sub.add_parser("report", help="summarize a results file (evaluator or vf-eval -s)",
                        formatter_class=HelpFormatter,
                        description="Print the per-language table and the headline score of a "
                                    "results file, and write its bar chart. A partial run, a "
                                    "missing metric or another dataset build is said so, or "
                                    "refused (exit 2).")
    rp.add_argument("results", help="results.json, or a vf-eval results.jsonl / folder")
    rp.add_argument("--chart", default=None,
                    help="bar chart PNG path; default: RUN/smolscript_chart.png inside a run "
                         "folder, NAME_chart.png beside a results file")
    rp.add_argument("--edition", choices=editions, default="default",
                    help="edition of a vf-eval run that recorded none (to tell complete from "
                         "partial runs)")
    add_report_options(rp)
    ex = sub.add_parser("example-prompts", help="write one example prompt per language",
                        formatter_class=HelpFormatter,
                        description="Write the prompt of the first task of each language (and "
                                    "of JavaScript's DOM tasks) as <language>.txt, to see "
                                    "exactly what a model receives. Writes into the current "
                                    "folder by default, never into the installed package.")
    ex.add_argument("--out", default="smolscript_example_prompts",
                    help="folder to write the prompts to")
    ex.add_argument("--edition", choices=editions, default="default",
                    help="dataset edition to take the tasks from")
    return parser


def _example_prompts(args: argparse.Namespace) -> int:
    from smolscript import data
    from smolscript.prompts import write_example_prompts

    for path in write_example_prompts(args.out, data.load_tasks(args.edition)):
        print(path)
    return 0


def _show(results_file: str | Path, chart: str | Path | None, edition: str = "default",
          html: Path | None = None, allow_mixed_versions: bool = False) -> None:
    """Report a results file through the core renderer and write its chart (when `chart`).

    Raises ReportError, DataError or the core's ReportError (mixed versions)."""
    from smol_envs_core.cli import show_reports
    from smol_envs_core.report import report_results
    from smol_envs_core.report.charts import png

    from smolscript import report

    [run] = report_results([report.load_run(results_file)],
                           {"smolscript": lambda: report.hook_for(edition)},
                           allow_mixed_versions=allow_mixed_versions)
    show_reports([run], html, prog="smolscript")
    if chart:
        model = None if run.header.model == "?" else run.header.model
        print(f"chart: {png(run.body.charts[0], chart, model)}")


def _open_model(args: argparse.Namespace):
    """Resolve and load `--model` (before the scoring service is asked for anything, so that
    a bad model argument fails at once). Raises ModelError."""
    from smolscript.backends import open_backend
    from smolscript.models import resolve_model

    model = resolve_model(args.model, args.revision)
    return model, open_backend(model, args.context_length, args.threads, args.device)


def _run_model(args: argparse.Namespace, model, backend, client_factory, bar) -> None:
    """Generate with the opened model and score (progress on `bar`, one bar per stage)."""
    from smolscript.evaluate_model import evaluate_model

    jobs = {stage: bar.add_task(stage, total=None) for stage in ("generated", "scored")}
    evaluate_model(backend, model, args.output, client_factory=client_factory,
                   edition=args.edition, languages=args.language,
                   difficulties=args.difficulty, resume=args.resume,
                   batch_size=args.batch_size, max_new_tokens=args.max_new_tokens,
                   concurrency=args.concurrency,
                   progress=lambda stage, done, total: bar.update(jobs[stage], completed=done,
                                                                  total=total))


def _evaluate(args: argparse.Namespace) -> int:
    from rich.progress import Progress
    from smolscript_sandbox.client import SandboxClient

    from smolscript.errors import ModelError, ScoringInfraError
    from smolscript.evaluate import EvaluationError, InfraStop, evaluate_predictions
    from smolscript.verdict import resolve_service_url

    if args.predictions and (args.revision or args.max_new_tokens is not None):
        print("smolscript: --revision and --max-new-tokens apply to --model only",
              file=sys.stderr)
        return 2
    try:
        model = _open_model(args) if args.model else None
    except ModelError as exc:
        print(f"smolscript: {exc}", file=sys.stderr)
        return 2
    try:
        url = resolve_service_url(args.service_url)
    except ScoringInfraError as exc:
        print(f"smolscript: {exc}", file=sys.stderr)
        return 3

    def client_factory():
        return SandboxClient(url, max_concurrency=args.concurrency)

    try:
        with Progress(transient=True) as bar:
            if model is not None:
                _run_model(args, *model, client_factory, bar)
            else:
                job = bar.add_task("scoring", total=None)
                evaluate_predictions(
                    args.predictions, args.output, client_factory=client_factory,
                    edition=args.edition, languages=args.language,
                    difficulties=args.difficulty, resume=args.resume,
                    concurrency=args.concurrency,
                    progress=lambda done, total: bar.update(job, completed=done, total=total))
    except InfraStop as exc:
        print(f"smolscript: {exc}", file=sys.stderr)
        return 3
    except (EvaluationError, DataError) as exc:
        print(f"smolscript: {exc}", file=sys.stderr)
        return 2
    _show(args.output, args.chart, args.edition)
    return 0


def default_chart_path(results: Path) -> Path:
    """Where `report` writes its chart without `--chart`: inside a run folder
    (`RUN/smolscript_chart.png`), else beside a results file (`NAME_chart.png`), so that a
    glob over run folders never picks the chart up as a run."""
    if results.is_dir():
        return results / "smolscript_chart.png"
    return results.with_name(results.stem + "_chart.png")


def _report(args: argparse.Namespace) -> int:
    from smol_envs_core.errors import SmolEnvsError

    chart = args.chart or default_chart_path(Path(args.results))
    try:
        _show(args.results, chart, args.edition, args.html, args.allow_mixed_versions)
    except (SmolEnvsError, DataError) as exc:
        if args.debug:
            raise
        print(f"smolscript: {exc}", file=sys.stderr)
        return 2
    return 0


def main(argv: list[str] | None = None) -> int:
    """Entry point of the `smolscript` command; returns the exit status."""
    args = _parser().parse_args(argv)
    commands = {"evaluate": _evaluate, "report": _report, "example-prompts": _example_prompts}
    return commands[args.command](args)


if __name__ == "__main__":
    sys.exit(main())
