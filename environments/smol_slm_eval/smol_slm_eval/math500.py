"""MATH-500: the seed's zero-shot prompt, its answer extraction and its scoring rule. Pure.

The definition is the seed suite's (`slm-eval` 0.0.1, `tasks/slm/math_500`; read for behaviour):

- prompt `Problem: {problem}\\nAnswer:`, no few-shot, greedy, stops at the end-of-turn tokens,
  at most 256 new tokens (lm-evaluation-harness's default `max_gen_toks`, which the task keeps);
- the answer is the contents of the completion's last `\\boxed` (else its last `\\fbox`),
  brace-balanced; a `\\boxed` without a brace takes the rest of the text; when there is none
  (or its braces never close) the answer is the completion's last non-empty line;
- scoring: an empty answer is 0 and `unparseable`; the answer is parsed by math-verify boxed
  (`\\boxed{answer}`), else bare; when neither parses, or verification raises, a normalised
  string comparison decides and the row counts as `unparseable`; otherwise math-verify's
  `verify(gold, answer)` decides. A gold answer math-verify cannot parse is a data error
  (raised, never scored 0).

One deliberate difference from the seed, which has no reasoning models in view: the answer is
taken only from the reply after its reasoning trace (`smol_envs_core.adapters.reasoning`); a trace
that never closes leaves no answer (0, `unparseable`), so a `\\boxed{}` inside a trace never counts.
A reply without reasoning tags (SmolLM2, Gemma 3 base) is scored exactly as the seed does.
math-verify's signal-based timeouts are off (they only work on the main thread, and cannot
interrupt one long C call such as the power `9^{9^{9}}`); the notice it logs about that is kept
out of the user's terminal (`notices`). Instead, the adapters score through
`bounded_math_record`, which runs `math_record` in a worker process with a deadline
(`smol_envs_core.adapters.deadline`): a reply whose comparison runs past `SCORE_DEADLINE_S` scores 0
with the reason `scorer_timeout`, and the other replies are scored meanwhile in other workers.
"""

from __future__ import annotations

import re
import threading

from smol_envs_core.adapters.deadline import DeadlineExceeded, DeadlinePool
from smol_envs_core.adapters.reasoning import split_reasoning

from .errors import DataError
from .notices import quiet_math_verify_timeout_notice

PROMPT = "Problem: {problem}\nAnswer:"
STOP = ["<|im_end|>", "<|endoftext|>"]
MAX_TOKENS = 256
SCORE_DEADLINE_S = 10.0
"""Seconds one reply's math-verify comparison may take in its worker (ordinary replies take
well under 0.1 s on an idle 2-core machine)."""
TIMEOUT_FAILURE = "scorer_timeout"
_POOL: DeadlinePool | None = None
_POOL_LOCK = threading.Lock()


def math_prompt(problem: str) -> str:
    """The zero-shot prompt for one problem (the seed's `doc_to_text`)."""
    return PROMPT.format(problem=problem)


def last_box(text: str) -> str | None:
    """The seed's box rule: the contents of the last `\\boxed` (else last `\\fbox`) or None.

    The braces after it are matched with nesting; a `\\boxed` with no `{` after it takes the
    rest of the text (stripped, None when empty); braces that never close give None.
    """
    keyword = "\\boxed" if "\\boxed" in text else "\\fbox"
    at = text.rfind(keyword)
    if at == -1:
        return None
    start = text.find("{", at)
    if start == -1:
        # The seed measures the tail from the end of "\boxed" for either keyword.
        return text[at + len("\\boxed"):].strip() or None
    depth = 0
    for i in range(start, len(text)):
        depth += {"{": 1, "}": -1}.get(text[i], 0)
        if depth == 0:
            return text[start + 1:i].strip()
    return None


def extract_answer(completion: str) -> str:
    """The seed's filter: the last box's contents, else the last non-empty line, else ''."""
    boxed = last_box(completion)
    if boxed is not None and boxed.strip():
        return boxed.strip()
    lines = [line.strip() for line in completion.splitlines() if line.strip()]
    return lines[-1] if lines else ""


