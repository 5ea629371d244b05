"""The composites over saved runs: the Int Index and eval_avg, with bootstrap intervals.

Takes runs already read by the core reader (`smol_envs_core.report.Results`, never the disk),
pools the rows of each task (several runs of one task, e.g. BFCL's categories, are merged; a row
seen twice is an error) and takes each metric's mean in percent. Only the metrics of the task's
own kind count: an EnvGroup run fills other tasks' columns with zeros. The intervals resample
rows within each task (`smol_envs_core.report.stratified_bootstrap`, seeded).

Int Index (Open SLM Leaderboard): N(s, c) = 100 (s - c) / (100 - c); weighted mean of
N(HellaSwag acc_norm, 25), N(mean of ARC-Easy and ARC-Challenge acc_norm, 25), N(PIQA acc, 50)
and 0.65 N(ArithMark-3 acc, 25); a missing component leaves numerator and denominator.
eval_avg: plain mean of one metric per benchmark, chosen by a fixed preference order.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from smol_envs_core.report import Estimate, Results, by_example, stratified_bootstrap

from .errors import ConfigError, DataError
from .tasks import DIAGNOSTICS, KIND_METRICS, TASKS

METRIC_PREFERENCE = ("acc_norm", "acc", "exact_match", "function_name_match", "ast_match",
                     "valid_json")


@dataclass(frozen=True)
class Component:
    """One Int Index component: the tasks averaged into it, metric, chance (%), weight, and
    the metric used instead when every task lacks `metric` (the seed's fallback)."""

    name: str
    tasks: tuple[str, ...]
    metric: str
    chance: float
    weight: float
    fallback: str | None = None


INT_INDEX = (
    Component("HellaSwag", ("hellaswag",), "acc_norm", 25.0, 1.0, fallback="acc"),
    Component("ARC", ("arc_easy", "arc_challenge"), "acc_norm", 25.0, 1.0, fallback="acc"),
    Component("PIQA", ("piqa",), "acc", 50.0, 1.0),
    Component("ArithMark-3", ("arithmark_3_0",), "acc", 25.0, 0.65),
)


def normalise_score(score: float, chance: float) -> float:
    """N(s, c) = 100 (s - c) / (100 - c): chance maps to 0, a perfect score to 100."""
    return 100.0 * (score - chance) / (100.0 - chance)


def read_lm_eval_results(path: Path) -> dict[str, dict[str, tuple[float, int]]]:
    """{task: {metric: (percent, rows)}} from an lm-evaluation-harness results file (the seed's
    `results_<time>.json`): keys `<metric>,<filter>`, the first filter of a metric kept,
    standard errors and non-numbers skipped, rows from `n-samples` (0 when absent).

    Raises:
        DataError: the file has no `results` mapping.
    """
    document = json.loads(path.read_text())
    per_task = document.get("results") if isinstance(document, dict) else None
    if not isinstance(per_task, dict):
        raise DataError(f"{path}: no `results` mapping (not an lm-eval results file)")
    groups = set(document.get("group_subtasks") or {})
    counts = document.get("n-samples") or {}
    out: dict[str, dict[str, tuple[float, int]]] = {}
    for task, payload in per_task.items():
        if task in groups or not isinstance(payload, dict):
            continue  # a group's aggregate: its subtasks are counted themselves
        rows = int((counts.get(task) or {}).get("effective", 0))
        metrics: dict[str, tuple[float, int]] = {}
        for key, value in payload.items():
            name, comma, _ = str(key).partition(",")
            if comma and not name.endswith("_stderr") and isinstance(value, int | float) \
                    and not isinstance(value, bool):
                metrics.setdefault(name.strip(), (100.0 * float(value), rows))
        out[task] = metrics
    return out


def original_sizes(runs: Sequence[Results], per_bfcl_category: bool = False
                   ) -> dict[str, int | None]:
    """{task: rows of the whole benchmark} for the tasks of `runs`: the task table's size for
    a run of the packaged benchmark, None where it is unknown (a local data file, a BFCL
    category, a task of unknown size)."""
    out: dict[str, int | None] = {}
    for results in runs:
        local = bool(results.env_args.get("data_path"))
        for row in results.rows:
            task = row.info.get("benchmark")
            if task not in TASKS:
                continue
            if per_bfcl_category and task == "bfcl_v4":
                out[f"bfcl_v4_{row.info.get('category')}"] = None
            else:
                out[task] = None if local else (TASKS[task].rows or None)
    return out


def to_lm_eval_results(results: dict[str, dict[str, tuple[float, int]]],
                       sizes: Mapping[str, int | None] | None = None) -> dict:
    """`summarize(pool(runs, per_bfcl_category=True))` in lm-evaluation-harness's results
    schema, which the seed's `python -m slm_eval.int_index --results` and `eval_avg --results`
    read: fractions under `<metric>,none`, `n-samples` per task as lm-eval writes it
    ("effective": the rows scored; "original": the whole benchmark's rows from `sizes`, null
    where unknown, so that a 10-row subset is never written as a whole benchmark of 10).
    Diagnostics keep their names (the seed skips them)."""
    sizes = sizes or {}
    return {"results": {task: {"alias": task, **{f"{m},none": v / 100.0
                                                 for m, (v, _) in sorted(ms.items())}}
                        for task, ms in sorted(results.items())},
            "group_subtasks": {},
            "n-samples": {task: {"original": sizes.get(task),
                                 "effective": max(n for _, n in ms.values())}
                          for task, ms in sorted(results.items()) if ms},
            "config": {"harness": "smol-envs smol-slm-eval"}}


Pooled = dict[str, list[dict[str, float]]]


def pool(runs: Sequence[Results], per_bfcl_category: bool = False) -> Pooled:
    """{task: [each row's metrics of the task's own kind]} over the runs' rows.

    With `per_bfcl_category`, bfcl_v4 rows count as the seed's per-category tasks
    (`bfcl_v4_simple_python`, ...), as the seed reports them (for `to_lm_eval_results`).
    Rows marked `not_scorable` (their prompt could not fit the endpoint's context) are left
    out: they are no model's score (`not_scorable_rows` names them).

    Raises:
        DataError: a row names no known task, or one row (task and id) is in two runs.
    Rollouts of one example within a run are averaged first (`by_example`): one row each.
    """
    pooled: Pooled = defaultdict(list)
    seen: dict[tuple[str, str], Path] = {}
    for results in runs:
        for row in by_example(results).rows:
            task = row.info.get("benchmark")
            if task not in TASKS:
                raise DataError(f"{results.path}:{row.line}: row has no smol-slm-eval task in "
                                "its info")
            key = (task, str(row.info.get("id")))
            if key in seen:
                raise DataError(
                    f"{results.path}:{row.line}: {task} row {row.info.get('id')} is also in "
                    f"{seen[key].parent}: two runs of {task} were given; pass one run per task "
                    "(a glob over a results folder matches every earlier run too)")
            seen[key] = results.path
            values = {name: row.optional_metric(name) for name in KIND_METRICS[TASKS[task].kind]}
            if values.get("not_scorable"):
                continue
            values.pop("not_scorable", None)
            name_as = (f"bfcl_v4_{row.info.get('category')}"
                       if per_bfcl_category and task == "bfcl_v4" else task)
            pooled[name_as].append({k: v for k, v in values.items() if v is not None})
    return dict(pooled)


def not_scorable_rows(runs: Sequence[Results]) -> dict[str, list[str]]:
    """{task: ids of its rows marked `not_scorable`} over the runs (tasks with none left out)."""
    out: dict[str, list[str]] = defaultdict(list)
    for results in runs:
        for row in results.rows:
            if row.optional_metric("not_scorable"):
                out[str(row.info.get("benchmark"))].append(str(row.info.get("id")))
    return dict(out)


def summarize(pooled: Pooled) -> dict[str, dict[str, tuple[float, int]]]:
    """{task: {metric: (mean in percent, rows carrying it)}}."""
    out: dict[str, dict[str, tuple[float, int]]] = {}
    for task, rows in pooled.items():
        by_metric: dict[str, list[float]] = defaultdict(list)
        for row in rows:
            for name, value in row.items():
                by_metric[name].append(value)
        out[task] = {m: (100.0 * sum(v) / len(v), len(v)) for m, v in by_metric.items()}
    return out


@dataclass(frozen=True)
class IndexResult:
    """The Int Index with the components used, their normalised scores and the denominator."""

    value: float
    denominator: float
    used: list[tuple[str, str, float, float, float]]  # name, metric, score, N, weight
    missing: list[str]


def int_index(scores: dict[str, dict[str, float]]) -> IndexResult:
    """The Int Index from {task: {metric: percent}}.

    Raises:
        ConfigError: only one of ARC-Easy/ARC-Challenge, a component whose tasks share neither
            its metric nor its fallback (HellaSwag and ARC fall back to acc when acc_norm is
            missing on all their tasks, as the seed does), or fewer than two components.
    """
    used, missing = [], []
    for component in INT_INDEX:
        present = [t for t in component.tasks if t in scores]
        if not present:
            missing.append(component.name)
            continue
        if len(present) != len(component.tasks):
            raise ConfigError(f"{component.name} needs {' and '.join(component.tasks)}; only "
                              f"{', '.join(present)} found (half of a component is refused)")
        candidates = [m for m in (component.metric, component.fallback) if m]
        metric = next((m for m in candidates if all(m in scores[t] for t in present)), None)
        if metric is None:
            raise ConfigError(f"{component.name} needs one of {', '.join(candidates)} on every "
                              f"one of {', '.join(present)} (mixed metrics refused)")
        score = sum(scores[t][metric] for t in present) / len(present)
        used.append((component.name, metric, score,
                     normalise_score(score, component.chance), component.weight))
    if len(used) < 2:
        raise ConfigError(f"the Int Index needs at least two components; found "
                          f"{[u[0] for u in used] or 'none'}")
    denominator = sum(u[4] for u in used)
    value = sum(u[3] * u[4] for u in used) / denominator
    return IndexResult(value, denominator, used, missing)


def choose_metric(task_metrics: dict[str, float]) -> str | None:
    """The metric eval_avg uses: the first of METRIC_PREFERENCE present, else the
    alphabetically first non-diagnostic metric; None when there is none."""
    for name in METRIC_PREFERENCE:
        if name in task_metrics:
            return name
    usable = sorted(m for m in task_metrics if m not in DIAGNOSTICS)
    return usable[0] if usable else None


def eval_avg(scores: dict[str, dict[str, float]]) -> tuple[float | None, list, list[str]]:
    """(average percent or None, [(task, metric, percent)], skipped tasks)."""
    table, skipped = [], []
    for task in sorted(scores):
        metric = choose_metric(scores[task])
        if metric is None:
            skipped.append(task)
        else:
            table.append((task, metric, scores[task][metric]))
    average = sum(r[2] for r in table) / len(table) if table else None
    return average, table, skipped


def percents(results: dict[str, dict[str, tuple[float, int]]]) -> dict[str, dict[str, float]]:
    """Drop the row counts from `summarize`."""
    return {t: {m: v[0] for m, v in ms.items()} for t, ms in results.items()}


def merged(scores: Mapping[str, Mapping[str, float]], extra: Mapping[str, Mapping[str, float]]
           ) -> dict[str, dict[str, float]]:
    """`scores` with the `extra` {task: {metric: percent}} added (an extra metric wins)."""
    out = {task: dict(metrics) for task, metrics in scores.items()}
    for task, metrics in extra.items():
        out.setdefault(task, {}).update(metrics)
    return out


def _estimate(pooled: Pooled, composite: Any, extra: Mapping[str, Mapping[str, float]]
              ) -> Estimate:
    """`composite(scores)` over the pooled rows (and fixed `extra` scores) with a bootstrap
    interval resampling rows within each task; composite returns None where undefined."""
    columns = {task: sorted({m for row in rows for m in row}) for task, rows in pooled.items()}
    strata = {task: [[row.get(m, float("nan")) for m in columns[task]] for row in rows]
              for task, rows in pooled.items() if rows and columns[task]}

    def statistic(means: Mapping[str, Any]) -> float | None:
        scores = {task: {m: 100.0 * float(v) for m, v in zip(columns[task], means[task],
                                                             strict=True) if v == v}
                  for task in means}
        return composite(merged(scores, extra))

    return stratified_bootstrap(strata, statistic, label="tasks", digits=2)


def int_index_estimate(pooled: Pooled, extra: Mapping[str, Mapping[str, float]] | None = None
                       ) -> Estimate:
    """The Int Index of the pooled rows (plus `extra` scores from elsewhere, held fixed) with
    its stratified bootstrap interval.

    Raises:
        ConfigError: as `int_index` for the rows as given.
    """
    int_index(merged(percents(summarize(pooled)), extra or {}))  # raises with the reason

    def value(scores: dict[str, dict[str, float]]) -> float | None:
        try:
            return int_index(scores).value
        except ConfigError:
            return None

    return _estimate(pooled, value, extra or {})


def eval_avg_estimate(pooled: Pooled, extra: Mapping[str, Mapping[str, float]] | None = None
                      ) -> Estimate:
    """eval_avg of the pooled rows (plus `extra` scores from elsewhere, held fixed) with its
    stratified bootstrap interval (n/a when no task has a usable metric)."""
    return _estimate(pooled, lambda scores: eval_avg(scores)[0], extra or {})
