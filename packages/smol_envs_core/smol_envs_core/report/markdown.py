"""Render reports as Markdown: each run's header, headline figures, tables and notes (the same
content as the terminal and HTML reports; charts are left to the HTML page), the leaderboard
when the runs span several models, a comparison (`compare.Comparison`), and the README's
leaderboard block between `<!-- leaderboard:start -->` and `<!-- leaderboard:end -->`.

The leaderboard block is deterministic (no dates; paths relative to a base folder), so a test
can compare a README with what the command renders. Pure: strings in, strings out.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

from . import compare_tables
from .compare import Comparison
from .leaderboard import Leaderboard, leaderboard, relative, wall_time
from .model import Cell, Estimate, ReportError, RunReport, Table, cell_text
from .text import header_rows, notes

START = "<!-- leaderboard:start -->"
END = "<!-- leaderboard:end -->"
REGENERATE = ("uv run smol-envs report results/baselines --allow-mixed-versions "
              "--update-readme README.md")
# The short method names of `statistics`, spelled out in the leaderboard's footnote.
METHOD_NAMES = {"Wilson": "Wilson score interval", "t": "Student's t interval"}


def escape(text: str) -> str:
    """A table cell's text: pipes escaped, line breaks as spaces."""
    return " ".join(text.replace("\\", "\\\\").replace("|", "\\|").split())


def table(columns: Sequence[Cell], rows: Sequence[Sequence[Cell]], numbers: bool = True) -> str:
    """A GitHub-flavoured Markdown table: the first column left-aligned, the others right
    (`numbers`) or left."""
    def line(cells: Sequence[Cell]) -> str:
        return "| " + " | ".join(escape(cell_text(c)) for c in cells) + " |"

    rest = "---:" if numbers else ":---"
    rule = "| " + " | ".join([":---"] + [rest] * (len(columns) - 1)) + " |"
    return "\n".join([line(columns), rule, *(line(r) for r in rows)])


def _table(t: Table) -> str:
    return f"**{escape(t.title)}**\n\n{table(t.columns, t.rows)}"


def run_markdown(run: RunReport) -> str:
    """One run: a heading, the header and headline as a two-column table, the environment's
    tables and the notes."""
    parts = [f"## {escape(run.header.env_id)}: {escape(run.header.model)}",
             table(("field", "value"), header_rows(run), numbers=False)]
    parts += [_table(t) for t in run.body.tables]
    parts += [f"> note: {escape(n)}" for n in notes(run)]
    return "\n\n".join(parts)


def _figure(e: Estimate) -> str:
    d = e.digits

    def num(x: float) -> str:
        return "n/a" if math.isnan(x) else f"{x:.{d}f}"

    if math.isnan(e.value):
        return f"n/a (N={e.n})"
    return f"{num(e.value)} ± {num(e.stderr)} [{num(e.low)}, {num(e.high)}] N={e.n}"


