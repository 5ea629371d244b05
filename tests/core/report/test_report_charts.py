"""The report's bar charts (`charts`) drawn by the real matplotlib: N and 95% whiskers on every
bar that has them, weak bars (N=1, no interval) marked, the validity warning on the picture."""

from __future__ import annotations

import math
import re

import pytest
from smol_envs_core.report import Estimate
from smol_envs_core.report.charts import WEAK_NOTE, draw, quiet_matplotlib, svg
from smol_envs_core.report.model import Bars, bar_is_weak

NAN = math.nan


def _estimate(value: float, n: int, low: float = NAN, high: float = NAN) -> Estimate:
    return Estimate(value, n, 1.0, low, high, "Wilson")


BARS = Bars("win rate by category", ("strong", "one row", "no interval", "bare", "none"),
            (("win rate", (_estimate(55.0, 20, 34.2, 74.2), _estimate(100.0, 1, 20.7, 100.0),
                           _estimate(40.0, 12), 30.0, None)),), "win rate x100",
            warning="judge tiny is a small local model: mechanics only, not a valid measurement")


@pytest.mark.unit
def test_weak_bars_are_those_with_one_row_or_no_interval():
    assert [bar_is_weak(v) for v in BARS.series[0][1]] == [False, True, True, True, True]


@pytest.mark.unit
def test_every_bar_carries_its_value_and_n_and_whiskers_where_known():
    with quiet_matplotlib() as plt:
        fig, ax = plt.subplots()
        try:
            draw(ax, BARS, "m")
            patches = ax.patches
            texts = [t.get_text() for t in ax.texts]
            whiskers = [c for c in ax.collections if c.get_segments()]
            assert [p.get_hatch() for p in patches] == [None, "///", "///", "///", "///"]
            assert texts == ["55.0\nN=20", "100.0\nN=1", "40.0\nN=12", "30.0\nN=?", "n/a\nN=?"]
            # whiskers for the two bars with an interval, from low to high
            spans = sorted((round(s[0][1], 1), round(s[1][1], 1))
                           for c in whiskers for s in c.get_segments() if s[0][0] == s[1][0])
            assert spans == [(20.7, 100.0), (34.2, 74.2)]
        finally:
            plt.close(fig)


@pytest.mark.unit
def test_the_warning_and_the_hatching_note_are_drawn_inside_the_svg():
    drawn = svg(BARS, "m")
    texts = [t.strip() for t in re.findall(r"<text[^>]*>([^<]*)</text>", drawn)]
    whole = " ".join(texts)
    assert "warning: judge tiny is a small local model:" in whole
    assert "not a valid measurement" in whole and WEAK_NOTE in texts
    assert texts.count("N=1") == 1 and "N=20" in texts


@pytest.mark.unit
def test_a_chart_of_sound_bars_has_no_footer():
    sound = Bars("t", ("a",), (("s", (_estimate(50.0, 30, 32.0, 68.0),)),), "x100")
    assert WEAK_NOTE not in svg(sound, "m") and "warning:" not in svg(sound, "m")
