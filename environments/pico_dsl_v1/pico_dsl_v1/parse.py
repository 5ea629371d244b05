"""Parse a model's completion text into the lines of its final `<answer>` block, or a reason.

Pure. Only a trailing block counts: `<answer>...</answer>` followed by nothing but whitespace.
Earlier drafted or quoted tags are ignored (the block starts at the last `<answer>` before the
final `</answer>`). CRLF and lone CR become LF. Inside the block, trailing spaces/tabs of each
line are removed and blank lines at the start and end of the block are dropped (no target line
ends in whitespace or is empty, so this leniency cannot turn a wrong answer right); everything
else is kept, so fences, labels or blank lines between answer lines make the line count wrong.
A reasoning trace follows the collection's rule (`smol_envs_core.adapters.reasoning`): only the text
after its last closing tag is read, so a block inside a trace never counts, and a trace that never
closes leaves no answer.
"""

from __future__ import annotations

from dataclasses import dataclass

from smol_envs_core.adapters.reasoning import split_reasoning

OPEN_TAG = "<answer>"
CLOSE_TAG = "</answer>"


@dataclass(frozen=True)
class ParsedAnswer:
    """Result of parsing one completion.

    Attributes:
        lines: the block's lines, or None when there is no trailing block.
        reason: "ok", or why there is no block / why it is malformed.
        visible_text: the whole completion text after newline normalization.
    """

    lines: tuple[str, ...] | None
    reason: str
    visible_text: str

    @property
    def has_block(self) -> bool:
        """True when a trailing answer block was found."""
        return self.lines is not None


def normalize_newlines(text: str) -> str:
    """Turn CRLF and lone CR into LF."""
    return text.replace("\r\n", "\n").replace("\r", "\n")


def parse_answer(text: str | None) -> ParsedAnswer:
    """Find the trailing `<answer>` block of `text` and split it into lines.

    Args:
        text: the completion text (None or "" for an empty response).

    Returns:
        ParsedAnswer; `reason` is one of: ok, empty response, reasoning trace never closed, no
        answer tag, unclosed answer tag, text after answer block, closing tag without opening
        tag, wrong line count (N).
    """
    visible = normalize_newlines(text or "")
    if not visible.strip():
        return ParsedAnswer(None, "empty response", visible)
    answer = split_reasoning(visible).answer
    if answer is None:
        return ParsedAnswer(None, "reasoning trace never closed", visible)
    body = answer.rstrip()
    if not body.endswith(CLOSE_TAG):
        if CLOSE_TAG in body:
            return ParsedAnswer(None, "text after answer block", visible)
        if OPEN_TAG in body:
            return ParsedAnswer(None, "unclosed answer tag", visible)
        return ParsedAnswer(None, "no answer tag", visible)
    inner_end = len(body) - len(CLOSE_TAG)
    start = body.rfind(OPEN_TAG, 0, inner_end)
    if start < 0:
        return ParsedAnswer(None, "closing tag without opening tag", visible)
    inner = body[start + len(OPEN_TAG) : inner_end]
    lines = [line.rstrip(" \t") for line in inner.split("\n")]
    while lines and not lines[0]:
        lines.pop(0)
    while lines and not lines[-1]:
        lines.pop()
    reason = "ok" if len(lines) == 4 else f"wrong line count ({len(lines)})"
    return ParsedAnswer(tuple(lines), reason, visible)
