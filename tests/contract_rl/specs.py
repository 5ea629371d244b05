"""Per-environment inputs of the RL contract: splits, a gold and a junk reply, expected rewards.

A `Spec` says how to load the train and eval splits, what a perfect reply to a task is, what a
junk reply is, which reward each should get, and (for judged environments) a scripted judge.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
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
    scoring_failure_reply: str | None = None
    """A reply whose scoring fails (judge or scoring service): the trace must not be ok."""


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


SMOLTALK_JUDGE_CONTEXT_CHARS = 20_000
"""The scripted judge refuses longer requests with the HTTP 400 our server sends for a request
over its context (the parity corpus's over-long reply is 23,000+ characters)."""


def smoltalk_judge(tasks: list[Any]) -> Callable[[dict], list[tuple[str, float]] | dict]:
    """A scripted judge: prefers the model's reply when it is the scripted gold, else the
    reference (top logprobs hold only the preferred identifier); a request over
    SMOLTALK_JUDGE_CONTEXT_CHARS gets the context-length 400 of a real server."""
    from smoltalkbench import judge

    def verdict(body: dict) -> list[tuple[str, float]] | dict:
        user = body["messages"][-1]["content"]
        if len(user) > SMOLTALK_JUDGE_CONTEXT_CHARS:
            return {"status": 400, "error": {
                "message": "This model's maximum context length is 2048 tokens. However, you "
                           "requested 6000 tokens.", "type": "invalid_request_error",
                "code": "context_length_exceeded"}}
        task = next(t for t in tasks if judge.neutralize(t.data.prompt) in user)
        # The reply's label is drawn per reply: it is the label whose section does not hold
        # the reference.
        reference = judge.neutralize(task.data.reference)
        label = next(lab for lab in judge.IDENTIFIERS
                     if f'id="{judge.other_label(lab)}">\n{reference}\n' in user)
        if SMOLTALK_JUDGE_FAILS in user:
            return [(label, 0.5)]  # a positive logprob: malformed, an infrastructure failure
        winner = label if SMOLTALK_GOLD in user else judge.other_label(label)
        return [(winner, 0.0)]

    return verdict


SMOLTALK_GOLD = "Here is a careful, friendly answer."
SMOLTALK_JUDGE_FAILS = "This reply makes the scripted judge send malformed logprobs."
SMOLTALK_SOURCE = "tests/smoltalkbench/fixtures/source"


def smoltalkbench() -> Spec:
    """smoltalkbench: the packaged fixture as the benchmark, the test source copy as the train
    source; a scripted judge on the same loopback endpoint."""
    return Spec(
        env_id="smoltalkbench",
        train={"split": "train", "dataset": "fixture", "source_path": SMOLTALK_SOURCE},
        eval={"split": "eval", "dataset": "fixture"},
        gold=lambda task: SMOLTALK_GOLD,
        junk="junk",
        expected_reward={"gold": 1.0, "junk": 0.0},
        judge=smoltalk_judge,
        server_options=lambda base_url: {"task": {
            "judge_base_url": base_url, "judge_api_key_var": "", "judge_model": "scripted",
            "judge_max_retries": 0}},
        reward_name="win_prob",
        scoring_failure_reply=SMOLTALK_JUDGE_FAILS,
    )


def smolscript_gold(task: Any) -> str:
    """The reference solution after the task's head: what a perfect model continues with."""
    from smolscript import data
    from smolscript.assemble import body_of_reference
    from smolscript.taskset import edition_tables

    row = edition_tables(task.data.edition)[0][task.data.task_id]
    reference = data.load_references(task.data.edition)[task.data.task_id]["reference_solution"]
    return body_of_reference(row, reference)


def smolscript() -> Spec:
    """smolscript (needs the scoring service: the lead runs it, marked integration)."""
    return Spec(
        env_id="smolscript",
        train={"split": "train", "languages": ["python"]},
        eval={"split": "eval"},
        gold=smolscript_gold,
        junk="I cannot write this program.",
        expected_reward={"gold": 1.0, "junk": 0.0},
        reward_name="passed",
    )


SPECS: dict[str, Callable[[], Spec]] = {
    "pico-dsl-v1": pico, "smoltalkbench": smoltalkbench, "smolscript": smolscript,
}
