"""The end-of-turn marker table: every marker is stripped at the very end, never inside."""

from __future__ import annotations

import pytest
from smol_envs_core.adapters.markers import END_OF_TURN_MARKERS, strip_end_of_turn

pytestmark = pytest.mark.unit


@pytest.mark.parametrize("marker", list(END_OF_TURN_MARKERS))
def test_each_marker_is_stripped_at_the_end(marker):
    assert strip_end_of_turn(f"<answer>\nx\n</answer>{marker}") == "<answer>\nx\n</answer>"
    assert strip_end_of_turn(f"a\n{marker}\n") == "a\n"
    assert strip_end_of_turn(f"a {marker}{marker}  {marker}") == "a "


@pytest.mark.parametrize("marker", list(END_OF_TURN_MARKERS))
def test_a_marker_inside_the_text_is_kept(marker):
    text = f"a{marker}b"
    assert strip_end_of_turn(text) == text


@pytest.mark.parametrize("marker", list(END_OF_TURN_MARKERS))
def test_a_marker_that_is_legal_text_is_kept(marker):
    assert strip_end_of_turn(f"a{marker}", keep=(marker,)) == f"a{marker}"


@pytest.mark.parametrize(
    ("text", "expected", "why"),
    [
        ("abc<|im_e", "abc", "cut short by the token budget"),
        ("abc<|", "abc", "two characters of a <|...|> marker"),
        ("abc<", "abc<", "one character is not a marker"),
        ("<p>a</", "<p>a</", "`</` may be markup: </s> only whole"),
        ("x<end_of", "x<end_of", "partial non-<| markers stay"),
        ("", "", "empty"),
        ("plain", "plain", "nothing to strip"),
    ],
)
def test_partial_and_edge_cases(text, expected, why):
    assert strip_end_of_turn(text) == expected, why
