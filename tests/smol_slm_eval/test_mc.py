"""Multiple-choice metrics and prompts (pure)."""

import hashlib

import pytest
from smol_slm_eval.errors import ConfigError
from smol_slm_eval.mc import mc_record
from smol_slm_eval.prompts import gpqa_options, hellaswag_preprocess, mc_request

pytestmark = pytest.mark.unit


def test_acc_and_acc_norm_can_disagree():
    # Long choice: higher total, lower per character.
    record = mc_record([-10.0, -12.0], ["ab", "abcdefghijkl"], gold=1)
    assert (record["pred"], record["pred_norm"]) == (0, 1)
    assert (record["acc"], record["acc_norm"]) == (0.0, 1.0)


def test_ties_go_to_the_first_choice():
    assert mc_record([-1.0, -1.0], ["a", "b"], gold=0)["acc"] == 1.0


@pytest.mark.parametrize("logliks, choices, gold", [
    ([-1.0], ["a", "b"], 0), ([-1.0, -2.0], ["a", "b"], 2), ([-1.0, -2.0], ["a", ""], 0)])
def test_bad_input_raises(logliks, choices, gold):
    with pytest.raises(ValueError):
        mc_record(logliks, choices, gold)


def test_hellaswag_lm_eval_prompt():
    row = {"activity_label": "Roof shingle removal", "ctx_a": "A man is sitting on a roof.",
           "ctx_b": "he", "ctx": "A man is sitting on a roof. he",
           "question": "A man is sitting on a roof. he",
           "choices": ["starts [title] pulling  up roofing.", "b"], "gold": 0}
    context, continuations, choices, gold = mc_request("hellaswag", row, "lm_eval")
    assert context == "Roof shingle removal: A man is sitting on a roof. He"
    assert choices[0] == "starts. pulling up roofing."
    assert continuations[0] == " starts. pulling up roofing."
    seed_context, _, seed_choices, _ = mc_request("hellaswag", row, "seed")
    assert seed_context == row["ctx"] and seed_choices == row["choices"]


def test_arc_prompts():
    row = {"question": "Which is a gas?", "choices": ["ice", "steam"], "gold": 1}
    assert mc_request("arc_easy", row, "lm_eval")[0] == "Question: Which is a gas?\nAnswer:"
    assert mc_request("arc_easy", row, "seed")[:2] == ("Which is a gas?", [" ice", " steam"])
    with pytest.raises(ConfigError):
        mc_request("arc_easy", row, "harness")


def test_gpqa_places_the_correct_option_by_sha256():
    question = "A synthetic question, not from GPQA?"
    options, gold = gpqa_options(question, "right", ["w1", "w2", "w3"])
    assert gold == int(hashlib.sha256(question.encode()).hexdigest(), 16) % 4
    assert options[gold] == "right" and [o for o in options if o != "right"] == ["w1", "w2", "w3"]


def test_hellaswag_preprocess_matches_lm_eval_order_of_operations():
    # lm-eval strips before removing tags, so a leading tag leaves its following space.
    assert hellaswag_preprocess(" [header] How to cook [step] Boil  water. ") == \
        " How to cook Boil water."
