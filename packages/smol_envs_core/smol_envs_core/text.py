"""The text a model produced in one rollout, whatever the API shape of its completion."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def completion_text(completion: Any) -> str:
    """The raw text of a completion: a completions-API string, or the assistant messages'
    contents (strings or lists of text parts) joined; "" for None."""
    if completion is None:
        return ""
    if isinstance(completion, str):
        return completion
    parts = []
    for message in completion:
        content = message.get("content") if isinstance(message, Mapping) else getattr(
            message, "content", None)
        if isinstance(content, str):
            parts.append(content)
        elif isinstance(content, list):
            parts.extend(p.get("text", "") if isinstance(p, Mapping) else getattr(p, "text", "")
                         for p in content)
    return "".join(parts)
