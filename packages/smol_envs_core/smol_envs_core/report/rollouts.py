"""Rollouts nested in examples: the one statistical unit every report, comparison and composite
uses.

A run with several rollouts per example (`vf-eval -r 3`, several samples per task) does not hold
three times as many independent observations: the rollouts of one example share its difficulty.
Treating them as independent rows makes N too large and intervals too narrow. Every tool here
therefore counts *examples*: `by_example` collapses the rollouts of each example into one row
whose metrics are the rollouts' means, so that N is the number of examples and a t interval over
the per-example means is the cluster-robust interval for equal cluster sizes (the practice of
inspect_ai's and lm-evaluation-harness's repeated-sample standard errors; Miller 2024, "Adding
Error Bars to Evals", arXiv:2411.00640, on clustered standard errors and resampled answers).

The rollouts themselves stay on the collapsed row (`Row.rollouts`) for the figures that need
them, pass@k first (`statistics.pass_at_k`). Pure; no files.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from .model import Results, Row


def example_key(row: Row) -> str | None:
    """The example a rollout belongs to: vf-eval's `example_id`, else the row's `info["id"]`;
    None when the row names neither (then it counts as an example of its own)."""
    for value in (row.raw.get("example_id"), row.info.get("id")):
        if value is not None and not isinstance(value, bool):
            return str(value)
    return None


def _mean_metrics(rollouts: Sequence[Row]) -> dict[str, Any]:
    """Each metric the rollouts carry as a number, averaged over the rollouts that carry it;
    non-numeric values are taken from the first rollout."""
    numbers: dict[str, list[float]] = defaultdict(list)
    for rollout in rollouts:
        for name in rollout.metrics:
            value = rollout.optional_metric(name)
            if value is not None:
                numbers[name].append(value)
    out: dict[str, Any] = dict(rollouts[0].metrics)
    out.update({name: sum(v) / len(v) for name, v in numbers.items()})
    return out


def group_rollouts(rows: Sequence[Row]) -> list[tuple[Row, ...]]:
    """The rows grouped by `example_key`, in the order each example first appears; rows
    without a key are groups of one."""
    groups: dict[Any, list[Row]] = {}
    for index, row in enumerate(rows):
        key = example_key(row)
        groups.setdefault(("key", key) if key is not None else ("row", index), []).append(row)
    return [tuple(group) for group in groups.values()]


def collapse(rollouts: Sequence[Row]) -> Row:
    """One row for one example: the first rollout's info and raw record, each numeric metric
    averaged over the rollouts, and the rollouts kept in `Row.rollouts` (a single rollout is
    returned as it is).

    Raises:
        ValueError: no rollouts.
    """
    if not rollouts:
        raise ValueError("an example needs at least one rollout")
    if len(rollouts) == 1:
        return rollouts[0]
    first = rollouts[0]
    return replace(first, metrics=_mean_metrics(rollouts), rollouts=tuple(rollouts))


def rollouts_per_example(results: Results) -> Mapping[int, int]:
    """{rollouts: examples with that many} over the run's rows, e.g. {3: 40} for `-r 3` on 40
    examples."""
    counts: dict[int, int] = defaultdict(int)
    for group in group_rollouts(results.rows):
        counts[len(group)] += 1
    return dict(counts)


def by_example(results: Results) -> Results:
    """These results with one row per example (`collapse` of its rollouts); the same results
    when every example has one rollout."""
    groups = group_rollouts(results.rows)
    if all(len(group) == 1 for group in groups):
        return results
    return replace(results, rows=tuple(collapse(group) for group in groups))


def rollouts_note(results: Results) -> str | None:
    """One line saying how rollouts were counted, or None for one rollout per example."""
    counts = rollouts_per_example(results)
    if set(counts) <= {1}:
        return None
    shape = ", ".join(f"{n} with {r}" for r, n in sorted(counts.items()))
    examples = sum(counts.values())
    return (f"N counts examples, not rollouts: {examples} examples ({shape} rollouts); each "
            "figure averages an example's rollouts first, so its interval is over examples "
            "(rollouts of one example are not independent)")
