"""Write run reports (`model.RunReport`) as one static HTML page: the runs side by side, each
column headed by its model, endpoint, date, dataset version, behaviour version and run path,
then its headline figures (estimates with N, standard error, 95% interval and method), tables,
charts (inline SVG with real text: every bar labelled, the model named) and notes. No
scripts, no external resources: the file opens anywhere, offline."""

from __future__ import annotations

import html
from collections.abc import Sequence
from pathlib import Path

from .charts import svg
from .model import RunReport, Table, cell_text
from .text import header_rows, notes

_STYLE = """
body { font-family: system-ui, sans-serif; margin: 1.5rem; color: #222; }
h1 { font-size: 1.3rem; }
.runs { display: grid; grid-template-columns: repeat(var(--runs), minmax(24rem, 1fr));
        gap: 1.5rem; align-items: start; }
.run { border: 1px solid #ccc; border-radius: 6px; padding: 0.8rem; overflow-x: auto; }
.run h2 { font-size: 1.05rem; margin: 0 0 0.5rem; }
table { border-collapse: collapse; margin: 0.6rem 0; font-size: 0.82rem; }
caption { text-align: left; font-weight: 600; padding-bottom: 0.2rem; }
th, td { border: 1px solid #ddd; padding: 0.15rem 0.45rem; text-align: right; }
th:first-child, td:first-child { text-align: left; }
table.head th { background: #f4f4f4; font-weight: normal; }
table.head td { text-align: left; }
.chart { margin: 0.6rem 0; }
.chart svg { width: 100%; max-width: 44rem; height: auto; }
.note { color: #8a5a00; font-size: 0.82rem; }
"""


def _cells(tag: str, values: Sequence) -> str:
    return "".join(f"<{tag}>{html.escape(cell_text(v))}</{tag}>" for v in values)


def _table(table: Table) -> str:
    rows = "".join(f"<tr>{_cells('td', row)}</tr>" for row in table.rows)
    return (f"<table><caption>{html.escape(table.title)}</caption>"
            f"<thead><tr>{_cells('th', table.columns)}</tr></thead><tbody>{rows}</tbody></table>")


def _run(run: RunReport) -> str:
    head = "".join(f"<tr><th>{html.escape(k)}</th><td>{html.escape(v)}</td></tr>"
                   for k, v in header_rows(run))
    parts = [f"<section class=\"run\"><h2>{html.escape(run.header.env_id)}: "
             f"{html.escape(run.header.model)}</h2>",
             f"<table class=\"head\"><tbody>{head}</tbody></table>"]
    parts += [_table(t) for t in run.body.tables]
    parts += [f"<figure class=\"chart\">{svg(c, run.header.model)}</figure>"
              for c in run.body.charts]
    parts += [f"<p class=\"note\">{html.escape(n)}</p>" for n in notes(run)]
    return "".join(parts) + "</section>"


def render_page(runs: Sequence[RunReport], title: str = "smol-envs report") -> str:
    """The whole page as a string."""
    models = ", ".join(dict.fromkeys(r.header.model for r in runs))
    body = "".join(_run(r) for r in runs)
    return (f"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>{html.escape(title)}</title><style>{_STYLE}</style></head><body>"
            f"<h1>{html.escape(title)}: {len(runs)} run(s) of {html.escape(models)}</h1>"
            f"<div class=\"runs\" style=\"--runs: {max(len(runs), 1)}\">{body}</div>"
            "</body></html>\n")


def write_page(runs: Sequence[RunReport], path: str | Path) -> Path:
    """Write `render_page(runs)` to `path` (folders created); returns the path."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render_page(runs), encoding="utf-8")
    return path
