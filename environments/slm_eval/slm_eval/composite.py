"""The composites over saved runs: the Int Index and eval_avg.

Reads `vf-eval -s` result folders (their `results.jsonl`), pools the rows of each task (several
folders of one task, e.g. BFCL's categories, are merged; a row seen twice is an error) and takes
each metric's mean in percent. Only the metrics of the task's own kind count: an EnvGroup run
fills other tasks' columns with zeros.

Int Index (Open SLM Leaderboard): N(s, c) = 100 (s - c) / (100 - c); weighted mean of
N(HellaSwag acc_norm, 25), N(mean of ARC-Easy and ARC-Challenge acc_norm, 25), N(PIQA acc, 50)
and 0.65 N(ArithMark-3 acc, 25); a missing component leaves numerator and denominator.
eval_avg: plain mean of one metric per benchmark, chosen by a fixed preference order.
"""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

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


def read_results(folders: list[str | Path]) -> dict[str, dict[str, tuple[float, int]]]:
    """{task: {metric: (mean in percent, rows)}} pooled over the folders' results.jsonl.

    Raises:
        DataError: a folder has no results.jsonl, a row names no known task, or one row
            appears twice.
    """
    values: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    seen: set[tuple[str, str]] = set()
    for folder in folders:
        path = Path(folder)
        path = path if path.is_file() else path / "results.jsonl"
        if not path.is_file():
            raise DataError(f"{folder}: no results.jsonl (expected a `vf-eval -s` folder)")
        for number, line in enumerate(path.read_text().splitlines(), 1):
            if not line.strip():
                continue
            row = json.loads(line)
            info = row.get("info") or {}
            info = json.loads(info) if isinstance(info, str) else info
            task = info.get("benchmark")
            if task not in TASKS:
                raise DataError(f"{path}:{number}: row has no slm-eval task in its info")
            key = (task, str(info.get("id")), )
            if key in seen:
                raise DataError(f"{path}:{number}: {task} row {info.get('id')} appears twice "
                                "across the folders")
            seen.add(key)
            metrics = row.get("metrics") or {}
            for name in KIND_METRICS[TASKS[task].kind]:
                if name in metrics and metrics[name] is not None:
                    values[task][name].append(float(metrics[name]))
    return {task: {m: (100.0 * sum(v) / len(v), len(v)) for m, v in by_metric.items() if v}
            for task, by_metric in values.items()}


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
    """Drop the row counts from `read_results`."""
    return {t: {m: v[0] for m, v in ms.items()} for t, ms in results.items()}
