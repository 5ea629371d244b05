"""Pure metrics of a parsed answer against the four target lines.

Every metric is a float in [0, 1]. `score_answer` computes them all from one ParsedAnswer, so a
rollout is parsed once and every reward adapter reads the same numbers. Similarity is
1 - Levenshtein distance / max(len) (python-Levenshtein's `distance`); two empty strings are
identical (1.0); a missing line scores 0.
"""

from __future__ import annotations

from collections.abc import Sequence

import Levenshtein

from .parse import ParsedAnswer

LINE_COUNT = 4
EXACT_LINE_METRICS = tuple(f"line_{k}_exact" for k in range(1, LINE_COUNT + 1))
SIMILARITY_LINE_METRICS = tuple(f"line_{k}_similarity" for k in range(1, LINE_COUNT + 1))
METRIC_NAMES: tuple[str, ...] = (
    "exact_match",
    "format_valid",
    "answer_tag_valid",
    "line_count_ok",
    *EXACT_LINE_METRICS,
    "avg_line_similarity",
    *SIMILARITY_LINE_METRICS,
)


def line_similarity(predicted: str | None, target: str) -> float:
    """1 - Levenshtein distance / longer length; 0.0 for a missing line, 1.0 for two empties."""
    if predicted is None:
        return 0.0
    longest = max(len(predicted), len(target))
    if longest == 0:
        return 1.0
    return 1.0 - Levenshtein.distance(predicted, target) / longest


def visible_line_count(text: str) -> int:
    """Lines of `text` after removing final newlines (0 for an empty text)."""
    stripped = text.rstrip("\n")
    return len(stripped.split("\n")) if stripped else 0


def score_answer(parsed: ParsedAnswer, targets: Sequence[str]) -> dict[str, float]:
    """Compute every metric of METRIC_NAMES for one parsed completion.

    Args:
        parsed: output of parse.parse_answer.
        targets: the four gold lines.

    Returns:
        metric name -> float in [0, 1]. exact_match is 1.0 only when the block has exactly the
        four target lines.
    """
    if len(targets) != LINE_COUNT:
        raise ValueError(f"expected {LINE_COUNT} target lines, got {len(targets)}")
    lines = parsed.lines or ()
    predicted = [lines[k] if k < len(lines) else None for k in range(LINE_COUNT)]
    count = len(lines) if parsed.has_block else visible_line_count(parsed.visible_text)
    scores = {
        "exact_match": float(parsed.has_block and tuple(lines) == tuple(targets)),
        "format_valid": float(parsed.has_block and len(lines) == LINE_COUNT),
        "answer_tag_valid": float(parsed.has_block),
        "line_count_ok": float(count == LINE_COUNT),
    }
    similarities = [line_similarity(p, t) for p, t in zip(predicted, targets, strict=True)]
    for k in range(LINE_COUNT):
        scores[EXACT_LINE_METRICS[k]] = float(predicted[k] == targets[k])
        scores[SIMILARITY_LINE_METRICS[k]] = similarities[k]
    scores["avg_line_similarity"] = sum(similarities) / LINE_COUNT
    return {name: scores[name] for name in METRIC_NAMES}
