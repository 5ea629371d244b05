"""Oracle: golden cases and properties of the tape semantics."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pico_dsl_v1.oracle import OPERATIONS, apply_tape, target_lines, trace
from pico_dsl_v1.prompt import EXAMPLE_DICTIONARY, EXAMPLE_INPUT, EXAMPLE_LINES, EXAMPLE_TAPE

pytestmark = pytest.mark.unit

D = {"t": "TAKE", "d": "DROP", "r": "REPEAT", "u": "UPPER", "l": "LOWER", "s": "SWAPCASE"}
printable = st.text(st.characters(min_codepoint=32, max_codepoint=126), min_size=0, max_size=30)

GOLDEN = [
    # (source, tape, expected, why)
    ("abc", "ttt", "abc", "TAKE copies"),
    ("abc", "tdt", "ac", "DROP consumes without emitting"),
    ("abc", "r", "aa", "REPEAT emits twice; leftover discarded"),
    ("aBc", "uls", "ABC"[0] + "b" + "C", "case operations"),
    ("a1", "uu", "A1", "case operations leave non-letters alone"),
    ("ab", "t-t!", "a-b!", "literals are emitted without consuming"),
    ("ab", "tttt", "ab", "consuming symbols after exhaustion do nothing"),
    ("", "t-", "-", "empty source: literals only"),
]


@pytest.mark.parametrize(("source", "tape", "expected", "why"), GOLDEN)
def test_golden(source: str, tape: str, expected: str, why: str) -> None:
    assert apply_tape(source, tape, D) == expected, why


def test_prompt_example_matches_oracle() -> None:
    assert target_lines(EXAMPLE_INPUT, EXAMPLE_TAPE, EXAMPLE_DICTIONARY) == EXAMPLE_LINES


def test_trace_reports_leftover_and_noops() -> None:
    steps, leftover = trace("abc", "t", D)
    assert leftover == 2 and steps[0].consumed == "a"
    steps, leftover = trace("a", "tt", D)
    assert leftover == 0 and steps[1].consumed is None and steps[1].emitted == ""


def test_bad_dictionary_raises() -> None:
    with pytest.raises(ValueError, match="unknown operation"):
        apply_tape("a", "x", {"x": "JUMP"})
    with pytest.raises(ValueError, match="single character"):
        apply_tape("a", "x", {"xy": "TAKE"})


@given(printable, printable)
def test_line4_is_reverse_of_line3(text: str, tape: str) -> None:
    lines = target_lines(text, tape, D)
    assert lines[1] == text[::-1]
    assert lines[3] == lines[2][::-1]


@given(printable)
def test_take_only_tape_reproduces_source(source: str) -> None:
    assert apply_tape(source, "t" * len(source), D) == source


@given(printable, st.text(alphabet="tdrusl", max_size=40), st.text(alphabet="tdrusl", max_size=8))
def test_noop_suffix_changes_nothing(source: str, tape: str, suffix: str) -> None:
    exhausting = tape + "d" * len(source)  # guarantees the source is used up before the suffix
    assert apply_tape(source, exhausting + suffix, D) == apply_tape(source, exhausting, D)


def test_operations_are_the_six() -> None:
    assert OPERATIONS == ("TAKE", "DROP", "REPEAT", "UPPER", "LOWER", "SWAPCASE")
