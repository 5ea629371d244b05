"""pico-dsl-v1's v1 taskset: splits, options and the opt-in shaped reward (no server needed)."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace

import pytest

from tests.contract_rl.driver import load_tasks

pytestmark = pytest.mark.unit


def scored(task, reply: str) -> tuple[dict, dict]:
    """(rewards, metrics) of `task` for one reply, through the task's own v1 hooks."""
    trace = SimpleNamespace(last_reply=reply, info={})
    metrics = asyncio.run(task.declared_metrics(trace))
    return asyncio.run(task.declared_reward(trace)), metrics


def gold(task) -> str:
    return "<answer>\n" + "\n".join(task.data.target_lines) + "\n</answer><|im_end|>"


def test_eval_split_is_the_fixed_benchmark_and_train_avoids_it() -> None:
    evaluation = load_tasks("pico-dsl-v1", {"split": "eval"})
    train = load_tasks("pico-dsl-v1", {"split": "train", "num_train": 700})
    assert len(evaluation) == 480 and len(train) == 700
    assert not {t.data.prompt for t in train} & {t.data.prompt for t in evaluation}
    assert len({t.key for t in train}) == 700  # no repeats within the stream either


def test_exact_match_is_the_default_reward() -> None:
    task = load_tasks("pico-dsl-v1", {"split": "eval", "slice": "copy_case"})[0]
    rewards, metrics = scored(task, gold(task))
    assert rewards == {"exact_match": 1.0} and metrics["format_valid"] == 1.0
    almost = gold(task).replace(task.data.target_lines[1], task.data.target_lines[1] + "x")
    rewards, metrics = scored(task, almost)
    assert rewards == {"exact_match": 0.0} and 0.9 < metrics["avg_line_similarity"] < 1.0


def test_shaped_reward_is_opt_in_and_named_apart() -> None:
    task = load_tasks("pico-dsl-v1", {"split": "train", "num_train": 4,
                                      "reward": "line_similarity"})[0]
    almost = gold(task).replace(task.data.target_lines[1], task.data.target_lines[1] + "x")
    rewards, metrics = scored(task, almost)
    assert list(rewards) == ["shaped_line_similarity"]
    assert rewards["shaped_line_similarity"] == pytest.approx(metrics["avg_line_similarity"])
    assert 0.9 < rewards["shaped_line_similarity"] < 1.0 and metrics["exact_match"] == 0.0
    assert scored(task, "")[0] == {"shaped_line_similarity": 0.0}
    # Without an answer block the reply's first four lines still earn partial credit.
    bare = "Sure!\n" + "\n".join(task.data.target_lines[:2])
    rewards, metrics = scored(task, bare)
    assert metrics["avg_line_similarity"] == 0.0
    assert 0.0 < rewards["shaped_line_similarity"] < 1.0
    bare_exact = "\n".join(task.data.target_lines)
    assert scored(task, bare_exact)[0] == {"shaped_line_similarity": 1.0}


@pytest.mark.parametrize("options, word", [
    ({"split": "test"}, "split"), ({"slice": "nope"}, "slice"), ({"reward": "bleu"}, "reward"),
])
def test_bad_options_name_the_valid_values(options: dict, word: str) -> None:
    with pytest.raises(ValueError, match=f"unknown {word}"):
        load_tasks("pico-dsl-v1", options)
