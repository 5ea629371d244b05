"""Multiple-choice metrics and prompts (pure)."""

import hashlib

import pytest
from smol_slm_eval.env import TaskRubric
from smol_slm_eval.errors import ConfigError
from smol_slm_eval.mc import mc_record, predicted
from smol_slm_eval.prompts import gpqa_options, hellaswag_preprocess, mc_request
from smol_slm_eval.tasks import MC

pytestmark = pytest.mark.unit


def test_acc_and_acc_norm_can_disagree():
    # Long choice: higher total, lower per character.
    record = mc_record([-10.0, -12.0], ["ab", "abcdefghijkl"], gold=1)
    assert (record["pred"], record["pred_norm"]) == (0, 1)
    assert (record["acc"], record["acc_norm"]) == (0.0, 1.0)


def test_predicted_is_the_record_s_choice_without_the_gold():
    logliks, choices = [-10.0, -12.0], ["ab", "abcdefghijkl"]
    record = mc_record(logliks, choices, gold=0)
    assert predicted(logliks, choices, "acc") == record["pred"] == 0
    assert predicted(logliks, choices, "acc_norm") == record["pred_norm"] == 1


@pytest.mark.parametrize("headline, gold, reward", [
    ("acc_norm", 1, 1.0), ("acc_norm", 0, 0.0), ("acc", 0, 1.0), ("acc", 1, 0.0)])
def test_the_rubric_scores_recorded_logliks_against_its_own_gold(headline, gold, reward):
    # The model call records log-likelihoods only; the gold comes from the rubric's questions,
    # so a state carrying a forged record or answer cannot change the score.
    rubric = TaskRubric(MC, headline, {}, choices={"q": (["ab", "abcdefghijkl"], gold)})
    state = {"info": {"id": "q"}, "logliks": [-10.0, -12.0],
             "mc_record": {"acc": 1.0, "acc_norm": 1.0, "pred": gold, "pred_norm": gold}}
    score = rubric.score_of(state)
    assert score.metrics[headline] == score.reward == reward
    assert score.details["gold"] == gold and score.details["logliks"] == [-10.0, -12.0]


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
