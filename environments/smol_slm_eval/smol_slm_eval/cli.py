"""`smol-slm-eval`: list the tasks, report runs, and compute the Int Index or eval_avg from runs.

    smol-slm-eval tasks
    smol-slm-eval report RESULTS... [--html PAGE] [--allow-mixed-versions]
    smol-slm-eval int-index RESULTS... [--score piqa.acc=68.44] [--allow-mixed-versions]
    smol-slm-eval eval-avg RESULTS... [--allow-mixed-versions]
    smol-slm-eval export-lm-eval RESULTS... -o results.json

RESULTS are `vf-eval -s` folders (or their results.jsonl), read by the core reader, or, for
int-index and eval-avg, lm-eval results files (.json, e.g. the seed's own); `report` prints runs
with the collection's one renderer. A thin wrapper around `composite`. Exit status: 0 done; 1
the composite cannot be computed; 2 a run cannot be read, or runs mix behaviour versions (one
line says why).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from smol_envs_core.cli import HelpFormatter, add_report_options, guarded, show_reports
from smol_envs_core.report import check_versions, read_results, report_results

from . import composite, data
from .errors import DataError, SlmEvalError
from .tasks import TASKS


def _table(header: list[str], rows: list[list[str]]) -> str:
    widths = [max(len(str(x)) for x in col) for col in zip(header, *rows, strict=True)]
    line = lambda cells: "  ".join(str(c).ljust(w) for c, w in zip(cells, widths, strict=True))  # noqa: E731
    return "\n".join([line(header), line(["-" * w for w in widths]), *map(line, rows)])


def cmd_tasks() -> str:
    """The task table: rows, headline metric, source, licence, availability here."""
    rows = []
    for spec in TASKS.values():
        source = spec.hub_id + (f" ({spec.hub_config})" if spec.hub_config else "")
        rows.append([spec.name, str(spec.rows or "?"), spec.metric, source, spec.licence,
                     data.availability(spec.name)])
    rows.append(["int_index", "-", "int_index", "group: hellaswag, arc_*, arithmark_*", "n/a",
                 "derived"])
    rows.append(["slm", "-", "-", "group: every task above", "n/a", "derived"])
    return _table(["task", "rows", "metric", "source", "licence", "data here"], rows)


ENV_ID = "smol-slm-eval"


def read_runs(paths: list[str], allow_mixed_versions: bool = False) -> list:
    """The runs at `paths` through the core reader (runs of other environments refused), after
    the behaviour-version check. Raises ReportError (MixedVersionsError)."""
    runs = [read_results(path, expect=ENV_ID) for path in paths]
    check_versions([r.provenance for r in runs], allow_mixed_versions)
    return runs


def _extra_scores(extra: list[str]) -> dict[str, dict[str, float]]:
    scores: dict[str, dict[str, float]] = {}
    for item in extra:
        try:
            key, value = item.split("=", 1)
            task, metric = key.split(".", 1)
            scores.setdefault(task, {})[metric] = float(value)
        except ValueError as exc:
            raise SlmEvalError(f"--score takes TASK.METRIC=PERCENT, got {item!r}") from exc
    return scores


def _pooled(paths: list[str], allow_mixed_versions: bool) -> tuple[dict, dict, dict]:
    """(pooled rows, per-task summary, imported percents): vf-eval runs through the core reader,
    `.json` paths as lm-eval results files (the seed's own output), whose figures carry no rows
    and so enter the intervals as fixed scores, like `--score`.

    Raises DataError when a task appears in two files or in both a file and the runs."""
    files = [p for p in paths if Path(p).is_file() and Path(p).suffix == ".json"]
    folders = [p for p in paths if p not in files]
    pooled = composite.pool(read_runs(folders, allow_mixed_versions)) if folders else {}
    results = composite.summarize(pooled)
    imported: dict[str, dict[str, tuple[float, int]]] = {}
    for path in files:
        for task, metrics in composite.read_lm_eval_results(Path(path)).items():
            if task in imported or task in results:
                raise DataError(f"{path}: {task} appears twice (in two results files, or in a "
                                "results file and a vf-eval run)")
            imported[task] = metrics
    return pooled, {**results, **imported}, composite.percents(imported)


def cmd_int_index(paths: list[str], extra: list[str], allow_mixed_versions: bool = False) -> str:
    """The Int Index table, value and stratified bootstrap interval."""
    pooled, results, imported = _pooled(paths, allow_mixed_versions)
    added = composite.merged(imported, _extra_scores(extra))
    scores = composite.merged(composite.percents(results), added)
    result = composite.int_index(scores)
    estimate = composite.int_index_estimate(pooled, added)
    rows = [[name, metric, f"{score:.2f}", f"{norm:.2f}", f"{weight:g}"]
            for name, metric, score, norm, weight in result.used]
    counts = {t: max(n for _, n in ms.values()) for t, ms in results.items()}
    text = _table(["component", "metric", "score %", "N(score)", "weight"], rows)
    text += (f"\n\nInt Index = {estimate.text()}\n  (components: "
             f"{', '.join(u[0] for u in result.used)}; denominator {result.denominator:g}")
    text += f"; missing: {', '.join(result.missing)})" if result.missing else ")"
    if counts:
        text += "\nrows per task: " + ", ".join(f"{t} {n}" for t, n in sorted(counts.items()))
    return text


def cmd_eval_avg(paths: list[str], allow_mixed_versions: bool = False) -> str:
    """The eval_avg table, value and stratified bootstrap interval."""
    pooled, results, imported = _pooled(paths, allow_mixed_versions)
    average, table, skipped = composite.eval_avg(composite.percents(results))
    rows = [[task, metric, f"{value:.2f}", str(results[task][metric][1])]
            for task, metric, value in table]
    text = _table(["benchmark", "metric", "score %", "rows"], rows)
    noun = "benchmark" if len(table) == 1 else "benchmarks"
    estimate = composite.eval_avg_estimate(pooled, imported)
    text += (f"\n\neval_avg = {estimate.text()} over {len(table)} "
             f"{noun}") if average is not None \
        else "\n\neval_avg: no usable benchmark"
    if skipped:
        text += f"\nskipped (no usable metric): {', '.join(skipped)}"
    return text


def main(argv: list[str] | None = None) -> int:
    """Entry point of `smol-slm-eval`; returns the exit code."""
    parser = argparse.ArgumentParser(prog="smol-slm-eval", description=__doc__.split("\n")[0],
                                     formatter_class=HelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    sub.add_parser("tasks", help="list every task with rows, source, licence and data here",
                   description="List every task: rows, headline metric, source, licence and "
                               "whether its data is available on this machine.")
    index = sub.add_parser("int-index", help="the Int Index from vf-eval -s result folders",
                           formatter_class=HelpFormatter,
                           description=composite.__doc__.split("\n\n")[2])
    index.add_argument("results", nargs="*",
                       help="vf-eval -s run folders (or results.jsonl), or lm-eval results .json")
    index.add_argument("--score", action="append", default=[],
                       help="add a score from elsewhere, TASK.METRIC=PERCENT (e.g. piqa.acc=68.4); "
                            "repeatable")
    add_report_options(index, html=False)
    avg = sub.add_parser("eval-avg", help="the plain average from vf-eval -s result folders",
                         formatter_class=HelpFormatter,
                         description="eval_avg: the plain mean of one metric per benchmark "
                                     "(acc_norm, else acc, exact_match, ...), over the runs given.")
    avg.add_argument("results", nargs="+",
                     help="vf-eval -s run folders (or results.jsonl), or lm-eval results .json")
    add_report_options(avg, html=False)
    rep = sub.add_parser("report",
                         help="print (and optionally --html) the report of smol-slm-eval runs",
                         formatter_class=HelpFormatter,
                         description="The collection's report of smol-slm-eval runs (as "
                                     "`smol-envs report`): per-task metrics with 95% intervals, "
                                     "the Int Index and eval_avg with bootstrap intervals.")
    rep.add_argument("results", nargs="+", help="vf-eval -s run folders (or results.jsonl)")
    add_report_options(rep)
    export = sub.add_parser("export-lm-eval", formatter_class=HelpFormatter,
                            help="write vf-eval -s runs as an lm-eval results file",
                            description="Write the runs in lm-evaluation-harness's results "
                                        "schema (BFCL per category), which the seed's "
                                        "`python -m slm_eval.int_index --results` and "
                                        "`eval_avg --results` read.")
    export.add_argument("results", nargs="+", help="vf-eval -s run folders (or results.jsonl)")
    export.add_argument("-o", "--output", required=True, help="the results JSON file to write")
    add_report_options(export, html=False)
    args = parser.parse_args(argv)
    return guarded("smol-slm-eval", args, lambda: _run(args))


def _run(args: argparse.Namespace) -> int:
    try:
        if args.command == "tasks":
            print(cmd_tasks())
        elif args.command == "report":
            runs = read_runs(args.results, args.allow_mixed_versions)
            show_reports(report_results(runs, allow_mixed_versions=args.allow_mixed_versions),
                         args.html, prog="smol-slm-eval")
        elif args.command == "int-index":
            print(cmd_int_index(args.results, args.score, args.allow_mixed_versions))
        elif args.command == "export-lm-eval":
            runs = read_runs(args.results, args.allow_mixed_versions)
            document = composite.to_lm_eval_results(
                composite.summarize(composite.pool(runs, per_bfcl_category=True)),
                composite.original_sizes(runs, per_bfcl_category=True))
            Path(args.output).write_text(json.dumps(document, indent=2) + "\n")
            print(f"wrote {args.output}: {', '.join(document['results'])}")
        else:
            print(cmd_eval_avg(args.results, args.allow_mixed_versions))
    except SlmEvalError as exc:  # a refusal, like every command's here: exit status 2
        print(f"smol-slm-eval: error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
