"""Draw a report's bar charts (`model.Bars`) with matplotlib, headless: every bar carries its
value (or "n/a") and its N, 95% interval whiskers where the hook gave an `Estimate`, and is
hatched where it rests on one row or has no interval; a chart's validity warning is drawn on
the picture itself, and every chart names the model in its title. Output: an SVG string with real
text (`svg`), which the HTML page embeds, or a PNG (`png`) for the environments' commands.
Matplotlib is imported only while drawing, with its own warnings and log messages kept quiet."""

from __future__ import annotations

import contextlib
import io
import logging
import math
import textwrap
import warnings
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from .model import Bars, BarValue, bar_estimate, bar_height, bar_is_weak


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
_WARNING_COLOUR = "#8a5a00"
WEAK_NOTE = "hatched, pale: N=1 or no 95% interval (do not read as a measurement)"


def chart_title(bars: Bars, model: str | None) -> str:
    """The chart's title: its own title and the model it measures (when known)."""
    return f"{bars.title}\nmodel: {model}" if model else bars.title


def bar_text(value: BarValue) -> str:
    """A bar's label: its value (one decimal) or n/a, then its N ("N=12"; "N=?" where the
    hook gave a bare number)."""
    height = bar_height(value)
    estimate = bar_estimate(value)
    shown = "n/a" if height is None else f"{height:.1f}"
    return f"{shown}\nN={estimate.n if estimate else '?'}"


def _whisker(value: BarValue) -> tuple[float, float] | None:
    """(low, high) of the bar's 95% interval, or None where it is unknown."""
    estimate = bar_estimate(value)
    if estimate is None or math.isnan(estimate.low) or math.isnan(estimate.high):
        return None
    return estimate.low, estimate.high


def _series(ax: Any, index: int, name: str, values: Sequence[BarValue], x: Sequence[float],
            width: float, crowded: bool) -> None:
    """One series: bars (weak ones hatched and pale), whiskers, a value and N label above
    each bar's top or whisker."""
    colour = _COLOURS[index % len(_COLOURS)]
    heights = [bar_height(v) or 0.0 for v in values]
    drawn = ax.bar(x, heights, width=width, label=name, color=colour)
    for patch, value in zip(drawn.patches, values, strict=True):
        if bar_is_weak(value):
            patch.set_alpha(0.35)
            patch.set_hatch("///")
            patch.set_edgecolor(colour)
    for position, height, value in zip(x, heights, values, strict=True):
        whisker = _whisker(value)
        top = height
        if whisker is not None:
            low, high = whisker
            ax.errorbar([position], [height], yerr=[[max(height - low, 0.0)],
                                                    [max(high - height, 0.0)]],
                        fmt="none", ecolor="#222", elinewidth=0.8, capsize=2)
            top = max(height, high)
        ax.annotate(bar_text(value), (position, top), xytext=(0, 2), textcoords="offset points",
                    ha="center", va="bottom", fontsize=7, rotation=90 if crowded else 0,
                    linespacing=0.95)


def draw(ax: Any, bars: Bars, model: str | None) -> None:
    """Draw grouped vertical bars on `ax`: one group per label, one bar per series, each bar
    labelled with its value (one decimal, or n/a) and its N, with 95% interval whiskers where
    known; bars with N=1 or no interval are hatched and pale (the figure's `footer` says
    so)."""
    count = max(len(bars.series), 1)
    width = 0.8 / count
    positions = range(len(bars.labels))
    crowded = len(bars.labels) * count > 8  # upright two-line labels would overlap
    for index, (name, values) in enumerate(bars.series):
        offset = (index - (count - 1) / 2) * width
        _series(ax, index, name, values, [p + offset for p in positions], width, crowded)
    ax.set_xticks(list(positions), list(bars.labels), rotation=30 if len(bars.labels) > 5 else 0,
                  ha="right" if len(bars.labels) > 5 else "center", fontsize=8)
    top = bars.limit
    if top is None:
        tops = [max(bar_height(v) or 0.0, (_whisker(v) or (0.0, 0.0))[1])
                for _, values in bars.series for v in values]
        top = max(tops, default=1.0) or 1.0
    ax.set_ylim(0, top * (1.4 if crowded else 1.22))
    if bars.limit is not None:  # the room above the limit is for labels, not for values
        ax.set_yticks([t for t in ax.get_yticks() if 0 <= t <= bars.limit])
    ax.set_ylabel(bars.unit, fontsize=8)
    ax.set_title(chart_title(bars, model), fontsize=9)
    if len(bars.series) > 1:
        ax.legend(fontsize=7, frameon=False, loc="upper right", ncols=len(bars.series))


def footer(fig: Any, bars: Bars) -> float:
    """Draw the chart's footer across the bottom of `fig`: `bars.warning` (wrapped, bold, in
    the warning colour) and, where some bar is hatched, what hatching means; return the figure
    fraction the axes must leave free below them (0 without a footer)."""
    width_in, height_in = fig.get_size_inches()
    chars = int(width_in * 72 / 4.6)  # about 4.6 points per character at 7.5 points
    lines = textwrap.wrap(f"warning: {bars.warning}", chars) if bars.warning else []
    weak = any(bar_is_weak(v) for _, values in bars.series for v in values)
    if lines:
        fig.text(0.01, 0.01 + (0.12 if weak else 0.0) / height_in,
                 "\n".join(lines), ha="left", va="bottom", fontsize=7.5,
                 color=_WARNING_COLOUR, fontweight="bold")
    if weak:
        fig.text(0.01, 0.01, WEAK_NOTE, ha="left", va="bottom", fontsize=6.5, color="#555")
    if not lines and not weak:
        return 0.0
    return min(0.45, (0.13 * len(lines) + 0.12 * weak + 0.06) / height_in)


def _draw_figure(plt: Any, bars: Bars, model: str | None, figsize: tuple[float, float],
                 dpi: int = 100) -> Any:
    """A new figure with `bars` drawn and laid out around its footer (the caller closes it)."""
    fig, ax = plt.subplots(figsize=figsize, dpi=dpi)
    try:
        draw(ax, bars, model)
        fig.tight_layout(rect=(0, footer(fig, bars), 1, 1))
    except BaseException:
        plt.close(fig)
        raise
    return fig


def svg(bars: Bars, model: str) -> str:
    """The chart as an SVG document string; text stays text (svg.fonttype none). Matplotlib's
    own warnings stay quiet (`quiet_matplotlib`)."""
    with quiet_matplotlib() as plt:
        import matplotlib

        bars_drawn = len(bars.labels) * max(len(bars.series), 1)
        with matplotlib.rc_context({"svg.fonttype": "none"}):
            fig = _draw_figure(plt, bars, model,
                               (min(7.5, max(4.5, 0.45 * bars_drawn + 1.5)), 3.6))
            try:
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
    with quiet_matplotlib() as plt:
        fig = _draw_figure(plt, bars, model, figsize)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fig.savefig(path, dpi=100)
        finally:
            plt.close(fig)
    return path
