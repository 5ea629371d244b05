"""pico-dsl-v1's report hook for `smol-envs report`: exact match (x100) per slice x complexity
level, with the number of rows in each cell, and the headline diagnostics.

Reads a `vf-eval -s` run through the core results reader; every row must carry its `slice` and
`complexity_level` (in `info`) and the metrics the table shows, else the run is refused. Pure
apart from hashing the packaged benchmark file (the dataset version).
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Mapping, Sequence
from importlib import resources
from typing import Any

from smol_envs_core.report import fmt, mean
from smol_envs_core.results import Results, row_info
from smol_envs_core.runreport import Bars, EnvReport, Table

from .data import BENCHMARK_FILE
from .errors import DataError
from .spec import LEVELS, SLICES

SHOWN_METRICS = ("exact_match", "format_valid", "avg_line_similarity")


def _metric(row: Mapping[str, Any], name: str, line: int) -> float:
    value = (row.get("metrics") or {}).get(name, row.get(name))
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise DataError(f"results line {line}: metric {name!r} missing (not a pico-dsl-v1 run?)")
    return float(value)


def cells(rows: Sequence[Mapping[str, Any]], lines: Sequence[int]) -> dict[tuple[str, str], list]:
    """{(slice, level): [exact_match, ...]} over the rows. Raises DataError naming the line when
    a row has no slice/level or no exact_match."""
    out: dict[tuple[str, str], list[float]] = defaultdict(list)
    for row, line in zip(rows, lines, strict=True):
        info = row_info(row)
        key = (info.get("slice"), info.get("complexity_level"))
        if key[0] not in SLICES or key[1] not in LEVELS:
            raise DataError(f"results line {line}: no pico-dsl-v1 slice/complexity_level in info")
        out[key].append(_metric(row, "exact_match", line))
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
    """The `smol_envs.report` hook: the slice x level table and a per-slice chart.

    Raises DataError (a ValueError) when a row lacks what the table needs.
    """
    by_cell = cells(results.rows, results.lines)
    averages = {name: 100 * mean([_metric(r, name, n) for r, n in
                                  zip(results.rows, results.lines, strict=True)])
                for name in SHOWN_METRICS}
    table = slice_level_table(by_cell)
    slices = [row[0] for row in table.rows[:-1]]
    per_slice = tuple(100 * mean([v for k, vs in by_cell.items() if k[0] == s for v in vs])
                      for s in slices)
    chart = Bars("exact match by slice", tuple(slices), (("exact match", per_slice),),
                 "exact match x100")
    env_args = results.metadata.get("env_args") or {}
    return EnvReport(
        dataset_version=dataset_version(env_args),
        status=f"{len(results.rows)} rollouts",
        headline=tuple((f"{name} x100", fmt(value)) for name, value in averages.items()),
        tables=(table,), charts=(chart,))
