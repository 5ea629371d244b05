"""smol-slm-eval's scoring functions and their declarations, one per task kind (no verifiers
import).

Generated tasks score a reply: `score_reply(reply, row, kind, tier2)` wraps `math500.math_record`
(math_500) and `bfcl.bfcl_record` (bfcl_v4). Multiple-choice tasks do not generate: the endpoint's
log-likelihoods are scored by `mc.mc_record`, and `score_choice(record, declaration)` turns that
record into the same `Score`. `declaration(kind, headline)` gives each kind's columns with the
task's headline metric as the reward (`tasks.KIND_METRICS` lists the names). The classic rubric
(`env.py`) is generated from it. smol-slm-eval is evaluation-only: its v1 taskset refuses to load
(`taskset.py`), so there is no second adapter to keep in step.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from functools import cache
from typing import Any

from smol_envs_core.adapters.declaration import EMPTY_RESPONSE_DOC, Declaration, Metric, Score

from . import bfcl, math500
from .tasks import BFCL, KIND_METRICS, MATH, MC

ENV_ID = "smol-slm-eval"
BEHAVIOUR_VERSION = "2.0.0"
RECORD_KEY = "slm_eval_score"
DOCS = {
    "acc": "1.0 when the highest summed log-likelihood is the gold choice's (multiple choice).",
    "acc_norm": "1.0 when the highest log-likelihood per character is the gold choice's.",
    "exact_match": "1.0 when math-verify finds the extracted answer equal to the gold answer "
                   "(math_500).",
    "unparseable": "1.0 when the answer is empty or math-verify cannot parse it (the seed's "
                   "meaning: such a row is decided by string comparison); diagnostic, weight 0.",
    "valid_json": "1.0 when the answer is a JSON array of {name, arguments} calls (bfcl_v4 "
                  "Tier 1 diagnostic: calling the first offered function earns it).",
    "function_name_match": "1.0 when the first called name is the first expected one "
                           "(irrelevance: no call attempted) (Tier 1; the headline only when "
                           "asked for or on multi-turn tasks: a blind first-offered call earns "
                           "it on every single-function row).",
    "ast_match": "1.0 when the calls pass the AST checker: names, arguments, types, values, "
                 "no extra call or argument (Tier 2, the single-turn headline; 0.0 on "
                 "multi-turn tasks, which have no checker).",
    "empty_response": EMPTY_RESPONSE_DOC,
    "not_scorable": "1.0 when the row's prompt and reply budget cannot fit the endpoint's "
                    "context: no request was made (or the endpoint refused the prompt), and "
                    "the row is excluded from every score and counted in the report.",
}
NOT_SCORABLE = "prompt_too_long"
FAILURE_KINDS = ("empty_response", "unparseable", "wrong_answer", math500.TIMEOUT_FAILURE,
                 NOT_SCORABLE)


@cache
def declaration(kind: str, headline: str) -> Declaration:
    """The columns of a task kind (MC, MATH or BFCL) with `headline` as the reward.

    Raises:
        KeyError: unknown kind; ValueError: `headline` is not one of the kind's metrics.
    """
    metrics = tuple(Metric(name, float(name == headline), DOCS[name])
                    for name in KIND_METRICS[kind])
    return Declaration(ENV_ID, BEHAVIOUR_VERSION, metrics, FAILURE_KINDS, RECORD_KEY)


def _failure(metrics: Mapping[str, float], headline: str, record: Mapping[str, Any]) -> str | None:
    if record.get("timed_out"):
        return math500.TIMEOUT_FAILURE
    if metrics[headline] == 1.0:
        return None
    if metrics.get("empty_response"):
        return "empty_response"
    if metrics.get("unparseable") or metrics.get("valid_json") == 0.0:
        return "unparseable"
    return "wrong_answer"


def score_reply(reply: str, row: Mapping[str, Any], kind: str, headline: str,
                tier2: bool = False, mode: str = "smol") -> Score:
    """Score a generated reply (math_500 or bfcl_v4) against its row.

    Args:
        reply: the completion text (end-of-turn markers already removed by the adapter).
        row: the task's data row (math: `answer`; bfcl: `category`, `possible_answer`, ...).
        kind: MATH or BFCL; headline: the reward's metric name.
        tier2: bfcl_v4: compute `ast_match` (else it is 0.0).
        mode: bfcl_v4: "smol" or "seed" parsing (`bfcl.MODES`).
    Returns:
        the Score; `details` holds the task's own record (answer, calls, ...), `parsed` the
        extracted answer (math) or calls (bfcl).
    Raises:
        ValueError: `kind` is not a generated kind.
    """
    if kind == MATH:
        return math_score(math500.math_record(reply, row["answer"]), reply, headline)
    empty = float(not reply.strip())
    if kind == BFCL:
        record = bfcl.bfcl_record(reply, dict(row), tier2, mode)
        metrics = {"valid_json": record["valid_json"],
                   "function_name_match": record["function_name_match"],
                   "ast_match": record["ast_match"] or 0.0, "empty_response": empty,
                   "not_scorable": 0.0}
        parsed = record["calls"]
    else:
        raise ValueError(f"score_reply scores generated tasks, not {kind!r}")
    return declaration(kind, headline).score(
        metrics, parsed=parsed, failure=_failure(metrics, headline, record), details=record)


def math_score(record: Mapping[str, Any], reply: str, headline: str) -> Score:
    """The Score of a math_500 reply from its `math500.math_record` (or
    `bounded_math_record`: a comparison cut at its deadline fails as `scorer_timeout`, with
    the reason)."""
    metrics = {"exact_match": record["exact_match"], "unparseable": record["unparseable"],
               "empty_response": float(not reply.strip()), "not_scorable": 0.0}
    return declaration(MATH, headline).score(
        metrics, parsed=record["answer"], reason=record.get("timed_out", ""),
        failure=_failure(metrics, headline, record), details=dict(record))


async def score_reply_bounded(reply: str, row: Mapping[str, Any], kind: str, headline: str,
                              tier2: bool = False, mode: str = "smol",
                              deadline_s: float = math500.SCORE_DEADLINE_S) -> Score:
    """`score_reply` for the adapters: math_500's comparison runs in a worker process with a
    deadline (`math500.bounded_math_record`) from a thread, so a reply that hangs math-verify
    costs at most `deadline_s` and holds no other rollout; bfcl_v4 is scored in place.

    Raises:
        DataError: a gold answer math-verify cannot parse; InfrastructureError: the worker
        process died.
    """
    if kind != MATH:
        return score_reply(reply, row, kind, headline, tier2, mode)
    record = await asyncio.to_thread(math500.bounded_math_record, reply, row["answer"],
                                     deadline_s)
    return math_score(record, reply, headline)


def not_scorable(kind: str, headline: str, reason: str) -> Score:
    """The Score of a generated row whose prompt cannot fit the endpoint's context: every
    metric 0 except `not_scorable` 1.0, failure `prompt_too_long` with `reason`. Reports
    exclude such rows from every score and count them (`composite.pool`)."""
    metrics = {name: 0.0 for name in KIND_METRICS[kind]}
    metrics["not_scorable"] = 1.0
    return declaration(kind, headline).score(metrics, reason=reason, failure=NOT_SCORABLE,
                                             details={"not_scorable": reason})


def score_choice(record: Mapping[str, Any], headline: str) -> Score:
    """The Score of a multiple-choice question from its `mc.mc_record` (no reply text: the
    endpoint's log-likelihoods chose); `parsed` is the chosen index of the headline."""
    metrics = {"acc": record["acc"], "acc_norm": record["acc_norm"]}
    chosen = record["pred_norm" if headline == "acc_norm" else "pred"]
    return declaration(MC, headline).score(
        metrics, parsed=chosen, failure=_failure(metrics, headline, record),
        details=dict(record))
