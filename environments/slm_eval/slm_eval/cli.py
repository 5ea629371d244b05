"""`slm-eval`: list the tasks, and compute the Int Index or eval_avg from saved runs.

    slm-eval tasks
    slm-eval int-index RESULTS... [--score piqa.acc=68.44]
    slm-eval eval-avg RESULTS...
    slm-eval export-lm-eval RESULTS... -o results.json

RESULTS are `vf-eval -s` folders (or their results.jsonl), or lm-eval results files (.json,
e.g. the seed's own). A thin wrapper around `composite`.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from smol_envs_core.cli import HelpFormatter

from . import composite, data
from .errors import SlmEvalError
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


def _scores(paths: list[str], extra: list[str]) -> tuple[dict, dict]:
    results = composite.read_results(paths) if paths else {}
    scores = composite.percents(results)
    for item in extra:
        try:
            key, value = item.split("=", 1)
            task, metric = key.split(".", 1)
            scores.setdefault(task, {})[metric] = float(value)
        except ValueError as exc:
            raise SlmEvalError(f"--score takes TASK.METRIC=PERCENT, got {item!r}") from exc
    return results, scores


def cmd_int_index(paths: list[str], extra: list[str]) -> str:
    """The Int Index table and value."""
    results, scores = _scores(paths, extra)
    result = composite.int_index(scores)
    rows = [[name, metric, f"{score:.2f}", f"{norm:.2f}", f"{weight:g}"]
            for name, metric, score, norm, weight in result.used]
    counts = {t: max(n for _, n in ms.values()) for t, ms in results.items()}
    text = _table(["component", "metric", "score %", "N(score)", "weight"], rows)
    text += (f"\n\nInt Index = {result.value:.2f}  (components: "
             f"{', '.join(u[0] for u in result.used)}; denominator {result.denominator:g}")
    text += f"; missing: {', '.join(result.missing)})" if result.missing else ")"
    if counts:
        text += "\nrows per task: " + ", ".join(f"{t} {n}" for t, n in sorted(counts.items()))
    return text


def cmd_eval_avg(paths: list[str]) -> str:
    """The eval_avg table and value."""
    results, scores = _scores(paths, [])
    average, table, skipped = composite.eval_avg(scores)
    rows = [[task, metric, f"{value:.2f}", str(results[task][metric][1])]
            for task, metric, value in table]
    text = _table(["benchmark", "metric", "score %", "rows"], rows)
    noun = "benchmark" if len(table) == 1 else "benchmarks"
    text += f"\n\neval_avg = {average:.2f} over {len(table)} {noun}" if average is not None \
        else "\n\neval_avg: no usable benchmark"
    if skipped:
        text += f"\nskipped (no usable metric): {', '.join(skipped)}"
    return text


def main(argv: list[str] | None = None) -> int:
    """Entry point of `slm-eval`; returns the exit code."""
    parser = argparse.ArgumentParser(prog="slm-eval", description=__doc__.split("\n")[0],
                                     formatter_class=HelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    sub.add_parser("tasks", help="list every task with rows, source, licence and data here",
                   description="List every task: rows, headline metric, source, licence and "
                               "whether its data is available on this machine.")
    index = sub.add_parser("int-index", help="the Int Index from vf-eval -s result folders",
                           formatter_class=HelpFormatter,
                           description=composite.__doc__.split("\n\n")[2])
    index.add_argument("results", nargs="*", help="vf-eval -s run folders (or results.jsonl)")
    index.add_argument("--score", action="append", default=[],
                       help="add a score from elsewhere, TASK.METRIC=PERCENT (e.g. piqa.acc=68.4); "
                            "repeatable")
    avg = sub.add_parser("eval-avg", help="the plain average from vf-eval -s result folders",
                         formatter_class=HelpFormatter,
                         description="eval_avg: the plain mean of one metric per benchmark "
                                     "(acc_norm, else acc, exact_match, ...), over the runs given.")
    avg.add_argument("results", nargs="+", help="vf-eval -s run folders (or results.jsonl)")
    export = sub.add_parser("export-lm-eval", formatter_class=HelpFormatter,
                            help="write vf-eval -s runs as an lm-eval results file",
                            description="Write the runs in lm-evaluation-harness's results "
                                        "schema (BFCL per category), which the seed's "
                                        "`python -m slm_eval.int_index --results` and "
                                        "`eval_avg --results` read.")
    export.add_argument("results", nargs="+", help="vf-eval -s run folders (or results.jsonl)")
    export.add_argument("-o", "--output", required=True, help="the results JSON file to write")
    args = parser.parse_args(argv)
    try:
        if args.command == "tasks":
            print(cmd_tasks())
        elif args.command == "int-index":
            print(cmd_int_index(args.results, args.score))
        elif args.command == "export-lm-eval":
            document = composite.to_lm_eval_results(
                composite.read_results(args.results, per_bfcl_category=True))
            Path(args.output).write_text(json.dumps(document, indent=2) + "\n")
            print(f"wrote {args.output}: {', '.join(document['results'])}")
        else:
            print(cmd_eval_avg(args.results))
    except SlmEvalError as exc:
        print(f"slm-eval: error: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
