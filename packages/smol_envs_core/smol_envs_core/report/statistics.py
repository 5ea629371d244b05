"""Means, standard errors and 95% intervals for the figures a report shows, computed once in the
report's model (`model.Estimate`) and printed beside the figure.

- `binary`: a proportion of 0/1 outcomes; Wilson score interval (Wilson 1927, "Probable
  inference, the law of succession, and statistical inference", JASA 22), via
  `scipy.stats.binomtest(...).proportion_ci(method="wilson")`; standard error sqrt(p(1-p)/n).
- `mean_score`: a mean of scores in [0, 1]; Student's t interval mean ± t(0.975, n-1) · s/sqrt(n),
  with s the n-1 standard deviation, clipped to [0, 1] (a mean of such scores cannot leave it)
  when every value lies there.
- `describe`: `binary` when every value is 0 or 1, else `mean_score`.
- `stratified_bootstrap`: macro averages and composites (a statistic of per-stratum means);
  rows are resampled with replacement within each stratum, the interval is the 2.5th and
  97.5th percentiles of the replicates, the standard error their n-1 standard deviation
  (Efron & Tibshirani 1993, "An Introduction to the Bootstrap", ch. 6 and 13). Seeded: the same
  rows give the same interval.

Pure; numpy and scipy are imported by the functions that need them.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from .model import Estimate

CONFIDENCE = 0.95
BOOTSTRAP_RESAMPLES = 2000
BOOTSTRAP_SEED = 0
_NAN = math.nan


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


def _empty(method: str, digits: int, n: int = 0) -> Estimate:
    return Estimate(_NAN, n, _NAN, _NAN, _NAN, method, digits)


def is_binary(values: Sequence[float]) -> bool:
    """True when every value is exactly 0 or 1 (and there is at least one)."""
    return bool(values) and all(v in (0.0, 1.0) for v in values)


def binary(values: Sequence[float], scale: float = 100.0, digits: int = 1) -> Estimate:
    """The proportion of ones among 0/1 `values`, times `scale`, with Wilson's 95% interval.

    Raises:
        ValueError: a value is not 0 or 1.
    """
    if not values:
        return _empty("Wilson", digits)
    if not is_binary(values):
        raise ValueError("binary() needs 0/1 outcomes; use mean_score() for graded scores")
    from scipy.stats import binomtest

    n, k = len(values), int(sum(values))
    p = k / n
    interval = binomtest(k, n).proportion_ci(confidence_level=CONFIDENCE, method="wilson")
    return Estimate(scale * p, n, scale * math.sqrt(p * (1 - p) / n), scale * interval.low,
                    scale * interval.high, "Wilson", digits)


def mean_score(values: Sequence[float], scale: float = 100.0, digits: int = 1,
               bounds: tuple[float, float] | None = (0.0, 1.0)) -> Estimate:
    """The mean of `values`, times `scale`, with Student's t 95% interval (NaN interval for
    fewer than two values). When every value lies within `bounds` the interval is clipped to
    them (scale applied); None: never clipped."""
    if not values:
        return _empty("t", digits)
    average, stderr = mean_stderr([float(v) for v in values])
    if math.isnan(stderr):
        return Estimate(scale * average, len(values), _NAN, _NAN, _NAN, "t", digits)
    from scipy.stats import t

    half = float(t.ppf(0.5 + CONFIDENCE / 2, len(values) - 1)) * stderr
    low, high = average - half, average + half
    if bounds is not None and all(bounds[0] <= v <= bounds[1] for v in values):
        low, high = max(low, bounds[0]), min(high, bounds[1])
    return Estimate(scale * average, len(values), scale * stderr, scale * low, scale * high,
                    "t", digits)


def describe(values: Sequence[float], scale: float = 100.0, digits: int = 1) -> Estimate:
    """`binary` when every value is 0 or 1 (a pass/fail outcome), else `mean_score`."""
    return (binary if is_binary(values) else mean_score)(values, scale, digits)


def stratified_bootstrap(
    strata: Mapping[str, Sequence[Sequence[float]]],
    statistic: Callable[[Mapping[str, Any]], float | None],
    *,
    label: str = "strata",
    digits: int = 1,
    resamples: int = BOOTSTRAP_RESAMPLES,
    seed: int = BOOTSTRAP_SEED,
) -> Estimate:
    """A statistic of per-stratum column means with a stratified bootstrap 95% interval.

    strata: {stratum: rows}, each row a sequence of k numbers (NaN for a value the row lacks;
        every row of a stratum has the same k). A stratum must have at least one row.
    statistic: takes {stratum: numpy array of the k column means} and returns the figure (in
        the units shown), or None/NaN where it is undefined for a resample.
    label: what the strata are, for the method's name ("languages", "tasks").
    Returns the statistic on the rows as given, N = all rows, the replicates' n-1 standard
    deviation and their 2.5/97.5 percentiles; the method names strata, resamples and seed.
    A stratum of one row has no spread to resample: then no interval is given (NaN), rather
    than one that looks certain.
    Raises ValueError for an empty stratum or rows of unequal length.
    """
    import warnings

    import numpy as np

    method = f"stratified bootstrap over rows within {label}, {resamples} resamples, seed {seed}"
    arrays = {}
    for name in sorted(strata):
        data = np.asarray(strata[name], dtype=float)
        if data.ndim == 1:
            data = data[:, None]
        if data.ndim != 2 or data.shape[0] == 0:
            raise ValueError(f"stratum {name!r}: needs at least one row of equal-length values")
        arrays[name] = data
    if not arrays:
        return _empty(method, digits)
    n = sum(a.shape[0] for a in arrays.values())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # an all-NaN column mean is NaN
        point = statistic({k: np.nanmean(a, axis=0) for k, a in arrays.items()})
        if point is None or math.isnan(point):
            return _empty(method, digits, n)
        if min(a.shape[0] for a in arrays.values()) < 2:
            return Estimate(float(point), n, _NAN, _NAN, _NAN,
                            method + "; no interval: a stratum has one row", digits)
        rng = np.random.default_rng(seed)
        means: dict[str, Any] = {}
        for name, data in arrays.items():
            rows, cols = data.shape
            block = max(1, 4_000_000 // (rows * cols))  # bounds memory for large strata
            out = np.empty((resamples, cols))
            for start in range(0, resamples, block):
                stop = min(resamples, start + block)
                picks = rng.integers(0, rows, size=(stop - start, rows))
                out[start:stop] = np.nanmean(data[picks], axis=1)
            means[name] = out
        replicates = np.array([_value(statistic({k: m[b] for k, m in means.items()}))
                               for b in range(resamples)])
    replicates = replicates[~np.isnan(replicates)]
    if replicates.size < 2:
        return Estimate(float(point), n, _NAN, _NAN, _NAN, method, digits)
    low, high = np.percentile(replicates, [50 * (1 - CONFIDENCE), 50 * (1 + CONFIDENCE)])
    return Estimate(float(point), n, float(replicates.std(ddof=1)), float(low), float(high),
                    method, digits)


def _value(result: float | None) -> float:
    return _NAN if result is None else float(result)