def leaderboard_markdown(board: Leaderboard, base: Path | None = None) -> str:
    """The leaderboard table (each cell: value ± standard error [95% interval] N, then the
    subset label and caveat when there is one), the footnotes naming each interval method
    once, and the table of the runs behind it (coverage, N, wall time, run folder relative to
    `base`)."""
    methods = board.methods()
    marks = {m: f"[{i + 1}]" for i, m in enumerate(methods)}
    header: list[str] = ["model"]
    uniform: dict[str, str | None] = {}
    for column in board.columns:
        used = {board.cells[(m, column)].standing.estimate.method for m in board.models
                if (m, column) in board.cells}
        uniform[column] = next(iter(used)) if len(used) == 1 else None
        header.append(column + (f" {marks[uniform[column]]}" if uniform[column] else ""))
    rows = []
    for model in board.models:
        row = [model]
        for column in board.columns:
            entry = board.cells.get((model, column))
            if entry is None:
                row.append("-")
                continue
            s = entry.standing
            text = _figure(s.estimate)
            if uniform[column] is None:
                text += f" {marks[s.estimate.method]}"
            text += "".join(f"; {label}" for label in (s.subset, s.caveat) if label)
            row.append(text)
        rows.append(row)
    footnotes = "95% intervals: " + " · ".join(f"{marks[m]} {METHOD_NAMES.get(m, m)}"
                                              for m in methods) + \
        ". Cells: value ± standard error [95% interval] N; a subset is labelled, never the " \
        "benchmark's score."
    runs = []
    for model in board.models:
        for column in board.columns:
            entry = board.cells.get((model, column))
            if entry is not None:
                runs.append((model, column, entry.standing.subset or "full benchmark",
                             str(entry.standing.estimate.n),
                             wall_time(entry.run.header.wall_time_s),
                             relative(entry.run.header.path, base)))
    listing = table(("model", "column", "coverage", "N", "wall time", "run"), runs,
                    numbers=False)
    return "\n\n".join([table(header, rows, numbers=False), footnotes, listing])


def reports_markdown(runs: Sequence[RunReport], base: Path | None = None) -> str:
    """The whole Markdown report: every run, then the leaderboard when the runs span several
    models (ReportError when two runs of one model give one column)."""
    parts = ["# smol-envs report", *(run_markdown(r) for r in runs)]
    if len({r.header.model for r in runs}) > 1:
        parts += ["## Leaderboard", leaderboard_markdown(leaderboard(runs), base)]
    return "\n\n".join(parts) + "\n"


def readme_block(runs: Sequence[RunReport], base: Path | None = None) -> str:
    """What goes between the README's markers: a line saying how it is made, then the
    leaderboard (rendered even for one model), then one note per environment whose runs mix
    behaviour versions (allowed by the command's --allow-mixed-versions)."""
    allowed = [note for run in runs for note in run.skipped
               if note.startswith("mixed behaviour versions allowed")]
    prefix = f"{Path(base).resolve()}/" if base is not None else None  # paths as the table's
    shown = "".join(f"\n> note: {escape(note.replace(prefix, '') if prefix else note)}\n"
                    for note in allowed)
    return (f"<!-- generated by `{REGENERATE}`; do not edit by hand -->\n\n"
            f"{leaderboard_markdown(leaderboard(runs), base)}\n{shown}")


def split_readme(text: str) -> tuple[str, str, str]:
    """(before and including the start marker, the block, the end marker and after).

    Raises:
        ReportError: the markers are missing, repeated or out of order.
    """
    if text.count(START) != 1 or text.count(END) != 1 or text.index(START) > text.index(END):
        raise ReportError(f"the README needs one {START} line before one {END} line")
    head, rest = text.split(START, 1)
    block, tail = rest.split(END, 1)
    return head + START, block, END + tail


def update_readme(path: str | Path, runs: Sequence[RunReport]) -> Path:
    """Rewrite the leaderboard block of the README at `path` (paths relative to its folder).

    Raises:
        ReportError: no markers (see `split_readme`); OSError: unreadable or unwritable file.
    """
    path = Path(path)
    head, _old, tail = split_readme(path.read_text(encoding="utf-8"))
    path.write_text(f"{head}\n{readme_block(runs, path.parent)}{tail}", encoding="utf-8")
    return path


def comparison_markdown(c: Comparison) -> str:
    """A comparison: heading, the header (runs, rows paired and unmatched, verdict), the
    figures, breakdown and flipped-row tables, and the notes."""
    parts = [f"## compare: {escape(c.env_id)}", f"**{escape(c.verdict)}**",
             table(("field", "value"), compare_tables.header_rows(c), numbers=False)]
    parts += [_table(t) for t in compare_tables.tables(c)]
    parts += [f"> note: {escape(n)}" for n in compare_tables.notes(c)]
    return "\n\n".join(parts) + "\n"
