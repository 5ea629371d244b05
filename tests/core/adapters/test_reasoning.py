"""The reasoning-trace rule: the answer is what follows the last closing tag."""

from __future__ import annotations

import pytest
from smol_envs_core.adapters.reasoning import (
    REASONING_TAG_NAMES,
    reasoning_from_message,
    split_reasoning,
)

pytestmark = pytest.mark.unit


@pytest.mark.parametrize(
    ("text", "answer", "trace", "why"),
    [
        ("7", "7", "", "no tag: all answer"),
        ("<think>a</think> 7", " 7", "<think>a</think>", "one closed trace"),
        ("<think>a</think>x<think>b</think>7", "7", "<think>a</think>x<think>b</think>",
         "the last closing tag wins"),
        ("<think>a", None, "<think>a", "an unclosed trace leaves no answer"),
        ("pre <think>a", None, "<think>a", "an unclosed trace after text: still no answer"),
        ("a</think>7", "7", "a</think>", "trace opened by the chat template"),
        ("<THINK>a</Think >7", "7", "<THINK>a</Think >", "case and spaces in the tag"),
        ("<thinking>a</thinking>7", "7", "<thinking>a</thinking>", "variant tag"),
        ("\u25c1think\u25b7a\u25c1/think\u25b77", "7", "\u25c1think\u25b7a\u25c1/think\u25b7",
         "Kimi's tags"),
        ("<think></think>", "", "<think></think>", "an empty answer is an empty answer"),
    ],
)
def test_split(text, answer, trace, why):
    split = split_reasoning(text)
    assert (split.answer, split.trace) == (answer, trace), why
    assert split.trace_chars == len(trace)


@pytest.mark.parametrize("name", REASONING_TAG_NAMES)
def test_every_tag_name_closes(name):
    assert split_reasoning(f"<{name}>x</{name}>ok").answer == "ok"
    assert split_reasoning(f"<{name}>x").answer is None


def test_separate_reasoning_field_is_trace():
    split = split_reasoning("7", reasoning_field="because")
    assert (split.answer, split.trace) == ("7", "because")
    assert reasoning_from_message({"content": "7", "reasoning_content": "because"}) == "because"
    assert reasoning_from_message({"content": "7", "reasoning": ""}) is None

    class Message:
        reasoning = "r"

    assert reasoning_from_message(Message()) == "r"
