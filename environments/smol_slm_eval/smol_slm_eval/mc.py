"""Multiple-choice metrics from per-choice log-likelihoods, as lm-evaluation-harness defines them.

acc = [argmax_i ll_i == gold]; acc_norm = [argmax_i ll_i / len(choice_i) == gold], with the
length in characters of the choice text (without the leading space). Ties go to the first
choice (numpy argmax). Pure.
"""

from __future__ import annotations

from collections.abc import Sequence


def argmax(values: Sequence[float]) -> int:
    """Index of the largest value; the first on ties."""
    best = 0
    for i, value in enumerate(values):
        if value > values[best]:
            best = i
    return best


def predicted(logliks: Sequence[float], choices: Sequence[str], headline: str) -> int:
    """The index of the choice the log-likelihoods pick under `headline`'s rule: argmax of
    ll_i / len(choice_i) for "acc_norm", of ll_i otherwise (the first on ties). Pure; what the
    model answers, before any comparison with the gold choice.
    """
    if headline == "acc_norm":
        return argmax([ll / len(c) for ll, c in zip(logliks, choices, strict=True)])
    return argmax(logliks)


def mc_record(logliks: Sequence[float], choices: Sequence[str], gold: int) -> dict:
    """Score one question.

    Args:
        logliks: summed natural-log probability of each continuation given the context.
        choices: the choice texts (their character lengths normalise acc_norm).
        gold: index of the correct choice.

    Returns:
        {"acc", "acc_norm" (0.0/1.0), "pred", "pred_norm" (indices), "logliks", "gold"}.

    Raises:
        ValueError: lengths differ, gold out of range, or an empty choice text.
    """
    if len(logliks) != len(choices) or not 0 <= gold < len(choices):
        raise ValueError(f"{len(logliks)} log-likelihoods for {len(choices)} choices, gold {gold}")
    if any(len(c) == 0 for c in choices):
        raise ValueError("an empty choice text cannot be length-normalised")
    pred, pred_norm = predicted(logliks, choices, "acc"), predicted(logliks, choices, "acc_norm")
    return {"acc": float(pred == gold), "acc_norm": float(pred_norm == gold), "pred": pred,
            "pred_norm": pred_norm, "logliks": [float(x) for x in logliks], "gold": gold}
