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
    lines = task.data.target_lines
    rewards, metrics = scored(task, gold(task))
    assert rewards == {"shaped_line_similarity": 1.0} and metrics["exact_match"] == 1.0
    almost = gold(task).replace(lines[2], lines[2] + "x").replace(lines[3], "x" + lines[3])
    rewards, metrics = scored(task, almost)
    assert list(rewards) == ["shaped_line_similarity"] and metrics["exact_match"] == 0.0
    assert 0.0 < rewards["shaped_line_similarity"] < 1.0
    assert scored(task, "")[0] == {"shaped_line_similarity": 0.0}
    # Without an answer block the reply's lines still earn credit for the work, less the form.
    assert scored(task, "\n".join(lines))[0] == {"shaped_line_similarity": 0.9}
    assert scored(task, "Sure!\n" + "\n".join(lines))[0] == {"shaped_line_similarity": 0.0}
    # Nothing is read from a reasoning trace: gold lines inside one that never closed, or
    # inside a closed one with nothing after it, earn 0 (0.9 before behaviour 1.1.0).
    assert scored(task, "<think>" + "\n".join(lines))[0] == {"shaped_line_similarity": 0.0}
    assert scored(task, "\n".join(lines) + "\n<think>")[0] == {"shaped_line_similarity": 0.0}
    closed = "<think>\n" + "\n".join(lines) + "\n</think>\nDone."
    assert scored(task, closed)[0] == {"shaped_line_similarity": 0.0}


def test_shaped_reward_pays_nothing_for_answers_that_skip_the_tape() -> None:
    """Copy, echo and literal insertion earn 0 through the real taskset; four gold lines with
    an extra line earn less than the exact block (issue 25, items 4 and 6)."""
    for split in ({"split": "eval"}, {"split": "train", "num_train": 48, "difficulty": "tiny"}):
        earned: dict[str, list[float]] = {"copy": [], "echo": [], "literal insertion": []}
        for task in load_tasks("pico-dsl-v1", {**split, "reward": "line_similarity"})[:48]:
            s, r = task.data.target_lines[:2]
            tape = task.data.prompt.rsplit("|", 2)[1]
            symbols = {line.split(" = ")[0] for line in task.data.prompt.split("\n")
                       if " = " in line}
            inserted = r + "".join(c for c in tape if c not in symbols)
            replies = {"copy": f"<answer>\n{s}\n{r}\n{r}\n{s}\n</answer>",
                       "echo": task.data.prompt,
                       "literal insertion": f"<answer>\n{s}\n{r}\n{inserted}\n"
                                            f"{inserted[::-1]}\n</answer>"}
            for name, reply in replies.items():
                earned[name].append(scored(task, reply)[0]["shaped_line_similarity"])
            extra = gold(task).replace("\n</answer>", "\nextra\n</answer>")
            assert scored(task, extra)[0] == {"shaped_line_similarity": 0.9}
        assert set(earned["copy"]) == set(earned["echo"]) == {0.0}
        assert sum(earned["literal insertion"]) / 48 < 0.05


@pytest.mark.parametrize("options, word", [
    ({"split": "test"}, "split"), ({"slice": "nope"}, "slice"), ({"reward": "bleu"}, "reward"),
])
def test_bad_options_name_the_valid_values(options: dict, word: str) -> None:
    with pytest.raises(ValueError, match=f"unknown {word}"):
        load_tasks("pico-dsl-v1", options)
