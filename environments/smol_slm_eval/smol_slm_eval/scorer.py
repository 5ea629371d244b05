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

from collections.abc import Mapping
from functools import cache
from typing import Any

from smol_envs_core.scoring import EMPTY_RESPONSE_DOC, Declaration, Metric, Score

from . import bfcl, math500
from .tasks import BFCL, KIND_METRICS, MATH, MC

ENV_ID = "smol-slm-eval"
BEHAVIOUR_VERSION = "1.1.0"
RECORD_KEY = "slm_eval_score"
DOCS = {
    "acc": "1.0 when the highest summed log-likelihood is the gold choice's (multiple choice).",
    "acc_norm": "1.0 when the highest log-likelihood per character is the gold choice's.",
    "exact_match": "1.0 when math-verify finds the extracted answer equal to the gold answer "
                   "(math_500).",
    "unparseable": "1.0 when the answer is empty or math-verify cannot parse it (the seed's "
                   "meaning: such a row is decided by string comparison); diagnostic, weight 0.",
    "valid_json": "1.0 when the answer is a JSON array of {name, arguments} calls (bfcl_v4 "
                  "Tier 1).",
    "function_name_match": "1.0 when the called names equal the expected ones (irrelevance: no "
                           "call) (Tier 1).",
    "ast_match": "1.0 when the calls pass the AST checker (Tier 2; 0.0 when Tier 2 is off).",
    "empty_response": EMPTY_RESPONSE_DOC,
}
FAILURE_KINDS = ("empty_response", "unparseable", "wrong_answer")


@cache
def declaration(kind: str, headline: str) -> Declaration:
    """The columns of a task kind (MC, MATH or BFCL) with `headline` as the reward.

    Raises:
        KeyError: unknown kind; ValueError: `headline` is not one of the kind's metrics.
    """
    metrics = tuple(Metric(name, float(name == headline), DOCS[name])
                    for name in KIND_METRICS[kind])
    return Declaration(ENV_ID, BEHAVIOUR_VERSION, metrics, FAILURE_KINDS, RECORD_KEY)


def _failure(metrics: Mapping[str, float], headline: str) -> str | None:
    if metrics[headline] == 1.0:
        return None
    if metrics.get("empty_response"):
        return "empty_response"
    if metrics.get("unparseable") or metrics.get("valid_json") == 0.0:
        return "unparseable"
    return "wrong_answer"


def score_reply(reply: str, row: Mapping[str, Any], kind: str, headline: str,
                tier2: bool = False) -> Score:
    """Score a generated reply (math_500 or bfcl_v4) against its row.

    Args:
        reply: the completion text (end-of-turn markers already removed by the adapter).
        row: the task's data row (math: `answer`; bfcl: `category`, `possible_answer`, ...).
        kind: MATH or BFCL; headline: the reward's metric name.
        tier2: bfcl_v4: compute `ast_match` (else it is 0.0).
    Returns:
        the Score; `details` holds the task's own record (answer, calls, ...), `parsed` the
        extracted answer (math) or calls (bfcl).
    Raises:
        ValueError: `kind` is not a generated kind.
    """
    empty = float(not reply.strip())
    if kind == MATH:
        record = math500.math_record(reply, row["answer"])
        metrics = {"exact_match": record["exact_match"], "unparseable": record["unparseable"],
                   "empty_response": empty}
        parsed = record["answer"]
    elif kind == BFCL:
        record = bfcl.bfcl_record(reply, dict(row), tier2)
        metrics = {"valid_json": record["valid_json"],
                   "function_name_match": record["function_name_match"],
                   "ast_match": record["ast_match"] or 0.0, "empty_response": empty}
        parsed = record["calls"]
    else:
        raise ValueError(f"score_reply scores generated tasks, not {kind!r}")
    return declaration(kind, headline).score(
        metrics, parsed=parsed, failure=_failure(metrics, headline), details=record)


def score_choice(record: Mapping[str, Any], headline: str) -> Score:
    """The Score of a multiple-choice question from its `mc.mc_record` (no reply text: the
    endpoint's log-likelihoods chose); `parsed` is the chosen index of the headline."""
    metrics = {"acc": record["acc"], "acc_norm": record["acc_norm"]}
    chosen = record["pred_norm" if headline == "acc_norm" else "pred"]
    return declaration(MC, headline).score(
        metrics, parsed=chosen, failure=_failure(metrics, headline), details=dict(record))
