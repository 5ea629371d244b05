"""Per-environment inputs of the RL contract: splits, a gold and a junk reply, expected rewards.

A `Spec` says how to load the train and eval splits, what a perfect reply to a task is, what a
junk reply is, which reward each should get, and (for judged environments) a scripted judge.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Spec:
    """One environment's contract inputs (see the module docstring)."""

    env_id: str
    train: dict[str, Any]
    eval: dict[str, Any]
    gold: Callable[[Any], str]
    junk: str
    expected_reward: dict[str, float]
    tasks: int = 2
    judge: Callable[[list[Any]], Callable | None] = lambda tasks: None
    server_options: Callable[[str], dict[str, Any]] = lambda base_url: {}
    reward_name: str = ""
    extra: dict[str, Any] = field(default_factory=dict)


def pico() -> Spec:
    """pico-dsl-v1: the gold reply is the four oracle lines in an answer block."""
    return Spec(
        env_id="pico-dsl-v1",
        train={"split": "train", "num_train": 64},
        eval={"split": "eval"},
        gold=lambda task: "<answer>\n" + "\n".join(task.data.target_lines) + "\n</answer>",
        junk="I am not sure.",
        expected_reward={"gold": 1.0, "junk": 0.0},
        reward_name="exact_match",
    )


SPECS: dict[str, Callable[[], Spec]] = {"pico-dsl-v1": pico}
