"""Metrics on crafted completions: every metric, exact and partial answers."""

from __future__ import annotations

import pytest
from pico_dsl_v1.metrics import METRIC_NAMES, line_similarity, score_answer
from pico_dsl_v1.parse import parse_answer

pytestmark = pytest.mark.unit

TARGETS = ("Cats nap", "pan staC", "paa(N S)!a", "a!)S N(aap")


def scores(text: str) -> dict[str, float]:
    return score_answer(parse_answer(text), TARGETS)


def test_exact_answer_scores_one_everywhere() -> None:
    result = scores("<answer>\n" + "\n".join(TARGETS) + "\n</answer>")
    assert set(result) == set(METRIC_NAMES)
    assert all(value == 1.0 for value in result.values())


def test_one_wrong_line() -> None:
    result = scores("<answer>\nCats nap\npan staC\npaa(N S)!\na!)S N(aap\n</answer>")
    assert result["exact_match"] == 0.0
    assert result["format_valid"] == result["answer_tag_valid"] == result["line_count_ok"] == 1.0
    assert [result[f"line_{k}_exact"] for k in range(1, 5)] == [1.0, 1.0, 0.0, 1.0]
    assert result["line_3_similarity"] == pytest.approx(1 - 1 / 10)
    assert result["avg_line_similarity"] == pytest.approx((3 + 0.9) / 4)


def test_three_lines_block() -> None:
    result = scores("<answer>\nCats nap\npan staC\npaa(N S)!a\n</answer>")
    assert result["format_valid"] == 0.0 and result["line_count_ok"] == 0.0
    assert result["answer_tag_valid"] == 1.0
    assert result["line_4_exact"] == 0.0 and result["line_4_similarity"] == 0.0
    assert result["avg_line_similarity"] == pytest.approx(0.75)


def test_no_block_but_four_visible_lines() -> None:
    result = scores("\n".join(TARGETS) + "\n\n")
    assert result["line_count_ok"] == 1.0
    assert result["answer_tag_valid"] == result["format_valid"] == result["exact_match"] == 0.0
    assert result["avg_line_similarity"] == 0.0


def test_empty_response_scores_zero() -> None:
    assert all(value == 0.0 for value in scores("").values())


def test_extra_line_is_not_exact_even_if_first_four_match() -> None:
    result = scores("<answer>\n" + "\n".join(TARGETS) + "\nextra\n</answer>")
    assert result["exact_match"] == 0.0 and result["format_valid"] == 0.0
    assert result["line_1_exact"] == 1.0


@pytest.mark.parametrize(
    ("predicted", "target", "expected"),
    [
        (None, "abc", 0.0),
        ("", "", 1.0),
        ("abc", "abc", 1.0),
        ("abd", "abc", 2 / 3),
        ("", "ab", 0.0),
    ],
)
def test_line_similarity(predicted: str | None, target: str, expected: float) -> None:
    assert line_similarity(predicted, target) == pytest.approx(expected)


def test_wrong_target_count_raises() -> None:
    with pytest.raises(ValueError, match="four|4"):
        score_answer(parse_answer("x"), ("a", "b"))
