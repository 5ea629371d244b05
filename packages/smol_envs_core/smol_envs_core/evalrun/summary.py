"""The table a `smol-envs eval` run ends with: one line per headline figure of the run set,
with its N, standard error, 95% interval and coverage, read back through `smol-envs report`'s
own pipeline (so the table says what the report says)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from ..report import FULL_BENCHMARK, report_runs
from ..report.model import RunReport


def summary_rows(reports: Sequence[RunReport]) -> list[tuple[str, str, str]]:
    """(column, figure with interval and N, coverage and caveats) per leaderboard standing of
    `reports`, in run order. Pure."""
    rows = []
    for report in reports:
        for standing in report.body.leaderboard:
            notes = [standing.subset or FULL_BENCHMARK]
            if standing.caveat:
                notes.append(standing.caveat)
            rows.append((standing.column, standing.estimate.text(), "; ".join(notes)))
    return rows


def print_summary(run_set: Path, title: str) -> list[tuple[str, str, str]]:
    """Read the run set (every run folder under it) and print the summary table; return its
    rows. Raises ReportError when a run cannot be read."""
    from rich.console import Console
    from rich.table import Table

    folders = sorted(p.parent for p in Path(run_set).glob("*/results.jsonl")
                     if not p.parent.name.startswith("."))
    rows = summary_rows(report_runs(folders)) if folders else []
    table = Table(title=title, show_lines=False)
    for name in ("benchmark", "value ± s.e. (95% CI, method, N)", "coverage"):
        table.add_column(name, overflow="fold")
    for row in rows:
        table.add_row(*row)
    Console(width=160).print(table)
    return rows
