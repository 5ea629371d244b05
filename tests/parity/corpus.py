"""The parity corpus: one list of replies per environment, built from a task's gold reply.

Every environment's corpus has the same kinds (gold, near miss, junk, empty, whitespace,
end-of-turn markers, a reasoning trace, an over-long reply, an endpoint failure) plus its own
scoring failure where it has a scoring service or judge. Case k goes to task k, so that the
scripted endpoint can answer each task with its case's reply.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

ENDPOINT_FAILURE = "endpoint_failure"
"""The model endpoint answers HTTP 500 (no reply scripted): both adapters must refuse to score."""
SCORING_FAILURE = "scoring_failure"
"""The scoring service or judge fails: both adapters must refuse to score."""
FILLER = "Let me think about this step by step. "


def near_miss(gold: str) -> str:
    """The gold reply with one character changed near its end (before any closing tag)."""
    cut = gold.rfind("</answer>")
    at = (cut if cut > 0 else len(gold.rstrip())) - 2
    at = max(at, 0)
    if not gold:
        return "x"
    swapped = "x" if gold[at] != "x" else "y"
    return gold[:at] + swapped + gold[at + 1:]


def cases(gold: str, scoring_failure: str | None) -> list[tuple[str, str | None]]:
    """(case name, reply) for one environment; None is the endpoint failure (no reply)."""
    out: list[tuple[str, str | None]] = [
        ("gold", gold),
        ("near_miss", near_miss(gold)),
        ("junk", "I am not sure."),
        ("empty", ""),
        ("whitespace", " \n\t"),
        ("eot_marker", gold + "<|im_end|>"),
        ("eot_marker_only", "<|im_end|>"),
        ("reasoning_trace", "<think>\nThe answer is below.\n</think>\n" + gold),
        ("unclosed_reasoning", "<think>\n" + gold),
        ("over_long", FILLER * 600 + gold),
        (ENDPOINT_FAILURE, None),
    ]
    if scoring_failure is not None:
        out.append((SCORING_FAILURE, scoring_failure))
    return out


def assign(tasks: list[Any], gold: Callable[[Any], str],
           scoring_failure: str | Callable[[Any], str] | None
           ) -> list[tuple[str, Any, str | None]]:
    """(case, task, reply) with case k on task k (each task's own gold reply). The scoring
    failure's reply is a fixed text (a judge that fails on it) or, as a callable, a reply per
    task (the gold, for a scoring service that is down).

    Raises:
        ValueError: fewer tasks than cases.
    """
    def failing(task: Any) -> str | None:
        return scoring_failure(task) if callable(scoring_failure) else scoring_failure

    first = cases("gold", failing(tasks[0]) if tasks else None)
    if len(tasks) < len(first):
        raise ValueError(f"{len(first)} cases need as many tasks, got {len(tasks)}")
    out = []
    for k, (name, _) in enumerate(first):
        reply = dict(cases(gold(tasks[k]), failing(tasks[k])))[name]
        out.append((name, tasks[k], reply))
    return out
