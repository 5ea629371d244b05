"""pico-dsl-v1's one scoring function and its declaration (both adapters are made from them).

`score_reply(reply, target_lines)` parses the reply once (`parse.parse_answer`) and scores it
(`metrics.score_answer`, plus `shaped.shaped_line_similarity` for the opt-in shaped reward) into
a `smol_envs_core.adapters.declaration.Score`. `DECLARATION` lists the classic columns (exact_match
the reward); `SHAPED_DECLARATION` adds `shaped_line_similarity` as the reward of the v1 taskset's
`reward="line_similarity"` option, with exact_match kept as a zero-weight metric. Pure: no
verifiers import.
"""

from __future__ import annotations

from collections.abc import Sequence

from smol_envs_core.adapters.declaration import (
    Declaration,
    Metric,
    Score,
    empty_metric,
    zero_weight,
)

from .metrics import EXACT_LINE_METRICS, METRIC_NAMES, SIMILARITY_LINE_METRICS, score_answer
from .parse import parse_answer
from .shaped import shaped_line_similarity

ENV_ID = "pico-dsl-v1"
BEHAVIOUR_VERSION = "1.1.0"
RECORD_KEY = "pico_dsl_v1_scores"
SHAPED = "shaped_line_similarity"
FAILURE_KINDS = ("empty_response", "no_answer_block", "wrong_line_count", "wrong_answer")
METRIC_DOCS: dict[str, str] = {
    "exact_match": "1.0 when all four parsed lines equal the oracle's (the reward).",
    "format_valid": "1.0 when the response ends with an <answer> block of exactly four lines.",
    "answer_tag_valid": "1.0 when a trailing <answer> block is present.",
    "line_count_ok": "1.0 when the block, or the visible response without one, has four lines.",
    "avg_line_similarity": "Mean of the four line similarities.",
    **{name: f"1.0 when answer line {name[5]} equals the oracle's line."
       for name in EXACT_LINE_METRICS},
    **{name: f"1 - Levenshtein distance / max length for line {name[5]}; missing line 0."
       for name in SIMILARITY_LINE_METRICS},
    SHAPED: "Opt-in shaped reward in [0, 1]: mean line similarity of the answer block, or of "
            "the reply's first lines without one (v1 `reward=\"line_similarity\"`).",
}
DECLARATION = Declaration(
    env_id=ENV_ID, behaviour_version=BEHAVIOUR_VERSION,
    metrics=(Metric("exact_match", 1.0, METRIC_DOCS["exact_match"]),
             *zero_weight(METRIC_NAMES[1:], METRIC_DOCS), empty_metric()),
    failure_kinds=FAILURE_KINDS, record_key=RECORD_KEY,
)
SHAPED_DECLARATION = Declaration(
    env_id=ENV_ID, behaviour_version=BEHAVIOUR_VERSION,
    metrics=(*zero_weight(METRIC_NAMES, METRIC_DOCS), empty_metric(),
             Metric(SHAPED, 1.0, METRIC_DOCS[SHAPED])),
    failure_kinds=FAILURE_KINDS, record_key=RECORD_KEY,
)


def score_reply(reply: str, target_lines: Sequence[str],
                declaration: Declaration = DECLARATION) -> Score:
    """Score one reply against the four gold lines.

    Args:
        reply: the model's reply text (end-of-turn markers already removed by the adapter).
        target_lines: the oracle's four lines.
        declaration: `DECLARATION` (exact match) or `SHAPED_DECLARATION`.
    Returns:
        the Score: every declared metric, `parsed` = the block's lines joined by newlines (None
        without a block), `reason` = the parser's ("ok", "no answer tag", ...), `failure` = one
        of FAILURE_KINDS or None for an exact match.
    Raises:
        ValueError: `target_lines` does not hold four lines (a data error).
    """
    parsed = parse_answer(reply)
    metrics = score_answer(parsed, target_lines)
    metrics["empty_response"] = float(not reply.strip())
    if SHAPED in declaration.names:
        metrics[SHAPED] = shaped_line_similarity(parsed, target_lines)
    if metrics["exact_match"] == 1.0:
        failure = None
    elif metrics["empty_response"]:
        failure = "empty_response"
    elif not parsed.has_block:
        failure = "no_answer_block"
    elif not metrics["format_valid"]:
        failure = "wrong_line_count"
    else:
        failure = "wrong_answer"
    return declaration.score(
        metrics, parsed="\n".join(parsed.lines) if parsed.lines is not None else None,
        reason=parsed.reason, failure=failure)
