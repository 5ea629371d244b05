"""What part of a benchmark a run covers, in words, for the reports' "coverage" and the
leaderboard's subset labels: None for the whole benchmark, else e.g. "first 100 of 2376 rows"
or "shuffled sample (seed 3) of 100 of 2376 rows" (vf-eval's `-n` takes the first rows of the
environment's selection, or of its seeded shuffle with `--shuffle`). Pure."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def subset_label(n: int, full: int | None, metadata: Mapping[str, Any] | None = None,
                 unit: str = "rows", prefix: str = "") -> str | None:
    """None when `n` equals `full`, else the label of the `n` rows run out of `full`.

    full: the benchmark's size in `unit`; None or 0 when unknown ("100 rows (size of the full
        benchmark unknown)").
    metadata: the run's metadata.json; a run vf-eval shuffled (`shuffle`, `shuffle_seed`) is
        labelled a shuffled sample, else the first rows.
    prefix: what selected the rows before vf-eval did (e.g. "slice repeat: "), put first.
    """
    if full and n == full and not prefix:
        return None
    if not full:
        return f"{prefix}{n} {unit} (size of the full benchmark unknown)"
    meta = metadata or {}
    if meta.get("shuffle"):
        seed = meta.get("shuffle_seed")
        how = f"shuffled sample{f' (seed {seed})' if seed is not None else ''} of"
    else:
        how = "first"
    if n == full:
        return f"{prefix}all {n} {unit}"
    return f"{prefix}{how} {n} of {full} {unit}"
