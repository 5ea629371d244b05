"""Statistics of two runs scored on the same rows (paired), for `smol-envs compare`: the
difference B - A of a figure with its 95% interval, a test, and the smallest difference the
comparison could have detected.

- Binary outcomes (0/1 per row, a mean over rows): McNemar's exact test, i.e. the two-sided
  binomial test of the discordant pairs against 1/2 (McNemar 1947, Psychometrika 12; exact
  form as in Fagerland, Lydersen & Laake 2013, BMC Med Res Methodol 13:91), through
  `scipy.stats.binomtest`; and Newcombe's square-and-add interval for a paired difference of
  proportions built from the two Wilson intervals and the phi correlation of the 2x2 table
  (Newcombe 1998, "Improved confidence intervals for the difference between binomial
  proportions based on paired data", Stat Med 17:2635-2650, method 10).
- Graded scores, macro averages and composites: a paired bootstrap, i.e. `stratified_bootstrap`
  over row pairs (both runs' values of a row resampled together, within strata), seeded.
- Minimum detectable difference (MDD) at two-sided 5% and 80% power. Binary: Connor's sample
  size for the paired (McNemar) design, n = [z(a/2) sqrt(psi) + z(b) sqrt(psi - d^2)]^2 / d^2
  with psi the share of discordant rows (Connor 1987, "Sample size for testing differentiated
  proportions in a paired design", Biometrics 43:207-211), solved for d at the observed n and
  psi; never below the smallest difference the exact test can call at all at this N (every
  discordant row flipped one way: 6 rows at 5%). Bootstrap: the normal approximation
  d = (z(0.975) + z(0.8)) x SE(B - A) = 2.80 SE (e.g. Chow, Shao & Wang 2008, "Sample Size
  Calculations in Clinical Research", 2nd ed., sec. 3.1).

All figures are in the units shown (x100 = points). Pure; scipy and numpy are imported by the
functions that need them.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from .model import Estimate
from .statistics import BOOTSTRAP_RESAMPLES, BOOTSTRAP_SEED, CONFIDENCE, stratified_bootstrap

ALPHA = 1 - CONFIDENCE
POWER = 0.80
NEWCOMBE = "Newcombe paired score interval (method 10)"


@dataclass(frozen=True)
class Table2x2:
    """Paired 0/1 outcomes of runs A and B on the same n rows.

    both: rows right in both; a_only: right in A only; b_only: right in B only; neither.
    """

    both: int
    a_only: int
    b_only: int
    neither: int

    @property
    def n(self) -> int:
        """Paired rows."""
        return self.both + self.a_only + self.b_only + self.neither

    @property
    def discordant(self) -> int:
        """Rows where the runs disagree (the only ones McNemar's test reads)."""
        return self.a_only + self.b_only

    @classmethod
    def of(cls, a: Sequence[float], b: Sequence[float]) -> Table2x2:
        """The table of two equal-length 0/1 sequences (row i of `a` pairs with row i of `b`).

        Raises ValueError for unequal lengths or a value other than 0 or 1."""
        if len(a) != len(b):
            raise ValueError(f"{len(a)} outcomes in A but {len(b)} in B")
        if any(v not in (0.0, 1.0) for v in (*a, *b)):
            raise ValueError("a paired 2x2 table needs 0/1 outcomes")
        pairs = list(zip(a, b, strict=True))
        return cls(pairs.count((1.0, 1.0)), pairs.count((1.0, 0.0)), pairs.count((0.0, 1.0)),
                   pairs.count((0.0, 0.0)))


def mcnemar_exact(table: Table2x2) -> float:
    """Two-sided exact McNemar p-value: the binomial test of b_only among the discordant rows
    against 1/2 (1.0 when no row is discordant)."""
    if table.discordant == 0:
        return 1.0
    from scipy.stats import binomtest

    return float(binomtest(table.b_only, table.discordant, 0.5).pvalue)


def _wilson(k: int, n: int) -> tuple[float, float]:
    from scipy.stats import binomtest

    interval = binomtest(k, n).proportion_ci(confidence_level=CONFIDENCE, method="wilson")
    return float(interval.low), float(interval.high)


def newcombe_paired(table: Table2x2, scale: float = 100.0, digits: int = 1) -> Estimate:
    """B - A (proportions times `scale`) with Newcombe's paired 95% interval (method 10).

    The standard error is the paired Wald one, sqrt(b + c - (c - b)^2 / n) / n (scaled).
    N is the number of paired rows; NaN throughout for no rows.
    """
    n = table.n
    if n == 0:
        return Estimate(math.nan, 0, math.nan, math.nan, math.nan, NEWCOMBE, digits)
    p_b, p_a = (table.both + table.b_only) / n, (table.both + table.a_only) / n
    low_b, high_b = _wilson(table.both + table.b_only, n)
    low_a, high_a = _wilson(table.both + table.a_only, n)
    margins = ((table.both + table.b_only) * (table.a_only + table.neither)
               * (table.both + table.a_only) * (table.b_only + table.neither))
    cross = table.both * table.neither - table.b_only * table.a_only
    if margins == 0 or 0 <= cross <= n / 2:
        phi = 0.0
    else:  # Newcombe's continuity adjustment of a positive cross product
        phi = (cross - n / 2 if cross > n / 2 else cross) / math.sqrt(margins)
    diff = p_b - p_a
    below = math.sqrt(max(0.0, (p_b - low_b) ** 2 + (high_a - p_a) ** 2
                          - 2 * phi * (p_b - low_b) * (high_a - p_a)))
    above = math.sqrt(max(0.0, (high_b - p_b) ** 2 + (p_a - low_a) ** 2
                          - 2 * phi * (high_b - p_b) * (p_a - low_a)))
    stderr = math.sqrt(max(0.0, table.discordant - (table.b_only - table.a_only) ** 2 / n)) / n
    return Estimate(scale * diff, n, scale * stderr, scale * (diff - below),
                    scale * (diff + above), NEWCOMBE, digits)


def _z(p: float) -> float:
    from scipy.stats import norm

    return float(norm.ppf(p))


def fewest_flips(alpha: float = ALPHA) -> int:
    """The fewest discordant rows, all flipped the same way, that the exact McNemar test calls
    significant at two-sided `alpha` (6 at 5%)."""
    m = 1
    while 2 * 0.5 ** m > alpha:
        m += 1
    return m


def mdd_binary(table: Table2x2, scale: float = 100.0) -> float:
    """The minimum detectable difference (x `scale`) of a paired binary comparison at two-sided
    5% and 80% power: Connor's formula at the observed discordance, never below
    `fewest_flips() / n`. NaN for no rows."""
    n = table.n
    if n == 0:
        return math.nan
    floor = min(1.0, fewest_flips() / n)
    psi = table.discordant / n
    z_a, z_b = _z(1 - ALPHA / 2), _z(POWER)
    if psi == 0 or n <= z_a ** 2:
        return scale * floor
    from scipy.optimize import brentq

    def excess(d: float) -> float:
        return math.sqrt(n) * d - z_a * math.sqrt(psi) - z_b * math.sqrt(max(0.0, psi - d * d))

    top = math.sqrt(psi)
    connor = brentq(excess, 1e-12, top) if excess(top) > 0 else top
    return scale * max(connor, floor)


def mdd_normal(stderr: float) -> float:
    """(z(0.975) + z(0.80)) x `stderr`: the difference a two-sided 5% test detects with 80%
    power when the difference's standard error is `stderr` (same units). NaN when the error is
    NaN or 0 (runs that never differ say nothing about the spread of a difference)."""
    if math.isnan(stderr) or stderr == 0:
        return math.nan
    return (_z(1 - ALPHA / 2) + _z(POWER)) * stderr


Statistic = Callable[[Mapping[str, Mapping[str, float]]], float | None]


def paired_bootstrap(
    a: Mapping[str, Sequence[Mapping[str, float]]],
    b: Mapping[str, Sequence[Mapping[str, float]]],
    statistic: Statistic,
    *,
    label: str = "strata",
    digits: int = 1,
    resamples: int = BOOTSTRAP_RESAMPLES,
    seed: int = BOOTSTRAP_SEED,
) -> Estimate:
    """statistic(B) - statistic(A) with a paired bootstrap 95% interval.

    a, b: {stratum: rows}, each row {metric: value}; row i of a stratum in `a` is the same
        dataset row as row i of that stratum in `b` (equal lengths, same strata).
    statistic: takes {stratum: {metric: mean over the stratum's rows}} (a metric no row of
        the stratum carries is absent) and returns the figure, or None where undefined.
    Both runs' values of a row are resampled together, within its stratum
    (`stratified_bootstrap` over the pairs); the method says "paired bootstrap over rows
    [within label]".
    Raises ValueError when the strata or their lengths differ.
    """
    if sorted(a) != sorted(b) or any(len(a[s]) != len(b[s]) for s in a):
        raise ValueError("paired runs need the same strata with the same rows")
    columns = {s: sorted({m for row in (*a[s], *b[s]) for m in row}) for s in a}
    nan = math.nan
    pairs = {s: [[ra.get(m, nan) for m in columns[s]] + [rb.get(m, nan) for m in columns[s]]
                 for ra, rb in zip(a[s], b[s], strict=True)]
             for s in a if a[s] and columns[s]}

    def side(means: Mapping[str, Any], offset: int) -> dict[str, dict[str, float]]:
        out = {}
        for s, values in means.items():
            k = len(columns[s])
            out[s] = {m: float(v) for m, v in zip(columns[s], values[offset * k:(offset + 1) * k],
                                                  strict=True) if v == v}
        return out

    def difference(means: Mapping[str, Any]) -> float | None:
        first, second = statistic(side(means, 0)), statistic(side(means, 1))
        return None if first is None or second is None else second - first

    # Runs that differ by the same amount on every row (a reference against a constant answer)
    # give flat replicates; their interval is kept: the verdict also rests on McNemar's test.
    estimate = stratified_bootstrap(pairs, difference, label=label, digits=digits,
                                    resamples=resamples, seed=seed, keep_flat=True)
    within = "" if len(pairs) <= 1 else f" within {label}"
    _, semicolon, caveat = estimate.method.partition(";")
    method = (f"paired bootstrap over rows{within}, {resamples} resamples, seed {seed}"
              + (semicolon + caveat if semicolon else ""))
    return replace(estimate, method=method)
