"""Multiple-choice requests: the context and the continuations to score, per prompt style.

`seed` follows the seed suite (the bare context or question); `lm_eval` follows
lm-evaluation-harness (HellaSwag's preprocessing; `Question: ...\\nAnswer:` for ARC and GPQA).
Each continuation is `" " + choice`. Pure.
"""

from __future__ import annotations

import hashlib
import re

from .errors import ConfigError

PROMPT_STYLES = ("seed", "lm_eval")


def hellaswag_preprocess(text: str) -> str:
    """lm-evaluation-harness's HellaSwag text cleaning (WikiHow `[title]` and bracket tags)."""
    text = text.strip().replace(" [title]", ". ")
    text = re.sub("\\[.*?\\]", "", text)
    return text.replace("  ", " ")


def gpqa_options(question: str, correct: str, incorrect: list[str]) -> tuple[list[str], int]:
    """The four option texts with the correct one at sha256(question) % 4, as the seed does.

    The incorrect answers keep their order in the remaining slots.
    """
    gold = int(hashlib.sha256(question.encode("utf-8")).hexdigest(), 16) % 4
    options = list(incorrect)
    options.insert(gold, correct)
    return options, gold


def mc_request(task: str, row: dict, style: str) -> tuple[str, list[str], list[str], int]:
    """Return (context, continuations, choice texts, gold index) for one row.

    Raises:
        ConfigError: unknown prompt style.
    """
    if style not in PROMPT_STYLES:
        raise ConfigError(f"prompt_style must be one of {PROMPT_STYLES}, got {style!r}")
    if task == "gpqa_diamond":
        choices, gold = gpqa_options(row["question"], row["correct"], row["incorrect"])
        question = row["question"]
    else:
        choices, gold, question = list(row["choices"]), int(row["gold"]), row["question"]
    if task == "hellaswag" and style == "lm_eval":
        context = hellaswag_preprocess(
            f"{row['activity_label']}: {row['ctx_a']} {row['ctx_b'].capitalize()}")
        choices = [hellaswag_preprocess(c) for c in choices]
    elif style == "lm_eval" and task != "hellaswag":
        context = f"Question: {question}\nAnswer:"
    else:
        context = question
    return context, [" " + c for c in choices], choices, gold
