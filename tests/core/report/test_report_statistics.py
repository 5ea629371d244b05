"""The report's intervals against their textbook formulas, and the stratified bootstrap against
the analytic standard error of a macro average (the statistics `smol_envs_core.report` shows
beside every headline figure)."""

from __future__ import annotations

import math
import random

import pytest
from smol_envs_core.report import binary, describe, mean_score, stratified_bootstrap

pytestmark = pytest.mark.unit


def wilson_by_hand(k: int, n: int, z: float = 1.959963984540054) -> tuple[float, float]:
    """Wilson (1927): (p + z²/2n ± z sqrt(p(1-p)/n + z²/4n²)) / (1 + z²/n)."""
    p = k / n
    centre = p + z * z / (2 * n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return (centre - half) / (1 + z * z / n), (centre + half) / (1 + z * z / n)


@pytest.mark.parametrize("k, n, why", [(3, 4, "small n"), (0, 10, "no successes: low is 0"),
                                       (10, 10, "all successes: high is 1"),
                                       (37, 120, "a typical benchmark slice")])
def test_wilson_matches_the_formula(k, n, why):
    got = binary([1.0] * k + [0.0] * (n - k))
    low, high = wilson_by_hand(k, n)
    assert (got.low, got.high) == (pytest.approx(100 * low), pytest.approx(100 * high)), why
    assert got.value == pytest.approx(100 * k / n) and got.n == n and got.method == "Wilson"
    assert got.stderr == pytest.approx(100 * math.sqrt(k / n * (1 - k / n) / n))


def test_t_interval_matches_the_formula():
    values = [0.2, 0.5, 0.9, 0.4, 0.7]
    got = mean_score(values)
    m = sum(values) / 5
    se = math.sqrt(sum((v - m) ** 2 for v in values) / 4 / 5)
    t975_df4 = 2.7764451051977987  # Student's t, 97.5th percentile, 4 degrees of freedom
    assert got.value == pytest.approx(100 * m) and got.stderr == pytest.approx(100 * se)
    assert (got.low, got.high) == (pytest.approx(100 * (m - t975_df4 * se)),
                                   pytest.approx(100 * (m + t975_df4 * se)))
    assert got.method == "t" and got.n == 5


def test_t_interval_stays_inside_the_score_range():
    """Six scores in [0, 1] whose t interval would pass 1 (as in a real smoltalkbench run):
    clipped to 100; values outside [0, 1] (e.g. characters) are never clipped."""
    got = mean_score([1.0, 1.0, 0.0, 0.79, 1.0, 0.0])
    assert got.high == 100.0 and 0.0 < got.low < got.value
    wide = mean_score([300.0, 10.0, 5.0], scale=1.0)
    assert wide.low < 0.0  # the plain t interval, unclipped


def test_describe_picks_wilson_only_for_zero_one_outcomes():
    assert describe([1.0, 0.0, 1.0]).method == "Wilson"
    assert describe([1.0, 0.5, 1.0]).method == "t"
    with pytest.raises(ValueError, match="0/1"):
        binary([1.0, 0.5])


def test_no_rows_and_one_row_give_no_interval():
    assert math.isnan(binary([]).value) and binary([]).text() == "n/a (N=0)"
    one = mean_score([0.4])
    assert one.value == pytest.approx(40.0) and math.isnan(one.low) and "± n/a" in one.text()


def test_bootstrap_of_a_macro_average_matches_its_analytic_standard_error():
    """Three strata of 300 0/1 outcomes with different rates: the macro average's standard
    error is sqrt(sum p(1-p)/n) / 3; the bootstrap's is within 10% of it, and seeded."""
    rng = random.Random(7)
    rates = {"a": 0.2, "b": 0.5, "c": 0.9}
    strata = {k: [float(rng.random() < p) for _ in range(300)] for k, p in rates.items()}

    def macro(means):
        return 100 * sum(float(m[0]) for m in means.values()) / len(means)

    got = stratified_bootstrap(strata, macro, label="languages")
    observed = {k: sum(v) / len(v) for k, v in strata.items()}
    analytic = 100 * math.sqrt(sum(p * (1 - p) / 300 for p in observed.values())) / 3
    assert got.value == pytest.approx(100 * sum(observed.values()) / 3)
    assert got.stderr == pytest.approx(analytic, rel=0.1)
    assert got.low < got.value < got.high and got.n == 900
    assert got.method == ("stratified bootstrap over rows within languages, 2000 resamples, "
                          "seed 0")
    assert stratified_bootstrap(strata, macro, label="languages") == got  # same seed, same CI
    assert stratified_bootstrap(strata, macro, label="languages", seed=1) != got


def test_bootstrap_with_a_one_row_stratum_gives_no_interval():
    got = stratified_bootstrap({"a": [1.0, 0.0], "b": [1.0]},
                               lambda m: 100 * float(m["a"][0] + m["b"][0]) / 2)
    assert got.value == pytest.approx(75.0) and math.isnan(got.stderr)
    assert "a stratum has one row" in got.method
