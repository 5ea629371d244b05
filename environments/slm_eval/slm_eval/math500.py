"""MATH-500: the zero-shot prompt, answer extraction and equivalence (math-verify). Pure.

The answer is the last brace-balanced `\\boxed{}` of the completion, else its last non-empty
line; an empty completion is `unparseable`. Equivalence with the gold answer is decided by
HuggingFace's `math-verify` (symbolic comparison), with its signal-based timeouts off (they
only work on the main thread; the notice math-verify logs about it is kept out of the user's
terminal, see `notices`).
"""

from __future__ import annotations

from .data import last_boxed
from .notices import quiet_math_verify_timeout_notice

PROMPT = (
    "Solve the following math problem. Put your final answer within \\boxed{{}}.\n\n"
    "Problem:\n{problem}\n\nSolution:"
)
STOP = ["\nProblem:", "<|im_end|>", "<|endoftext|>"]


def math_prompt(problem: str) -> str:
    """The zero-shot prompt for one problem."""
    return PROMPT.format(problem=problem)


def extract_answer(completion: str) -> str | None:
    """The last `\\boxed{}` contents, else the last non-empty line; None when there is none."""
    boxed = last_boxed(completion)
    if boxed is not None and boxed.strip():
        return boxed.strip()
    lines = [line.strip() for line in completion.splitlines() if line.strip()]
    return lines[-1] if lines else None


def is_equivalent(predicted: str, gold: str) -> bool:
    """True when math-verify finds `predicted` equal to `gold` (both LaTeX answer strings)."""
    from math_verify import parse, verify

    quiet_math_verify_timeout_notice()
    gold_parsed = parse(f"${gold}$", parsing_timeout=None)
    pred_parsed = parse(f"${predicted}$", parsing_timeout=None)
    if not gold_parsed or not pred_parsed:
        return predicted.strip() == gold.strip()
    return bool(verify(gold_parsed, pred_parsed, timeout_seconds=None))


def math_record(completion: str, gold: str) -> dict:
    """{"answer", "exact_match", "unparseable"} for one completion."""
    answer = extract_answer(completion or "")
    if answer is None:
        return {"answer": None, "exact_match": 0.0, "unparseable": 1.0}
    return {"answer": answer, "exact_match": float(is_equivalent(answer, gold)),
            "unparseable": 0.0}
