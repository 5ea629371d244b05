"""pico-dsl-v1's hooks for `smol-envs report` and `smol-envs compare`.

`report_hook`: exact match (x100) per slice x complexity level, with the number of rows in each
cell, the headline diagnostics with their intervals (Wilson for the 0/1 exact_match and
format_valid, t for the graded avg_line_similarity), what part of the 480-row benchmark the run
covers, and its leaderboard cell. `compare_hook`: the rows as `compare` pairs them (key: the
row id; gold: the four target lines), exact_match the headline, per slice and per level.

Takes the core results model (`smol_envs_core.report.Results`); every row must carry its
`slice` and `complexity_level` (in `info`) and the metrics the table shows, else the run is
refused. Pure apart from reading the packaged benchmark file (its hash and size).
"""

from __future__ import annotations

import hashlib
import json
from collections import defaultdict
from collections.abc import Mapping, Sequence
from importlib import resources
from typing import Any

from smol_envs_core.report import (
    Bars,
    EnvReport,
    Results,
    Row,
    Standing,
    Table,
    describe,
    fmt,
    mean,
    mean_score,
)
from smol_envs_core.report.compare import Breakdown, Measure, Outcome, PairedView
from smol_envs_core.report.coverage import subset_label

from .data import BENCHMARK_FILE
from .errors import DataError
from .spec import LEVELS, SLICES

# Headline metrics and their intervals: 0/1 outcomes (Wilson) and a graded mean (t).
# `describe` is Wilson for 0/1 outcomes and t once rollouts of an example are averaged.
SHOWN_METRICS = {"exact_match": describe, "format_valid": describe,
                 "avg_line_similarity": mean_score}
HINT = " (not a pico-dsl-v1 run?)"


def slice_of(info: Mapping[str, Any]) -> Any:
    """A row's slice: `slice` in a classic results row, `slice_name` in a v1 task's data (a
    verifiers 0.4 trace). Pure."""
    return info.get("slice", info.get("slice_name"))


def cells(rows: Sequence[Row]) -> dict[tuple[str, str], list]:
    """{(slice, level): [exact_match, ...]} over the rows. Raises DataError naming the line when
    a row has no slice/level, ResultsError when it has no exact_match."""
    out: dict[tuple[str, str], list[float]] = defaultdict(list)
    for row in rows:
        key = (slice_of(row.info), row.info.get("complexity_level"))
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


def _benchmark() -> bytes:
    return resources.files("pico_dsl_v1").joinpath("data", BENCHMARK_FILE).read_bytes()


def dataset_version(env_args: Mapping[str, Any]) -> str:
    """The packaged benchmark's sha256 prefix, or the generated mode's settings."""
    if env_args.get("dataset_mode", "fixed") == "generated":
        shown = {k: env_args[k] for k in ("difficulty", "seed") if k in env_args}
        return f"generated rows {shown or '(defaults)'}"
    digest = hashlib.sha256(_benchmark()).hexdigest()
    return f"fixed benchmark {BENCHMARK_FILE}, sha256 {digest[:12]}"


def coverage(results: Results) -> str | None:
    """None for a run of the whole 480-row fixed benchmark, else what it covers: generated
    rows (never the benchmark), one slice, or the first N rows of the round-robin order."""
    args = results.env_args
    n = len({str(r.info.get("id")) for r in results.rows})
    if args.get("dataset_mode", "fixed") == "generated":
        return f"{n} generated rows (not the fixed benchmark)"
    rows = [json.loads(line) for line in _benchmark().decode().splitlines() if line.strip()]
    chosen = args.get("slice", "mixed")
    if chosen == "mixed":
        return subset_label(n, len(rows), results.metadata)
    in_slice = sum(1 for row in rows if row["slice"] == chosen)
    return subset_label(n, in_slice, results.metadata, prefix=f"slice {chosen} only: ")


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
    per_slice = tuple(describe([v for k, vs in by_cell.items() if k[0] == s for v in vs])
                      for s in slices)
    subset = coverage(results)
    chart = Bars("exact match by slice", tuple(slices), (("exact match", per_slice),),
                 "exact match x100", warning=subset and f"subset: {subset}")
    return EnvReport(
        dataset_version=dataset_version(results.env_args),
        status=f"{len(results.rows)} examples",
        headline=tuple((f"{name} x100", value) for name, value in estimates.items()),
        tables=(table,), charts=(chart,), subset=subset,
        leaderboard=(Standing("pico-dsl-v1 exact_match", estimates["exact_match"], subset),))


EXACT = Measure("exact_match x100", "exact_match")


def compare_hook(results: Results) -> PairedView:
    """The `smol_envs.compare` hook: every row keyed by its id, with its exact_match,
    format_valid and avg_line_similarity, its slice and level, and its target lines as gold;
    exact_match is the headline, broken down per slice and per level.

    Raises DataError when a row lacks its slice/level, ResultsError when it lacks a metric.
    """
    cells(results.rows)  # refuses rows without slice/level or exact_match
    outcomes = tuple(
        Outcome(key=str(row.info.get("id")),
                values={name: row.metric(name, HINT) for name in SHOWN_METRICS},
                groups={"slice": str(slice_of(row.info)),
                        "level": str(row.info["complexity_level"])},
                gold="\n".join(row.info.get("target_lines") or []) or row.raw.get("answer"))
        for row in results.rows)
    return PairedView(
        dataset=dataset_version(results.env_args), outcomes=outcomes, headline=EXACT,
        flip_metric="exact_match",
        measures=(Measure("format_valid x100", "format_valid"),
                  Measure("avg_line_similarity x100", "avg_line_similarity")),
        breakdowns=(Breakdown("slice", EXACT), Breakdown("level", EXACT)))
