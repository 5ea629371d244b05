"""Turn a smolscript vf-eval run into a predictions file that scores the same code.

Reads a vf-eval `results.jsonl` (a file or its run folder) of the smolscript environment and
writes one `{"id": ..., "code": ...}` line per rollout, in dataset order, for
`smolscript evaluate --predictions` (for instance with another `--edition` of the same tasks,
such as `default-0.3.0`, to score one model's generations on two editions).

The code of each line is the rollout's `info.evaluated_code`, the program the environment
assembled from the raw continuation and scored. A rollout whose assembly was rejected
(`evaluated_code` null: several or unfinished fences) gets the text of one unfinished fence,
which `assemble_prediction` rejects too, so it fails as it failed in the run. Every line is
checked before writing: `assemble_prediction(task, code)` must give back exactly the run's
evaluated code (or a rejection where the run had one), so that both scorings judge the same
source. One exception, counted and printed: evaluated code that failed to compile in the run
and holds a fence line (a continuation that ran on into a stray code fence) is rejected by
`assemble_prediction`; both outcomes score passed 0, syntax_ok 0 and a hidden-test rate of 0,
so it is kept as an equivalent failure (the status reads `rejected`, not `compile_error`).
The run must hold one rollout per task (`-r 1`) of an edition with the same task ids, prompts
and entry points as `--edition`.

Usage:
    uv run python scripts/smolscript_run_to_predictions.py RUN --output predictions.jsonl \
        [--edition default-0.3.0]

Exit status: 0 written; 2 bad input (unknown id, duplicate id, or code that would assemble
differently).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from smol_envs_core.cli import HelpFormatter
from smolscript import data
from smolscript.assemble import assemble_prediction

# One fence line with no closing fence: `assemble_prediction` rejects it (unfinished fence).
REJECTED_PREDICTION = "```\n"


def read_run(path: str | Path) -> list[dict[str, Any]]:
    """Rows of a vf-eval results.jsonl (or of `path/results.jsonl` for a run folder).

    Raises OSError when the file cannot be read, ValueError on a line that is not JSON.
    """
    file = Path(path)
    if file.is_dir():
        file = file / "results.jsonl"
    return [json.loads(line) for line in file.read_text(encoding="utf-8").splitlines()
            if line.strip()]


def equivalent_failure(info: dict[str, Any], reassembled: str | None) -> bool:
    """True when the run's code failed to compile and its prediction is rejected instead:
    the same score (passed 0, syntax_ok 0, hidden-test rate 0) by a different route."""
    verdict = info.get("verdict") or {}
    return (reassembled is None and info.get("evaluated_code") is not None
            and verdict.get("status") == "compile_error" and not verdict.get("syntax_ok")
            and not verdict.get("passed"))


def to_predictions(rows: list[dict[str, Any]], edition: str
                   ) -> tuple[list[dict[str, str]], list[str], list[str]]:
    """Predictions in the edition's task order, the problems found, the equivalent failures.

    rows: vf-eval result rows whose `info` has `id`, `evaluated_code` and `verdict`.
    Returns ([{"id", "code"}, ...], [problem, ...], [task id, ...]); a problem is any id the
    edition lacks, a duplicate id, or code that `assemble_prediction` would not give back
    unchanged (other than an `equivalent_failure`, whose ids are the third list).
    """
    tasks = {task["id"]: task for task in data.load_tasks(edition)}
    problems: list[str] = []
    equivalent: list[str] = []
    codes: dict[str, str] = {}
    for row in rows:
        info = row.get("info") or {}
        task_id = info.get("id")
        if task_id not in tasks:
            problems.append(f"{task_id}: not a task of edition {edition}")
            continue
        if task_id in codes:
            problems.append(f"{task_id}: more than one rollout")
            continue
        evaluated = info.get("evaluated_code")
        code = REJECTED_PREDICTION if evaluated is None else evaluated
        again = assemble_prediction(tasks[task_id], code).code
        if again != evaluated and equivalent_failure(info, again):
            equivalent.append(task_id)
        elif again != evaluated:
            problems.append(f"{task_id}: prediction would assemble to different code")
        codes[task_id] = code
    ordered = [{"id": task_id, "code": codes[task_id]} for task_id in tasks if task_id in codes]
    return ordered, problems, equivalent


def main(argv: list[str] | None = None) -> int:
    """Command line entry point; see the module docstring."""
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=HelpFormatter)
    parser.add_argument("run", help="vf-eval results.jsonl or its run folder")
    parser.add_argument("--output", required=True, help="predictions JSONL to write")
    parser.add_argument("--edition", default="default", choices=sorted(data.EDITIONS),
                        help="edition whose tasks the predictions answer")
    args = parser.parse_args(argv)
    predictions, problems, equivalent = to_predictions(read_run(args.run), args.edition)
    for problem in problems:
        print(f"error: {problem}", file=sys.stderr)
    if problems:
        return 2
    with open(args.output, "w", encoding="utf-8") as out:
        for line in predictions:
            out.write(json.dumps(line, ensure_ascii=False) + "\n")
    rejected = sum(line["code"] == REJECTED_PREDICTION for line in predictions)
    print(f"{len(predictions)} predictions ({rejected} rejected assemblies, {len(equivalent)} "
          f"compile errors that re-assemble as rejected: {', '.join(equivalent) or 'none'})"
          f" -> {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
