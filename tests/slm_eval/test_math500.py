"""MATH-500 answer extraction and math-verify equivalence."""

import pytest
from slm_eval import data, math500

pytestmark = pytest.mark.unit


@pytest.mark.parametrize("completion, answer, why", [
    ("... so the answer is $\\boxed{\\frac{1}{2}}$.", "\\frac{1}{2}", "last boxed"),
    ("First \\boxed{3}.\nThen \\boxed{4}", "4", "last of several"),
    ("The answer is 7.\n\n", "The answer is 7.", "last non-empty line"),
    ("", None, "empty"),
    ("  \n ", None, "blank"),
])
def test_extract_answer(completion, answer, why):
    assert math500.extract_answer(completion) == answer, why


@pytest.mark.parametrize("predicted, gold, equal", [
    ("0.5", "\\frac{1}{2}", True),
    ("\\frac12", "\\frac{1}{2}", True),
    ("\\left( 3, \\frac{\\pi}{2} \\right)", "(3,\\frac{\\pi}{2})", True),
    ("3", "4", False),
])
def test_equivalence(predicted, gold, equal):
    assert math500.is_equivalent(predicted, gold) is equal


def test_unparseable_is_a_zero_with_a_flag():
    assert math500.math_record("", "1") == {"answer": None, "exact_match": 0.0,
                                            "unparseable": 1.0}


@pytest.mark.integration
def test_every_gold_answer_scores_one(archive_cache):
    rows = data.load_rows("math_500")
    failed = [r["id"] for r in rows
              if math500.math_record(f"Thus $\\boxed{{{r['answer']}}}$.", r["answer"])
              ["exact_match"] != 1.0]
    assert failed == []
