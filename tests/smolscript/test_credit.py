"""The credit rule of `hidden_test_pass_rate`: tests a baseline answer passes earn nothing."""

from __future__ import annotations

import pytest
from smolscript import credit, data

pytestmark = pytest.mark.unit


def test_tests_a_baseline_passes_earn_no_credit():
    passed = [True, True, False, True]
    empty = [True, False, False, False]  # "distractor unchanged": the empty answer passes it
    negative = [False, False, False, True]
    marks = credit.credited(passed, [empty, negative])
    assert marks == [False, True, True, False]
    assert credit.credited_rate(passed, marks) == 0.5
    # What a baseline itself gets: nothing.
    assert credit.credited_rate(empty, marks) == 0.0
    assert credit.credited_rate(negative, marks) == 0.0


def test_without_credited_tests_only_a_full_pass_counts():
    assert credit.credited_rate([True, True], [False, False]) == 1.0
    assert credit.credited_rate([True, False], [False, False]) == 0.0
    assert credit.credited_rate([], []) == 0.0


def test_a_failing_answer_never_reports_a_full_pass():
    # Issue 42: an answer that passes every credited test but fails one a baseline passes (it
    # restyled the distractor an empty stylesheet leaves alone) was reported 1.0 though it
    # failed. A failed test counts against the answer, credited or not.
    passed = [False, True, True]
    marks = credit.credited(passed, [[True, False, False]])
    assert marks == [False, True, True]
    assert credit.credited_rate(passed, marks) == pytest.approx(2 / 3)
    # Only an answer that passed every test gets 1.0, whatever the credit marks.
    for flags in ([True] * 3, [False, True, True], [True, False, True], [True, True, False]):
        for marks in ([False] * 3, [True] * 3, [False, True, True], [True, False, False]):
            rate = credit.credited_rate(flags, marks)
            assert (rate == 1.0) == all(flags), (flags, marks, rate)


def test_baseline_length_must_match():
    with pytest.raises(ValueError, match="baseline has 1 test verdicts, answer 2"):
        credit.credited([True, False], [[True]])


def test_empty_answers_close_the_head_and_implement_nothing():
    tasks = {t["language"] + "/" + t["modality"]: t for t in data.load_tasks()}
    hidden = data.load_hidden()
    sources = {key: credit.baseline_sources(t, hidden[t["id"]]) for key, t in tasks.items()}
    css = tasks["css/browser"]
    assert sources["css/browser"][0] == css["prefix"]  # the prefix (a comment) alone
    assert sources["javascript/browser"][0].rstrip().endswith("{\n}")  # setup does nothing
    assert sources["lua/program"][0].rstrip().endswith("end")
    # Every task's second baseline is its negative control, from the references (host only).
    refs = data.load_references()
    for t in tasks.values():
        assert hidden[t["id"]]["negative_control"] == refs[t["id"]]["negative_control"]
