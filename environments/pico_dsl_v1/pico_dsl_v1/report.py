"""pico-dsl-v1's report hook for `smol-envs report`: exact match (x100) per slice x complexity
level, with the number of rows in each cell, and the headline diagnostics with their intervals
(Wilson for the 0/1 exact_match and format_valid, t for the graded avg_line_similarity).

Takes the core results model (`smol_envs_core.report.Results`); every row must carry its
`slice` and `complexity_level` (in `info`) and the metrics the table shows, else the run is
refused. Pure apart from hashing the packaged benchmark file (the dataset version).
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Mapping, Sequence
from importlib import resources
from typing import Any

from smol_envs_core.report import (
    Bars,
    EnvReport,
    Results,
    Row,
    Table,
    binary,
    fmt,
    mean,
    mean_score,
)

from .data import BENCHMARK_FILE
from .errors import DataError
from .spec import LEVELS, SLICES

# Headline metrics and their intervals: 0/1 outcomes (Wilson) and a graded mean (t).
SHOWN_METRICS = {"exact_match": binary, "format_valid": binary, "avg_line_similarity": mean_score}
HINT = " (not a pico-dsl-v1 run?)"


def cells(rows: Sequence[Row]) -> dict[tuple[str, str], list]:
    """{(slice, level): [exact_match, ...]} over the rows. Raises DataError naming the line when
    a row has no slice/level, ResultsError when it has no exact_match."""
    out: dict[tuple[str, str], list[float]] = defaultdict(list)
    for row in rows:
        key = (row.info.get("slice"), row.info.get("complexity_level"))
        if key[0] not in SLICES or key[1] not in LEVELS:
            raise DataError(f"{row.where}: no pico-dsl-v1 slice/complexity_level in info")
        out[key].append(row.metric("exact_match", HINT))
    return out


def slice_level_table(by_cell: Mapping[tuple[str, str], Sequence[float]]) -> Table:
    """Rows: slices present, then "all"; columns: levels present, then "all". Each cell is
    "exact match x100 (n)"."""
    slices = [s for s in SLICES if any(k[0] == s for k in by_cell)]
    levels = [lv for lv in LEVELS if any(k[1] == lv for k in by_cell)]

    def cell(values: Sequence[float]) -> str:
        return f"{fmt(100 * mean(values))} ({len(values)})" if values else "-"

    def pooled(select) -> list[float]:
        return [v for key, values in by_cell.items() if select(key) for v in values]

    rows = [(s, *(cell(by_cell.get((s, lv), [])) for lv in levels),
             cell(pooled(lambda k, s=s: k[0] == s))) for s in slices]
    rows.append(("all", *(cell(pooled(lambda k, lv=lv: k[1] == lv)) for lv in levels),
                 cell(pooled(lambda k: True))))
    return Table("exact match x100 (rows) by slice x level", ("slice", *levels, "all"),
                 tuple(rows))


def dataset_version(env_args: Mapping[str, Any]) -> str:
    """The packaged benchmark's sha256 prefix, or the generated mode's settings."""
    if env_args.get("dataset_mode", "fixed") == "generated":
        shown = {k: env_args[k] for k in ("difficulty", "seed") if k in env_args}
        return f"generated rows {shown or '(defaults)'}"
    data = resources.files("pico_dsl_v1").joinpath("data", BENCHMARK_FILE).read_bytes()
    return f"fixed benchmark {BENCHMARK_FILE}, sha256 {hashlib.sha256(data).hexdigest()[:12]}"


def report_hook(results: Results) -> EnvReport:
    """The `smol_envs.report` hook: the slice x level table, a per-slice chart and the headline
    metrics x100 with N, standard error and 95% interval.

    Raises DataError (a ValueError) when a row lacks its slice/level, ResultsError when it
    lacks a metric.
    """
    by_cell = cells(results.rows)
    estimates = {name: estimate([r.metric(name, HINT) for r in results.rows])
                 for name, estimate in SHOWN_METRICS.items()}
    table = slice_level_table(by_cell)
    slices = [row[0] for row in table.rows[:-1]]
    per_slice = tuple(100 * mean([v for k, vs in by_cell.items() if k[0] == s for v in vs])
                      for s in slices)
    chart = Bars("exact match by slice", tuple(slices), (("exact match", per_slice),),
                 "exact match x100")
    return EnvReport(
        dataset_version=dataset_version(results.env_args),
        status=f"{len(results.rows)} rollouts",
        headline=tuple((f"{name} x100", value) for name, value in estimates.items()),
        tables=(table,), charts=(chart,))
