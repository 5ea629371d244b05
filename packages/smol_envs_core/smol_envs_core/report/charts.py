"""Draw a report's bar charts (`model.Bars`) with matplotlib, headless: every bar carries its
value (or "n/a") and every chart names the model in its title. Output: an SVG string with real
text (`svg`), which the HTML page embeds, or a PNG (`png`) for the environments' commands.
Matplotlib is imported only while drawing, with its own warnings and log messages kept quiet."""

from __future__ import annotations

import contextlib
import io
import logging
import math
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from .model import Bars


@contextlib.contextmanager
def quiet_matplotlib() -> Iterator[Any]:
    """Import matplotlib headless (Agg) and yield pyplot, with its warnings and log messages
    (the first run's "building the font cache", layout and glyph warnings) kept out of the
    report's output: a chart is a by-product, its drawing notes are not the user's business."""
    logger = logging.getLogger("matplotlib")
    level = logger.level
    logger.setLevel(logging.ERROR)
    try:
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", module="matplotlib")
            warnings.filterwarnings("ignore", category=UserWarning, message=".*(layout|Glyph)")
            import matplotlib

            matplotlib.use("Agg")
            import matplotlib.pyplot as plt

            yield plt
    finally:
        logger.setLevel(level)


@contextlib.contextmanager
def figure(path: str | Path, figsize: tuple[float, float], dpi: int = 100) -> Iterator[Any]:
    """Yield the axes of a new headless (Agg) matplotlib figure; on exit lay it out, write it
    to `path` as PNG (folders created) and close it. Matplotlib's own warnings stay quiet."""
    with quiet_matplotlib() as plt:
        fig, ax = plt.subplots(figsize=figsize, dpi=dpi)
        try:
            yield ax
            fig.tight_layout()
            Path(path).parent.mkdir(parents=True, exist_ok=True)
            fig.savefig(Path(path), dpi=dpi)
        finally:
            plt.close(fig)


_COLOURS = ("#4c72b0", "#dd8452", "#55a868", "#c44e52", "#8172b3")


def chart_title(bars: Bars, model: str | None) -> str:
    """The chart's title: its own title and the model it measures (when known)."""
    return f"{bars.title}\nmodel: {model}" if model else bars.title


def draw(ax: Any, bars: Bars, model: str | None) -> None:
    """Draw grouped vertical bars on `ax`: one group per label, one bar per series, each bar
    labelled with its value (one decimal) or n/a."""
    count = max(len(bars.series), 1)
    width = 0.8 / count
    positions = range(len(bars.labels))
    for index, (name, values) in enumerate(bars.series):
        offset = (index - (count - 1) / 2) * width
        heights = [0.0 if v is None or math.isnan(v) else v for v in values]
        drawn = ax.bar([x + offset for x in positions], heights, width=width, label=name,
                       color=_COLOURS[index % len(_COLOURS)])
        texts = ["n/a" if v is None or math.isnan(v) else f"{v:.1f}" for v in values]
        crowded = len(bars.labels) * count > 12  # upright labels would overlap
        ax.bar_label(drawn, labels=texts, fontsize=7, padding=1, rotation=90 if crowded else 0)
    ax.set_xticks(list(positions), list(bars.labels), rotation=30 if len(bars.labels) > 5 else 0,
                  ha="right" if len(bars.labels) > 5 else "center", fontsize=8)
    top = bars.limit
    if top is None:
        finite = [v for _, values in bars.series for v in values
                  if v is not None and not math.isnan(v)]
        top = max(finite, default=1.0) or 1.0
    ax.set_ylim(0, top * 1.18)
    ax.set_ylabel(bars.unit, fontsize=8)
    ax.set_title(chart_title(bars, model), fontsize=9)
    if len(bars.series) > 1:
        ax.legend(fontsize=7, frameon=False)


def svg(bars: Bars, model: str) -> str:
    """The chart as an SVG document string; text stays text (svg.fonttype none). Matplotlib's
    own warnings stay quiet (`quiet_matplotlib`)."""
    with quiet_matplotlib() as plt:
        import matplotlib

        bars_drawn = len(bars.labels) * max(len(bars.series), 1)
        with matplotlib.rc_context({"svg.fonttype": "none"}):
            fig, ax = plt.subplots(figsize=(min(7.5, max(4.5, 0.45 * bars_drawn + 1.5)), 3.6),
                                   dpi=100)
            try:
                draw(ax, bars, model)
                fig.tight_layout()
                out = io.StringIO()
                fig.savefig(out, format="svg")
            finally:
                plt.close(fig)
    text = out.getvalue()
    return text[text.index("<svg"):]


def png(bars: Bars, path: str | Path, model: str | None = None,
        figsize: tuple[float, float] = (9, 4.5)) -> Path:
    """Write `bars` as a PNG bar chart naming `model` (folders created); returns the path."""
    path = Path(path)
    with figure(path, figsize) as ax:
        draw(ax, bars, model)
    return path
