"""The leaderboard: models as rows, one column per benchmark headline, from the `Standing`s
that each run's report carries (`EnvReport.leaderboard`), plus the list of the runs behind it.

Deterministic for a given set of run folders: models sorted by name, columns by environment
then as the environment lists them, no dates; paths are shown relative to a base folder. One
run per model and column: a second one (another seed, say) is refused, naming both folders.
Pure.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ..env_ids import canonical_key
from .model import ReportError, RunReport, Standing


@dataclass(frozen=True)
class Entry:
    """One cell: the standing and the run it comes from."""

    standing: Standing
    run: RunReport


@dataclass(frozen=True)
class Leaderboard:
    """models: row labels (sorted); columns: in order; cells: {(model, column): Entry}."""

    models: tuple[str, ...]
    columns: tuple[str, ...]
    cells: dict[tuple[str, str], Entry]

    def methods(self) -> tuple[str, ...]:
        """The interval methods used, in the order cells are read (columns, then models)."""
        seen: dict[str, None] = {}
        for column in self.columns:
            for model in self.models:
                entry = self.cells.get((model, column))
                if entry is not None:
                    seen.setdefault(entry.standing.estimate.method)
        return tuple(seen)


def leaderboard(runs: Sequence[RunReport]) -> Leaderboard:
    """The leaderboard of the runs' standings.

    Raises:
        ReportError: two runs of one model give the same column (one line naming both).
    """
    cells: dict[tuple[str, str], Entry] = {}
    order: dict[tuple[str, int, str], None] = {}
    for run in runs:
        for index, standing in enumerate(run.body.leaderboard):
            key = (run.header.model, standing.column)
            if key in cells:
                raise ReportError(
                    f"two runs of {run.header.model} give the leaderboard column "
                    f"{standing.column!r}: {cells[key].run.header.path} and {run.header.path}; "
                    "keep one run per model and benchmark in the folders given (e.g. a second "
                    "seed elsewhere)")
            cells[key] = Entry(standing, run)
            order.setdefault((canonical_key(run.header.env_id), index, standing.column))
    columns = tuple(dict.fromkeys(column for *_, column in sorted(order)))
    models = tuple(sorted({model for model, _ in cells}, key=lambda m: (m.lower(), m)))
    return Leaderboard(models, columns, cells)


def relative(path: Path, base: Path | None) -> str:
    """`path` relative to `base` when it lies inside it (else as it is), with / separators."""
    if base is not None:
        try:
            return Path(os.path.relpath(path.resolve(), base.resolve())).as_posix()
        except ValueError:
            pass
    return path.as_posix()


def wall_time(seconds: float | None) -> str:
    """"42 s", "12.5 min", "1.6 h", or "n/a"."""
    if seconds is None:
        return "n/a"
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 7200:
        return f"{seconds / 60:.1f} min"
    return f"{seconds / 3600:.1f} h"
