"""Print run reports (`runreport.RunReport`) in the terminal with rich: per run a header (model,
endpoint, date, dataset version, run path, status), the headline figures, the environment's
tables and its notes."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .runreport import RunReport, Table


def header_rows(run: RunReport) -> list[tuple[str, str]]:
    """The header every report opens with, as (field, value) pairs."""
    head = run.header
    return [("environment", head.env_id), ("model", head.model), ("endpoint", head.endpoint),
            ("date", head.date), ("dataset", run.body.dataset_version),
            ("run", str(head.path)), ("status", run.body.status)]


def _table(table: Table) -> Any:
    from rich.table import Table as RichTable

    out = RichTable(title=table.title, title_justify="left")
    for index, column in enumerate(table.columns):
        out.add_column(column, justify="left" if index == 0 else "right")
    for row in table.rows:
        out.add_row(*row)
    return out


def renderable(run: RunReport) -> Any:
    """A rich Group for one run."""
    from rich.console import Group
    from rich.table import Table as RichTable

    head = RichTable(show_header=False, box=None, title=f"{run.header.env_id}: {run.header.model}",
                     title_justify="left", title_style="bold")
    head.add_column(style="dim")
    head.add_column(overflow="fold")
    for name, value in header_rows(run) + list(run.body.headline):
        head.add_row(name, value)
    parts: list[Any] = [head, *(_table(t) for t in run.body.tables)]
    parts += [f"[yellow]note:[/yellow] {note}" for note in (*run.body.notes, *run.skipped)]
    return Group(*parts, "")


def print_reports(runs: Sequence[RunReport], console: Any | None = None) -> None:
    """Print every run's report, one after the other."""
    from rich.console import Console

    console = console or Console()
    for run in runs:
        console.print(renderable(run))
