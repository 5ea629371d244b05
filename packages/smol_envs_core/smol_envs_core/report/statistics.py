"""Means, standard errors and 95% intervals for the figures a report shows, computed once in the
report's model (`model.Estimate`) and printed beside the figure.

- `binary`: a proportion of 0/1 outcomes; Wilson score interval (Wilson 1927, "Probable
  inference, the law of succession, and statistical inference", JASA 22), via
  `scipy.stats.binomtest(...).proportion_ci(method="wilson")`; standard error sqrt(p(1-p)/n).
- `mean_score`: a mean of scores in [0, 1]; Student's t interval mean ± t(0.975, n-1) · s/sqrt(n),
  with s the n-1 standard deviation, clipped to [0, 1] (a mean of such scores cannot leave it)
  when every value lies there.
  A sample with no spread (every value equal, N >= 2) has a t interval of width zero, which
  claims certainty no sample of that size gives; for scores in [0, 1] the interval is then the
  Wilson score interval of the mean at that N (the widest a [0, 1] score of that mean and N can
  warrant: a 0/1 outcome has the largest variance of any score with that mean), and method
  "t; no spread: Wilson bound"; for unbounded values no interval is given.
- `describe`: `binary` when every value is 0 or 1, else `mean_score`.
- `pass_at_k`: the unbiased pass@k estimator of Chen et al. 2021 ("Evaluating Large Language
  Models Trained on Code", arXiv:2107.03374, section 2.1), 1 - C(n-c, k) / C(n, k) per example,
  averaged over examples with the t interval above (examples are the unit; their samples are
  not independent).
- `stratified_bootstrap`: macro averages and composites (a statistic of per-stratum means);
  rows are resampled with replacement within each stratum, the interval is the 2.5th and
  97.5th percentiles of the replicates, the standard error their n-1 standard deviation
  (Efron & Tibshirani 1993, "An Introduction to the Bootstrap", ch. 6 and 13). Seeded: the same
  rows give the same interval. Replicates without spread (every row equal) give no interval
  rather than one of width zero.

Pure; numpy and scipy are imported by the functions that need them.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from .model import Estimate

CONFIDENCE = 0.95
NO_SPREAD = "t; no spread: Wilson bound"
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
    inside = bounds is not None and all(bounds[0] <= v <= bounds[1] for v in values)
    if stderr == 0.0:
        if inside and bounds == (0.0, 1.0):
            low, high = wilson(average, len(values))
            return Estimate(scale * average, len(values), _NAN, scale * low, scale * high,
                            NO_SPREAD, digits)
        return Estimate(scale * average, len(values), _NAN, _NAN, _NAN,
                        "t; no interval: no spread in the sample", digits)
    from scipy.stats import t

    half = float(t.ppf(0.5 + CONFIDENCE / 2, len(values) - 1)) * stderr
    low, high = average - half, average + half
    if inside:
        low, high = max(low, bounds[0]), min(high, bounds[1])
    return Estimate(scale * average, len(values), scale * stderr, scale * low, scale * high,
                    "t", digits)


def wilson(p: float, n: int) -> tuple[float, float]:
    """Wilson's 95% score interval for a proportion `p` in [0, 1] observed over `n` trials
    (`p` need not be k/n for an integer k: it bounds the mean of any [0, 1] score).

    Raises:
        ValueError: p outside [0, 1] or n < 1.
    """
    if not 0.0 <= p <= 1.0 or n < 1:
        raise ValueError(f"wilson() needs 0 <= p <= 1 and n >= 1 (got p={p}, n={n})")
    from scipy.stats import norm

    z = float(norm.ppf(0.5 + CONFIDENCE / 2))
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z / denominator * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return max(0.0, centre - half), min(1.0, centre + half)


def pass_at_k(n: int, c: int, k: int) -> float:
    """The unbiased pass@k of one example with `n` samples of which `c` passed: the chance that
    at least one of `k` samples drawn without replacement passes, 1 - C(n-c, k) / C(n, k)
    (Chen et al. 2021, arXiv:2107.03374), with exact integer binomials.

    Raises:
        ValueError: not 0 <= c <= n, or not 1 <= k <= n.
    """
    if not 0 <= c <= n or not 1 <= k <= n:
        raise ValueError(f"pass_at_k needs 0 <= c <= n and 1 <= k <= n (got n={n}, c={c}, k={k})")
    return 1.0 - math.comb(n - c, k) / math.comb(n, k)


def pass_at_k_estimates(samples: Sequence[Sequence[float]], ks: Sequence[int] = (1, 2, 5, 10),
                        scale: float = 100.0, digits: int = 1) -> dict[int, Estimate]:
    """{k: pass@k x `scale` over examples} for every k in `ks` that every example has samples
    for; `samples` holds each example's 0/1 outcomes. The per-example estimates are averaged
    with `mean_score` (t interval over examples; Wilson bound without spread), so N is the
    number of examples.

    Raises:
        ValueError: an example has no samples or an outcome that is not 0 or 1.
    """
    if not samples:
        return {}
    for outcomes in samples:
        if not outcomes or not is_binary(outcomes):
            raise ValueError("pass@k needs each example's samples as 0/1 outcomes")
    fewest = min(len(outcomes) for outcomes in samples)
    out = {}
    for k in sorted(set(ks)):
        if k <= fewest:
            per_example = [pass_at_k(len(o), int(sum(o)), k) for o in samples]
            estimate = mean_score(per_example, scale, digits)
            out[k] = replace(estimate, method=f"{estimate.method} over examples, unbiased "
                                              "pass@k (Chen et al. 2021)")
    return out


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
    keep_flat: bool = False,
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
    than one that looks certain; so are replicates that never differ, unless `keep_flat` (a
    paired difference whose verdict also rests on an exact test, `paired.paired_bootstrap`).
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
    if float(replicates.std(ddof=1)) == 0.0 and not keep_flat:
        return Estimate(float(point), n, _NAN, _NAN, _NAN,
                        method + "; no interval: no spread in the rows", digits)
    low, high = np.percentile(replicates, [50 * (1 - CONFIDENCE), 50 * (1 + CONFIDENCE)])
    return Estimate(float(point), n, float(replicates.std(ddof=1)), float(low), float(high),
                    method, digits)


def _value(result: float | None) -> float:
    return _NAN if result is None else float(result)
