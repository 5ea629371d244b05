"""smolscript's train/eval splits and v1 taskset without the scoring service."""

from __future__ import annotations

import asyncio
import socket
from types import SimpleNamespace

import pytest
from smol_envs_core.errors import InfrastructureError
from smolscript import data, splits
from smolscript.similarity import TRIGRAM_THRESHOLD, jaccard, trigrams

from tests.contract_rl.driver import load_tasks
from tests.contract_rl.specs import smolscript_gold

pytestmark = pytest.mark.unit


def test_train_split_holds_no_default_task_nor_a_near_copy() -> None:
    train, evaluation = splits.train_tasks(), splits.eval_tasks()
    assert len(evaluation) == 350 and len(train) > 1000
    assert not {t["id"] for t in train} & {t["id"] for t in evaluation}
    keys = {(t["language"], splits.identity(t)) for t in evaluation}
    assert not [t["id"] for t in train if (t["language"], splits.identity(t)) in keys]
    grams = [(t["language"], trigrams(t["instruction"])) for t in evaluation]
    close = [t["id"] for t in train for language, g in grams
             if language == t["language"] and jaccard(trigrams(t["instruction"]), g)
             >= TRIGRAM_THRESHOLD]
    assert close == []
    # The filter is not vacuous: full2000 holds near-copies that are not default tasks.
    full = data.load_tasks("full2000")
    assert len(full) - len(train) > len(evaluation)


def test_classic_train_dataset_differs_from_the_eval_dataset() -> None:
    from smolscript import load_environment

    env = load_environment(languages="lua")
    train, evaluation = env.get_dataset(), env.get_eval_dataset()
    assert len(train) > len(evaluation) > 0
    assert not {i["id"] for i in train["info"]} & {i["id"] for i in evaluation["info"]}


def test_v1_tasks_are_chat_prompts_of_the_same_protocol() -> None:
    task = load_tasks("smolscript", {"split": "eval", "num_examples": 1})[0]
    row = splits.eval_tasks()[0]
    from smolscript.prompts import build_prompt

    assert task.data.prompt == build_prompt(row) and task.data.system_prompt
    assert task.data.edition == "default" and "tests" not in task.data.model_dump()


def test_a_scoring_service_failure_raises_never_scores_zero() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    options = {"split": "eval", "num_examples": 1,
               "task": {"service_url": f"http://127.0.0.1:{port}"}}
    task = load_tasks("smolscript", options)[0]
    trace = SimpleNamespace(last_reply=smolscript_gold(task), info={})
    with pytest.raises(InfrastructureError, match="scoring service"):
        asyncio.run(task.declared_reward(trace))


def test_the_reply_keeps_its_leading_indentation():
    """verifiers' Trace.last_reply is stripped; a Python body continuation needs its indent."""
    from types import SimpleNamespace

    from smol_envs_core.adapters.v1 import reply_text

    body = "    return n + 1\n"
    trace = SimpleNamespace(assistant_messages=[SimpleNamespace(content=body + "<|im_end|>")],
                            last_reply=body.strip())
    assert reply_text(trace) == body
    assert reply_text(SimpleNamespace(assistant_messages=[], last_reply="x")) == "x"
