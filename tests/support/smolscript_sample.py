"""A stratified sample of a smolscript edition: the standing, suite-sized version of a run that
the full edition makes too long for the suite (the full runs live under benchmarks/).

`stratified_ids` picks tasks from every (language, modality, difficulty) stratum of the
edition, so that every language, every page kind (HTML, CSS, DOM) and every difficulty is in
the sample, tasks with a near-miss first (so that all three check kinds are sampled).
Pure: rows in, ids out; the same edition always gives the same sample.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any


def strata(rows: Iterable[Mapping[str, Any]]) -> dict[tuple[str, str, str], list[str]]:
    """Task ids by (language, modality, difficulty), in row order."""
    groups: dict[tuple[str, str, str], list[str]] = {}
    for row in rows:
        groups.setdefault((row["language"], row["modality"], row["difficulty"]), []).append(
            row["id"])
    return groups


def stratified_ids(rows: Iterable[Mapping[str, Any]], solutions: Mapping[str, Mapping[str, Any]],
                   per_stratum: int = 1) -> list[str]:
    """Up to `per_stratum` task ids of each (language, modality, difficulty) stratum of
    `rows` (public rows), those whose solutions (`solutions`: by task id, as in
    references/solutions.jsonl) have a near-miss first, then in row order; strata in order of
    first appearance. Raises ValueError when `per_stratum` < 1 or a row has no solutions."""
    if per_stratum < 1:
        raise ValueError(f"per_stratum must be at least 1, got {per_stratum}")
    picked = []
    for ids in strata(rows).values():
        missing = [task_id for task_id in ids if task_id not in solutions]
        if missing:
            raise ValueError(f"tasks without solutions: {missing[:5]}")
        ranked = sorted(ids, key=lambda task_id: not solutions[task_id].get("near_miss"))
        picked.extend(ranked[:per_stratum])
    return picked
