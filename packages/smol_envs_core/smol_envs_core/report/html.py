"""Write run reports (`model.RunReport`) as one static HTML page: a list of the runs, then
each run as a full-width section, one under the other (1 to 10 runs read alike; table
headers are never cut), headed by its model, endpoint, date, dataset version, behaviour
version and run path, then its headline figures (estimates with N, standard error, 95%
interval and method), tables, charts (inline SVG with real text: every bar labelled with its
value and N, 95% interval whiskers, warnings drawn on the chart, the model named) and notes.
No scripts, no external resources: the file opens anywhere, offline."""

from __future__ import annotations

import html
from collections.abc import Sequence
from pathlib import Path

from .charts import svg
from .model import RunReport, Table, cell_text
from .text import header_rows, notes

_STYLE = """
body { font-family: system-ui, sans-serif; margin: 1.5rem; color: #222; max-width: 96rem; }
h1 { font-size: 1.3rem; }
nav ol { margin: 0 0 1rem; padding-left: 1.4rem; font-size: 0.88rem; }
.runs { display: flex; flex-direction: column; gap: 1.5rem; }
.run { border: 1px solid #ccc; border-radius: 6px; padding: 0.8rem; }
.run h2 { font-size: 1.05rem; margin: 0 0 0.5rem; }
.tables, .charts { display: flex; flex-wrap: wrap; gap: 0 1.5rem; align-items: flex-start; }
.scroll { max-width: 100%; overflow-x: auto; }
table { border-collapse: collapse; margin: 0.6rem 0; font-size: 0.82rem; }
caption { text-align: left; font-weight: 600; padding-bottom: 0.2rem; }
th, td { border: 1px solid #ddd; padding: 0.15rem 0.45rem; text-align: right; }
th { white-space: nowrap; }
th:first-child, td:first-child { text-align: left; }
table.head th { background: #f4f4f4; font-weight: normal; }
table.head td { text-align: left; overflow-wrap: anywhere; }
.chart { margin: 0.6rem 0; max-width: 100%; }
.chart svg { max-width: 100%; height: auto; }
.note { color: #8a5a00; font-size: 0.82rem; }
"""


def _cells(tag: str, values: Sequence) -> str:
    return "".join(f"<{tag}>{html.escape(cell_text(v))}</{tag}>" for v in values)


def _table(table: Table) -> str:
    rows = "".join(f"<tr>{_cells('td', row)}</tr>" for row in table.rows)
    return (f"<div class=\"scroll\"><table><caption>{html.escape(table.title)}</caption>"
            f"<thead><tr>{_cells('th', table.columns)}</tr></thead><tbody>{rows}</tbody>"
            "</table></div>")


def _title(run: RunReport) -> str:
    return f"{run.header.env_id}: {run.header.model}"


def _run(index: int, run: RunReport) -> str:
    head = "".join(f"<tr><th>{html.escape(k)}</th><td>{html.escape(v)}</td></tr>"
                   for k, v in header_rows(run))
    tables = "".join(_table(t) for t in run.body.tables)
    charts = "".join(f"<figure class=\"chart\">{svg(c, run.header.model)}</figure>"
                     for c in run.body.charts)
    notes_html = "".join(f"<p class=\"note\">{html.escape(n)}</p>" for n in notes(run))
    return (f"<section class=\"run\" id=\"run-{index}\"><h2>{html.escape(_title(run))}</h2>"
            f"<table class=\"head\"><tbody>{head}</tbody></table>"
            f"<div class=\"tables\">{tables}</div><div class=\"charts\">{charts}</div>"
            f"{notes_html}</section>")


def render_page(runs: Sequence[RunReport], title: str = "smol-envs report") -> str:
    """The whole page as a string: a numbered list of the runs (links), then each run as a
    full-width section, one under the other, so that 1 to 10 runs read alike and no table
    header is cut."""
    models = ", ".join(dict.fromkeys(r.header.model for r in runs))
    contents = "".join(f"<li><a href=\"#run-{i}\">{html.escape(_title(r))}</a> "
                       f"({html.escape(r.header.date)})</li>" for i, r in enumerate(runs, 1))
    body = "".join(_run(i, r) for i, r in enumerate(runs, 1))
    return (f"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            f"<title>{html.escape(title)}</title><style>{_STYLE}</style></head><body>"
            f"<h1>{html.escape(title)}: {len(runs)} run(s) of {html.escape(models)}</h1>"
            f"<nav><ol>{contents}</ol></nav><div class=\"runs\">{body}</div>"
            "</body></html>\n")


def write_page(runs: Sequence[RunReport], path: str | Path) -> Path:
    """Write `render_page(runs)` to `path` (folders created); returns the path."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render_page(runs), encoding="utf-8")
    return path
