"""Print run reports (`model.RunReport`) in the terminal with rich: per run a header (model,
endpoint, date, dataset version, coverage, behaviour version, run path, status), the headline
figures (each estimate with its N, standard error, 95% interval and method), the environment's
tables and its notes; and comparisons (`compare.Comparison`) the same way. `header_rows` is
shared with the HTML and Markdown pages."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .model import RunReport, Table, cell_text


def header_rows(run: RunReport) -> list[tuple[str, str]]:
    """The header every report opens with, then the headline figures, as (field, text)."""
    head = run.header
    rows = [("environment", head.env_id), ("model", head.model), ("endpoint", head.endpoint),
            ("started", head.date), ("ended", head.ended), ("command", head.command),
            ("machine", head.machine), ("dataset", run.body.dataset_version),
            ("coverage", run.body.coverage),
            ("behaviour version", head.behaviour_version), ("run", str(head.path)),
            ("status", run.body.status)]
    return rows + [(name, cell_text(value)) for name, value in run.body.headline]


def notes(run: RunReport) -> tuple[str, ...]:
    """The environment's notes, then the core's (skipped runs, mixed versions allowed)."""
    return (*run.body.notes, *run.skipped)


def _plain(value: Any) -> Any:
    """A cell as literal text: brackets in values ("[4.6, 69.9]", paths) are not rich markup."""
    from rich.text import Text

    return Text(cell_text(value))


def _table(table: Table) -> Any:
    from rich.table import Table as RichTable

    out = RichTable(title=_plain(table.title), title_justify="left")
    for index, column in enumerate(table.columns):
        out.add_column(_plain(column), justify="left" if index == 0 else "right")
    for row in table.rows:
        out.add_row(*map(_plain, row))
    return out


def _group(title: str, head_rows: Sequence[tuple[str, Any]], tables: Sequence[Table],
           remarks: Sequence[str]) -> Any:
    """A rich Group: a titled two-column header, the tables, then the notes."""
    from rich.console import Group
    from rich.markup import escape
    from rich.table import Table as RichTable

    head = RichTable(show_header=False, box=None, title_justify="left", title_style="bold",
                     title=_plain(title))
    head.add_column(style="dim")
    head.add_column(overflow="fold")
    for name, value in head_rows:
        head.add_row(_plain(name), _plain(value))
    parts: list[Any] = [head, *(_table(t) for t in tables)]
    parts += [f"[yellow]note:[/yellow] {escape(note)}" for note in remarks]
    return Group(*parts, "")


def renderable(run: RunReport) -> Any:
    """A rich Group for one run: header and headline, tables, notes."""
    return _group(f"{run.header.env_id}: {run.header.model}", header_rows(run),
                  run.body.tables, notes(run))


def print_reports(runs: Sequence[RunReport], console: Any | None = None) -> None:
    """Print every run's report, one after the other (to `console`, default a new rich
    Console on stdout)."""
    from rich.console import Console

    console = console or Console()
    for run in runs:
        console.print(renderable(run))


def print_comparison(comparison: Any, console: Any | None = None) -> None:
    """Print a `compare.Comparison`: its header (runs, rows paired and unmatched, verdict),
    its tables (`compare_tables.tables`) and notes."""
    from rich.console import Console

    from . import compare_tables

    (console or Console()).print(_group(
        f"compare: {comparison.env_id}", compare_tables.header_rows(comparison),
        compare_tables.tables(comparison), compare_tables.notes(comparison)))
