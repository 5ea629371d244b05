"""Report helpers every environment's report uses: means, standard errors, number cells and
a matplotlib figure that is saved and closed the same way (headless). Rich and matplotlib are
imported only by what draws."""

from __future__ import annotations

import contextlib
import logging
import math
import warnings
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any


def mean(values: Sequence[float], empty: float = math.nan) -> float:
    """The arithmetic mean; `empty` for no values."""
    return sum(values) / len(values) if values else empty


def mean_stderr(values: Sequence[float]) -> tuple[float, float]:
    """(mean, standard error of the mean with the n-1 variance); NaN where undefined (no
    values: both; one value: the error)."""
    if not values:
        return math.nan, math.nan
    average = mean(values)
    if len(values) < 2:
        return average, math.nan
    variance = sum((x - average) ** 2 for x in values) / (len(values) - 1)
    return average, math.sqrt(variance / len(values))


def fmt(value: float | None, digits: int = 1) -> str:
    """A table cell: the number with `digits` decimals, or "n/a" for None or NaN."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "n/a"
    return f"{value:.{digits}f}"


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
