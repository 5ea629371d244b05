"""The chat template the local server applies to a base model: a plain-text dialogue transcript.

A base model has no chat template of its own. The Gemma 3 270M GGUF carries none
(`tokenizer.chat_template` is absent), so llama-cpp-python 0.3.36 falls back to Llama 2's
`[INST] ... [/INST]` markup, which Gemma never saw: measured greedy replies echoed that markup.
Gemma's instruction-tuned turn markup (`<start_of_turn>user ... <start_of_turn>model`) is no
better on the base model, whose turn tokens are untrained: the replies repeated the question and
drifted into stray foreign words. What a base model has seen is text, so a chat request
becomes a transcript it can continue:

    {system messages, joined by a blank line}\n\n      (only when there are any)
    User: {content}\n
    Assistant: {content}\n                              (earlier assistant turns)
    Assistant:

and the reply is cut where the model starts the next turn (`\nUser:` or `\nAssistant:`), or at
its end-of-generation token. The model's BOS is prepended by the tokenizer, once. Pure, except
`register`, which adds the format to llama-cpp-python's registry in the server process.
"""

from __future__ import annotations

from typing import Any

FORMAT_NAME = "smol-envs-transcript"
ROLE_LABELS = {"user": "User", "assistant": "Assistant", "tool": "Tool", "function": "Tool"}
STOP = ["\nUser:", "\nAssistant:"]


def _text(content: Any) -> str:
    """Message content as text: a string as is, text parts joined, anything else empty."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(part.get("text", "") for part in content
                       if isinstance(part, dict) and part.get("type", "text") == "text")
    return ""


def render(messages: list[dict[str, Any]]) -> str:
    """The transcript prompt for OpenAI chat `messages` (dicts with `role` and `content`),
    ending with `Assistant:` for the model to continue. Unknown roles are labelled by their
    capitalised name.
    """
    system = [_text(m.get("content")) for m in messages if m.get("role") in ("system", "developer")]
    lines = []
    for message in messages:
        role = message.get("role", "user")
        if role in ("system", "developer"):
            continue
        label = ROLE_LABELS.get(role, str(role).capitalize())
        lines.append(f"{label}: {_text(message.get('content'))}\n")
    head = "\n\n".join(s for s in system if s)
    return (f"{head}\n\n" if head else "") + "".join(lines) + "Assistant:"


def register() -> None:
    """Register `FORMAT_NAME` with llama-cpp-python's chat formats (idempotent: re-registering
    replaces the same handler)."""
    from llama_cpp.llama_chat_format import (
        ChatFormatterResponse,
        LlamaChatCompletionHandlerRegistry,
        chat_formatter_to_chat_completion_handler,
    )

    def transcript_format(messages: list[dict[str, Any]], **_: Any) -> ChatFormatterResponse:
        return ChatFormatterResponse(prompt=render(messages), stop=list(STOP))

    LlamaChatCompletionHandlerRegistry().register_chat_completion_handler(
        FORMAT_NAME, chat_formatter_to_chat_completion_handler(transcript_format), overwrite=True)
