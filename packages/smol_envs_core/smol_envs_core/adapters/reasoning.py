"""The collection's one rule for reasoning traces: which part of a reply is the answer.

Reasoning models write a trace before their answer (`<think>...</think> The answer is 7.`), or
return the trace in a separate field of the chat message (`reasoning_content`, `reasoning`).
Every environment scores only the answer: a judge never sees the trace, a length rule never
counts it, and an extraction (a `\\boxed{}`, a fenced block, a trailing answer block) never takes
anything from inside it. The rule, shared by all environments:

- the answer is the text after the **last** closing reasoning tag (`</think>` and the usual
  variants below, matched case-insensitively);
- a trace that is opened and never closed leaves **no answer** (the reply was cut off while
  reasoning, or never stopped): `answer` is None, and scorers book it as a malformed reply;
- a reply without any reasoning tag is all answer;
- a separate reasoning field is the trace; the message content is then split by the same rule
  (a server may put a tag in both).

The trace's length is reported as a zero-weight diagnostic. Pure: no I/O.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# Tag names used by reasoning models and chat templates for their trace: DeepSeek-R1, Qwen3,
# QwQ, SmolLM3 and most fine-tunes write <think>; others write <thinking>, <reasoning> or
# <reason>. Kimi writes ◁think▷ ... ◁/think▷.
REASONING_TAG_NAMES = ("think", "thinking", "reasoning", "reason")

_NAMES = "|".join(REASONING_TAG_NAMES)
_OPEN = re.compile(rf"<\s*(?:{_NAMES})\s*>|\u25c1\s*think\s*\u25b7", re.IGNORECASE)
_CLOSE = re.compile(rf"<\s*/\s*(?:{_NAMES})\s*>|\u25c1\s*/\s*think\s*\u25b7", re.IGNORECASE)

# Fields of an OpenAI-style chat message that servers use for a separate reasoning trace
# (vLLM and DeepSeek: reasoning_content; OpenRouter and newer vLLM: reasoning).
REASONING_FIELDS = ("reasoning_content", "reasoning")


@dataclass(frozen=True)
class ReasoningSplit:
    """A reply split into its reasoning trace and its answer.

    Attributes:
        answer: the text after the last closing reasoning tag (the whole reply when it has no
            tag); None when a trace was opened and never closed (no answer was given).
        trace: the reasoning text (tags included), '' when there is none.
    """

    answer: str | None
    trace: str

    @property
    def trace_chars(self) -> int:
        """Length of the trace in characters (a zero-weight diagnostic)."""
        return len(self.trace)


def split_reasoning(text: str, reasoning_field: str | None = None) -> ReasoningSplit:
    """Split `text` into (trace, answer) by the collection's reasoning-trace rule.

    Args:
        text: the reply's content, as the model wrote it.
        reasoning_field: the chat message's separate reasoning text, when the endpoint returned
            one (see `reasoning_from_message`); it is counted as trace.

    Returns:
        A `ReasoningSplit`. Examples: `"<think>a</think> 7"` -> answer `" 7"`, trace
        `"<think>a</think>"`; `"<think>a"` -> answer None; `"7"` -> answer `"7"`, trace `""`;
        `"a</think>7"` (the template opened the trace in the prompt) -> answer `"7"`.
    """
    extra = reasoning_field or ""
    closes = list(_CLOSE.finditer(text))
    if closes:
        end = closes[-1].end()
        return ReasoningSplit(answer=text[end:], trace=extra + text[:end])
    opened = _OPEN.search(text)
    if opened is not None:
        return ReasoningSplit(answer=None, trace=extra + text[opened.start():])
    return ReasoningSplit(answer=text, trace=extra)


def reasoning_from_message(message: object) -> str | None:
    """The separate reasoning text of a chat message (a dict or an SDK object), if any.

    Returns the first non-empty string among `REASONING_FIELDS`, else None.
    """
    for field in REASONING_FIELDS:
        value = message.get(field) if isinstance(message, dict) else getattr(message, field, None)
        if isinstance(value, str) and value:
            return value
    return None
