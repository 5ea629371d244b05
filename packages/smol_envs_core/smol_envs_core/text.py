"""The text a model produced, read the same way by every environment. Pure."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def completion_text(completion: Any) -> str:
    """The raw text of a completion: a completions string as it is, or the concatenated
    contents of a message list (string contents, or the text of content parts).

    Returns "" for None. Nothing is stripped: callers decide what to remove (see `markers`).
    """
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
