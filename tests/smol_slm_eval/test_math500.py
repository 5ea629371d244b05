"""MATH-500 answer extraction and math-verify equivalence."""

import pytest
from smol_slm_eval import data, math500

pytestmark = pytest.mark.unit


@pytest.mark.parametrize("completion, answer, why", [
    ("... so the answer is $\\boxed{\\frac{1}{2}}$.", "\\frac{1}{2}", "last boxed"),
    ("First \\boxed{3}.\nThen \\boxed{4}", "4", "last of several"),
    ("\\fbox{2} and \\boxed{3}", "3", "a boxed wins over a later fbox (the seed's order)"),
    ("The answer is 7.\n\n", "The answer is 7.", "last non-empty line"),
    ("\\boxed 12 apples", "12 apples", "boxed without a brace: the rest of the text"),
    ("so \\boxed{3\nlast line", "last line", "unclosed braces: the last line"),
    ("", "", "empty"),
    ("  \n ", "", "blank"),
])
def test_extract_answer(completion, answer, why):
    assert math500.extract_answer(completion) == answer, why


@pytest.mark.parametrize("answer, gold, expected, why", [
    ("0.5", "\\frac{1}{2}", (1.0, 0.0), "math-verify equivalence"),
    ("\\frac12", "\\frac{1}{2}", (1.0, 0.0), "LaTeX shorthand"),
    ("\\left( 3, \\frac{\\pi}{2} \\right)", "(3,\\frac{\\pi}{2})", (1.0, 0.0), "tuple"),
    ("3", "4", (0.0, 0.0), "wrong"),
    ("", "4", (0.0, 1.0), "nothing extracted"),
])
def test_score_answer(answer, gold, expected, why):
    record = math500.score_answer(answer, gold)
    assert (record["exact_match"], record["unparseable"]) == expected, why


@pytest.mark.parametrize("completion, exact, why", [
    ("<think>\\boxed{7}</think> so 5", 0.0, "a box inside the trace never counts"),
    ("<think>\\boxed{7}", 0.0, "an unclosed trace leaves no answer"),
    ("<think>hmm</think> \\boxed{7}", 1.0, "the box after the trace counts"),
    ("Problem: 1+1?\nAnswer: \\boxed{6}", 0.0, "an imitated next problem cannot help"),
    ("\\boxed{７}", 0.0, "a full-width digit is not 7"),
])
def test_replies_scored_after_the_reasoning_trace(completion, exact, why):
    assert math500.math_record(completion, "7")["exact_match"] == exact, why


def test_prompt_is_the_seeds():
    assert math500.math_prompt("What is 1+1?") == "Problem: What is 1+1?\nAnswer:"
    assert math500.STOP == ["<|im_end|>", "<|endoftext|>"] and math500.MAX_TOKENS == 256


def test_unparseable_is_a_zero_with_a_flag():
    assert math500.math_record("", "1") == {"answer": "", "exact_match": 0.0,
                                            "unparseable": 1.0}


@pytest.mark.integration
def test_every_gold_answer_scores_one(archive_cache):
    rows = data.load_rows("math_500")
    failed = [r["id"] for r in rows
              if math500.math_record(f"Thus $\\boxed{{{r['answer']}}}$.", r["answer"])
              ["exact_match"] != 1.0]
    assert failed == []
