"""The opt-in shaped reward of pico-dsl-v1, for curricula: partial credit a small model can earn.

Exact match (the benchmark's score) is 0 for nearly every reply of a 135M model, which gives a
policy gradient nothing to follow. `shaped_line_similarity` is the mean similarity of four
predicted lines to the four gold lines (`score.line_similarity`: 1 - Levenshtein distance /
longer length; a missing line 0): the lines of the trailing `<answer>` block when there is one,
else the first four non-empty lines of the reply, so that a reply without the block still earns
credit for its content. Pure; in [0, 1]; 1.0 only for an exact four-line block or four exact
bare lines. Never reported as the benchmark's score.
"""

from __future__ import annotations

from collections.abc import Sequence

from .parse import ParsedAnswer
from .score import LINE_COUNT, line_similarity


def shaped_line_similarity(parsed: ParsedAnswer, targets: Sequence[str]) -> float:
    """Mean line similarity of the block's lines, or of the reply's first four non-empty lines
    when it has no block (see the module docstring)."""
    if len(targets) != LINE_COUNT:
        raise ValueError(f"expected {LINE_COUNT} target lines, got {len(targets)}")
    if parsed.lines is not None:
        lines = list(parsed.lines)
    else:
        lines = [line.strip() for line in parsed.visible_text.split("\n") if line.strip()]
    predicted = [lines[k] if k < len(lines) else None for k in range(LINE_COUNT)]
    return sum(line_similarity(p, t) for p, t in zip(predicted, targets, strict=True)) / LINE_COUNT
