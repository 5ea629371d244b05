"""SmolTalkBench's one scoring function and its declaration (both adapters are made from them).

`score_reply(reply, instruction, reference, client, ...)` judges one reply against the reference
once (`JudgeClient.judge`: the answer after any reasoning trace, the one-pass neutralised prompt,
the label-mass floor, the constrained re-ask and the control pair; `judge` builds the prompt and
reads the verdict) and returns a `smol_envs_core.adapters.declaration.Score` whose reward is
`win_prob`. An empty reply, or a reasoning trace that never closed, loses without a judge call (a
model outcome); a reply the judge gives no verdict on, though it gives one on a control pair, is
booked as the reply's loss (`no_verdict`). A judge failure raises `JudgeUnavailableError` (an
InfrastructureError, component "judge") unless the caller tolerates it (the classic
`max_judge_error_rate` > 0): then the Score has `judge_error` = 1.0 and failure "judge_error", which
the error budget counts and excludes from the reward average. The classic rubric and the v1 task
both call it. No verifiers import.
"""

from __future__ import annotations

import logging

from smol_envs_core.adapters.declaration import Declaration, Metric, Score, empty_metric

from smoltalkbench.errors import JudgeUnavailableError
from smoltalkbench.judge_client import JudgeClient

logger = logging.getLogger(__name__)

ENV_ID = "smoltalkbench"
BEHAVIOUR_VERSION = "1.1.0"
RECORD_KEY = "smoltalkbench_judgement"
DECLARATION = Declaration(
    env_id=ENV_ID, behaviour_version=BEHAVIOUR_VERSION,
    metrics=(
        Metric("win_prob", 1.0, "Headline, in [0, 1]: P(reply beats reference) after "
                                "WildBench's length cap; 0 on error."),
        Metric("raw_win_prob", 0.0, "In [0, 1]: the judge's P(reply beats reference) before "
                                    "the length penalty; 0 on error."),
        Metric("length_penalized", 0.0, "1.0 when the reply exceeded the reference by more "
                                        "than K characters (score capped at 0.5)."),
        Metric("reply_chars", 0.0, "Length of the model's reply in characters (not in [0, 1]; "
                                   "zero weight)."),
        Metric("judge_error", 0.0, "1.0 when the sample could not be judged (a tolerated judge "
                                   "failure; excluded from the reward average)."),
        Metric("no_verdict", 0.0, "1.0 when the judge gave no verdict on the reply, even "
                                  "re-asked (booked as its loss)."),
        Metric("trace_chars", 0.0, "Length of the reply's reasoning trace in characters (never "
                                   "judged; zero weight)."),
        empty_metric(),
    ),
    failure_kinds=("empty_response", "judge_error", "no_verdict", "lost"),
    record_key=RECORD_KEY,
)


async def score_reply(reply: str, instruction: str, reference: str, client: JudgeClient,
                      length_penalty_chars: int, order_seed: int = 0,
                      tolerate_judge_error: bool = False, reasoning: str | None = None) -> Score:
    """Judge one reply against the reference.

    Args:
        reply: the model's reply (end-of-turn markers already removed; stripped here).
        instruction: the user's instruction; reference: the reference reply.
        client: the judge client; length_penalty_chars: WildBench's K; order_seed: seeds the
            pair order and the fence tags (with the instruction).
        tolerate_judge_error: record a judge failure as `judge_error` instead of raising.
        reasoning: the chat message's separate reasoning field, if the endpoint returned one
            (counted as trace, never judged).
    Returns:
        the Score; `parsed` = the stripped reply, `details` = the `judge.Judgement` as a dict.
    Raises:
        JudgeUnavailableError: the judge failed and `tolerate_judge_error` is False.
    """
    reply = reply.strip()
    result = await client.judge(instruction, reply, reference, reasoning=reasoning,
                                seed=order_seed, length_penalty_chars=length_penalty_chars)
    if result.judge_error:
        if not tolerate_judge_error:
            raise JudgeUnavailableError(result.reason, client.config.base_url)
        logger.error("smoltalkbench judge error (tolerated, counted): %s", result.reason)
    metrics = {"win_prob": result.win_prob, "raw_win_prob": result.raw_win_prob,
               "length_penalized": float(result.length_penalized),
               "reply_chars": float(result.reply_chars),
               "judge_error": float(result.judge_error),
               "no_verdict": float(result.no_verdict), "trace_chars": float(result.trace_chars),
               "empty_response": float(not reply)}
    failure = ("judge_error" if result.judge_error else "empty_response" if not reply
               else "no_verdict" if result.no_verdict
               else "lost" if result.win_prob < 0.5 else None)
    return DECLARATION.score(metrics, parsed=reply, reason=result.reason, failure=failure,
                             details=result.to_dict())
