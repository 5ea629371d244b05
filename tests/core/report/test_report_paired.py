"""The paired statistics of `smol-envs compare` (`smol_envs_core.report.paired`): Newcombe's
interval against a published value, McNemar's exact p by hand, the minimum detectable
difference against a power simulation of the exact test, the paired bootstrap's pairing."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import binom
from smol_envs_core.report.paired import (
    NEWCOMBE,
    Table2x2,
    fewest_flips,
    mcnemar_exact,
    mdd_binary,
    mdd_normal,
    newcombe_paired,
    paired_bootstrap,
)

pytestmark = pytest.mark.unit


def test_newcombe_matches_the_published_example():
    # Fagerland, Lydersen & Laake (2017), Statistical Analysis of Contingency Tables, ch. 8:
    # Cavo et al. (2012), table [[59, 6], [16, 80]]: difference -0.0621, Newcombe's
    # square-and-add 95% CI -0.1186 to -0.0046 (rows: the second run, columns: the first).
    e = newcombe_paired(Table2x2(both=59, a_only=16, b_only=6, neither=80), scale=1, digits=4)
    assert (round(e.value, 4), round(e.low, 4), round(e.high, 4)) == (-0.0621, -0.1186, -0.0046)
    assert e.n == 161 and e.method == NEWCOMBE
    assert e.stderr == pytest.approx(math.sqrt(22 - 10 ** 2 / 161) / 161)


def test_mcnemar_exact_is_the_binomial_test_of_the_discordant_rows():
    # 1 of 10 discordant rows one way: p = 2 * P(X <= 1), X ~ Bin(10, 1/2) = 2 * 11 / 1024
    assert mcnemar_exact(Table2x2(50, 9, 1, 40)) == pytest.approx(22 / 1024)
    assert mcnemar_exact(Table2x2(50, 0, 0, 40)) == 1.0
    assert mcnemar_exact(Table2x2(0, 0, 6, 0)) == pytest.approx(2 / 64)


def test_table_of_outcomes_and_its_refusals():
    assert Table2x2.of([1, 1, 0, 0], [1, 0, 1, 0]) == Table2x2(1, 1, 1, 1)
    with pytest.raises(ValueError, match="0/1"):
        Table2x2.of([0.5], [1])
    with pytest.raises(ValueError, match="1 outcomes in A but 2"):
        Table2x2.of([1], [1, 0])


def test_fewest_flips_is_where_the_exact_test_first_rejects():
    assert fewest_flips() == 6  # 2 / 2^5 = 0.0625 > 0.05 >= 2 / 2^6


def _exact_power(n: int, psi: float, delta: float, sims: int = 4000) -> float:
    """The exact McNemar test's power at `delta` = P(B) - P(A) and discordance `psi`."""
    rng = np.random.default_rng(1)
    discordant = rng.binomial(n, psi, size=sims)
    b_only = rng.binomial(discordant, 0.5 + delta / (2 * psi))
    low = np.minimum(b_only, discordant - b_only)
    p = np.minimum(1.0, 2 * binom.cdf(low, discordant, 0.5))
    return float(np.mean(p < 0.05))


@pytest.mark.parametrize("n, discordant", [(480, 96), (1000, 120), (200, 60)])
def test_the_minimum_detectable_difference_has_about_80_percent_power(n, discordant):
    table = Table2x2(n // 2, discordant // 2, discordant - discordant // 2,
                     n - n // 2 - discordant)
    mdd = mdd_binary(table, scale=1.0)
    power = _exact_power(n, discordant / n, mdd)
    # Connor's formula is asymptotic; the exact test is a little conservative
    assert 0.70 <= power <= 0.85, (mdd, power)
    assert _exact_power(n, discordant / n, mdd / 2) < 0.45  # half of it is often missed


def test_the_minimum_detectable_difference_never_goes_below_what_the_test_can_call():
    assert mdd_binary(Table2x2(100, 0, 0, 380)) == pytest.approx(100 * 6 / 480)
    assert mdd_binary(Table2x2(2, 0, 0, 2)) == 100.0  # 4 rows can never reach 6 flips
    assert math.isnan(mdd_binary(Table2x2(0, 0, 0, 0)))
    assert mdd_normal(1.0) == pytest.approx(1.959964 + 0.841621, abs=1e-5)
    assert math.isnan(mdd_normal(0.0)) and math.isnan(mdd_normal(math.nan))


def _rows(values):
    return [{"score": float(v)} for v in values]


def _mean(means):
    return 100 * means[""]["score"]


def test_the_paired_bootstrap_resamples_pairs_together():
    rng = np.random.default_rng(0)
    a = rng.random(300)
    b = np.clip(a + 0.02, 0, 1)  # B is A plus 2 points on every row: a paired shift
    paired = paired_bootstrap({"": _rows(a)}, {"": _rows(b)}, _mean)
    assert paired.value == pytest.approx(100 * float(np.mean(b - a)))
    assert 0 < paired.low < paired.value < paired.high < 3.0  # far narrower than unpaired
    assert paired.method == "paired bootstrap over rows, 2000 resamples, seed 0"
    again = paired_bootstrap({"": _rows(a)}, {"": _rows(b)}, _mean)
    assert (again.low, again.high) == (paired.low, paired.high)  # seeded
    same = paired_bootstrap({"": _rows(a)}, {"": _rows(a)}, _mean)
    assert (same.value, same.low, same.high, same.stderr) == (0.0, 0.0, 0.0, 0.0)


def test_the_paired_bootstrap_keeps_strata_and_refuses_unequal_ones():
    a = {"x": _rows([0, 0, 1, 1]), "y": _rows([0, 0])}
    b = {"x": _rows([1, 1, 1, 1]), "y": _rows([0, 1])}

    def macro(means):
        return 100 * sum(m["score"] for m in means.values()) / len(means)

    e = paired_bootstrap(a, b, macro, label="languages")
    assert e.value == pytest.approx(50.0) and "within languages" in e.method
    with pytest.raises(ValueError, match="same strata"):
        paired_bootstrap(a, {"x": b["x"]}, macro)