def _normalise(text: str) -> str:
    """The seed's fallback normalisation: no `$`, `\\left`/`\\right`, thin spaces, blanks."""
    text = text.strip().strip("$").strip()
    for token in ("\\left", "\\right", "\\,", "\\!", "\\;"):
        text = text.replace(token, "")
    return re.sub(r"\s+", "", text).rstrip(".")


def _string_match(gold: str, answer: str) -> float:
    g = _normalise(gold)
    return float(bool(g) and g == _normalise(answer))


def _parse(candidates: tuple[str, ...], swallow: bool) -> list | None:
    from math_verify import parse

    for candidate in candidates:
        try:
            parsed = parse(candidate, parsing_timeout=None)
        except Exception:  # noqa: BLE001 - the seed moves on to the next candidate
            if not swallow:
                raise
            parsed = None
        if parsed:
            return parsed
    return None


def score_answer(answer: str, gold: str) -> dict:
    """{"exact_match", "unparseable"} for an extracted answer, by the seed's rule.

    Raises:
        DataError: math-verify cannot parse the gold answer.
    """
    from math_verify import verify

    quiet_math_verify_timeout_notice()
    if not answer.strip():
        return {"exact_match": 0.0, "unparseable": 1.0}
    parsed = _parse((f"\\boxed{{{answer}}}", answer), swallow=True)
    if parsed is None:
        return {"exact_match": _string_match(gold, answer), "unparseable": 1.0}
    gold_parsed = _parse((f"\\boxed{{{gold}}}", gold), swallow=False)
    if not gold_parsed:
        raise DataError(f"math_500: math-verify cannot parse the gold answer {gold!r}")
    try:
        matched = bool(verify(gold_parsed, parsed, timeout_seconds=None))
    except Exception:  # noqa: BLE001 - the seed falls back to the string comparison
        return {"exact_match": _string_match(gold, answer), "unparseable": 1.0}
    return {"exact_match": float(matched), "unparseable": 0.0}


def math_record(completion: str, gold: str) -> dict:
    """{"answer", "exact_match", "unparseable"} for one completion (reasoning trace removed).

    `answer` is None when the reply's reasoning trace never closed (no answer given).

    Raises:
        DataError: math-verify cannot parse the gold answer.
    """
    reply = split_reasoning(completion or "").answer
    if reply is None:
        return {"answer": None, "exact_match": 0.0, "unparseable": 1.0}
    answer = extract_answer(reply)
    return {"answer": answer, **score_answer(answer, gold)}


def _pool() -> DeadlinePool:
    global _POOL
    with _POOL_LOCK:
        if _POOL is None:
            _POOL = DeadlinePool(size=2, preload=["smol_slm_eval.math500", "math_verify"],
                                 memory_bytes=3 << 30, name="math-verify worker")
        return _POOL


def bounded_math_record(completion: str, gold: str,
                        deadline_s: float = SCORE_DEADLINE_S) -> dict:
    """`math_record` in a worker process that is killed after `deadline_s` seconds.

    Returns:
        `math_record`'s dict; when the deadline passed: exact_match 0.0, unparseable 0.0 (nothing
        decided), `answer` the extracted answer and `timed_out` the reason (one line), which
        the scorer reports as the reply's failure `scorer_timeout`. Blocks the calling thread
        only (call it through `asyncio.to_thread` from async code).
    Raises:
        DataError: math-verify cannot parse the gold answer.
        InfrastructureError: the worker process died or could not start.
    """
    try:
        return _pool().call(math_record, completion, gold, deadline_s=deadline_s)
    except DeadlineExceeded as exc:
        reply = split_reasoning(completion or "").answer
        return {"answer": None if reply is None else extract_answer(reply),
                "exact_match": 0.0, "unparseable": 0.0,
                "timed_out": f"math-verify comparison {exc}: scored 0"}
