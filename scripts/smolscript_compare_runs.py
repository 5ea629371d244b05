"""Compare smolscript results of the same generations side by side (for instance one model's
vf-eval run scored on two dataset editions).

Each RESULTS is a `smolscript evaluate` results.json or a vf-eval results.jsonl / run folder,
optionally labelled `LABEL=PATH`. Every file is summarized with `smolscript.report`
(`summarize_results`, the same code as `smolscript report`, so the official score is withheld
for partial or filtered runs). Prints a Markdown table (per language: N, then Pass@1,
hidden-test rate and syntax success of each file; the macro row last, on 0-100) and, for every
pair of files, the tasks whose verdict differs (passed or syntax_ok), with the direction.

Usage:
    uv run python scripts/smolscript_compare_runs.py \
        0.4.0=results_default.json 0.3.0=results_030.json [vf-eval=RUN_DIR]

Exit status: 0 printed; 2 unreadable results or differing task sets.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping, Sequence
from itertools import combinations
from typing import Any

from smol_envs_core.cli import HelpFormatter
from smolscript.errors import DataError
from smolscript.report import ReportError, load_run, records_from_results, summarize_results


def _fmt(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.1f}"


def side_by_side(labels: Sequence[str], summaries: Sequence[Mapping[str, Any]]) -> str:
    """Markdown table: Language, N, then Pass@1 / hidden-test / syntax per labelled summary.

    summaries: `summarize_results` outputs over the same languages. The last row is the
    official score (or the label of the score that applies: filtered, partial) and the
    macro averages of the other two columns.
    """
    head = ["Language", "N"] + [f"{name} {label}" for label in labels
                                for name in ("Pass@1", "hidden", "syntax")]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for lang in summaries[0]["languages"]:
        cells = [summaries[0]["per_language"][lang]["display_name"],
                 str(summaries[0]["per_language"][lang]["tasks"])]
        for summary in summaries:
            per = summary["per_language"][lang]
            cells += [_fmt(per["pass_at_1"]), _fmt(per["hidden_test_pass_rate"]),
                      _fmt(per["syntax_success"])]
        lines.append("| " + " | ".join(cells) + " |")
    cells = ["Score (macro)", str(summaries[0]["tasks_scored"])]
    for summary in summaries:
        score = summary["smolscript_score"]
        shown = _fmt(score) if score is not None else (
            f"{_fmt(summary['filtered_macro_score'])} (filtered)"
            if summary["filtered_macro_score"] is not None else f"n/a ({summary['status']})")
        cells += [shown, _fmt(summary["hidden_test_pass_rate"]), _fmt(summary["syntax_success"])]
    lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def verdict_changes(left: Mapping[str, Mapping[str, Any]], right: Mapping[str, Mapping[str, Any]]
                    ) -> list[str]:
    """Lines naming each task id whose `passed` or `syntax_ok` differs, as left -> right.

    left, right: records by task id (same ids). Raises ValueError when the ids differ.
    """
    if set(left) != set(right):
        raise ValueError(f"task sets differ: {len(set(left) ^ set(right))} ids in one only")
    changes = []
    for task_id in sorted(left):
        a, b = left[task_id], right[task_id]
        for field in ("passed", "syntax_ok"):
            if bool(a[field]) != bool(b[field]):
                changes.append(f"{task_id}: {field} {int(bool(a[field]))} -> {int(bool(b[field]))}")
    return changes


def main(argv: list[str] | None = None) -> int:
    """Command line entry point; see the module docstring."""
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=HelpFormatter)
    parser.add_argument("results", nargs="+", help="[LABEL=]PATH of a results file or run")
    args = parser.parse_args(argv)
    labels, paths = [], []
    for item in args.results:
        label, _, path = item.rpartition("=")
        labels.append(label or path)
        paths.append(path)
    try:
        runs = [load_run(path) for path in paths]
        summaries = [summarize_results(run) for run in runs]
        records = [{r["id"]: r for r in records_from_results(run)} for run in runs]
    except (ReportError, DataError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(side_by_side(labels, summaries))
    for (i, left), (j, right) in combinations(enumerate(records), 2):
        try:
            changes = verdict_changes(left, right)
        except ValueError as exc:
            print(f"error: {labels[i]} vs {labels[j]}: {exc}", file=sys.stderr)
            return 2
        print(f"\nverdicts that differ, {labels[i]} -> {labels[j]}: {len(changes)}")
        for line in changes:
            print(f"  {line}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
