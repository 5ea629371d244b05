"""verifiers wiring of SmolTalkBench: `load_environment`, the judged rubric and its metrics.

The only module importing verifiers. A rollout is one chat reply to one instruction; the rubric
asks the judge once per rollout (before any reward function runs), stores the resulting
`judge.Judgement` as a dict in `state["judge"]`, and the reward functions below only read it.
Judge failures therefore never raise inside a reward function (verifiers 0.3.1 would log and
score 0): they arrive as `judge_error = 1.0` with a reason, are logged, and the report counts them.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import verifiers as vf

from smoltalkbench import data, judge
from smoltalkbench.errors import ConfigError
from smoltalkbench.judge_client import JudgeClient, JudgeConfig

logger = logging.getLogger(__name__)

DEFAULT_DATASET = "HuggingFaceSwarms/SmolTalkBench"
DEFAULT_JUDGE_MODEL = "deepseek-ai/DeepSeek-V4.1-Flash"
DEFAULT_JUDGE_BASE_URL = "https://router.huggingface.co/v1"
DEFAULT_JUDGE_API_KEY_VAR = "HF_TOKEN"
STATE_KEY = "judge"


def _judged(state: dict) -> dict[str, Any]:
    record = state.get(STATE_KEY)
    if record is None:
        raise RuntimeError("rollout was scored without a judgement (JudgedRubric not used?)")
    return record


def win_prob(state, **_) -> float:
    """Headline, in [0, 1]: P(reply beats reference) after WildBench's length cap; 0 on error."""
    return float(_judged(state)["win_prob"])


def raw_win_prob(state, **_) -> float:
    """In [0, 1]: the judge's P(reply beats reference) before the length penalty; 0 on error."""
    return float(_judged(state)["raw_win_prob"])


def length_penalized(state, **_) -> float:
    """1.0 when the reply exceeded the reference by more than K characters (score capped at 0.5)."""
    return float(_judged(state)["length_penalized"])


def reply_chars(state, **_) -> float:
    """Length of the model's reply in characters (not in [0, 1]; zero weight)."""
    return float(_judged(state)["reply_chars"])


def judge_error(state, **_) -> float:
    """1.0 when the sample could not be judged (judge endpoint, logprobs or rollout failed)."""
    return float(_judged(state)["judge_error"])


METRICS = (win_prob, raw_win_prob, length_penalized, reply_chars, judge_error)
WEIGHTS = (1.0, 0.0, 0.0, 0.0, 0.0)


def _text(message: Any) -> str:
    content = (
        message.get("content") if isinstance(message, dict) else getattr(message, "content", "")
    )
    return vf.Parser()._content_to_text(content) if not isinstance(content, str) else content


class JudgedRubric(vf.Rubric):
    """Rubric that judges each rollout once; the reward functions then read the result."""

    def __init__(self, client: JudgeClient, length_penalty_chars: int, order_seed: int = 0):
        super().__init__(funcs=list(METRICS), weights=list(WEIGHTS))
        self.client = client
        self.length_penalty_chars = length_penalty_chars
        self.order_seed = order_seed

    async def judge_state(self, state: dict) -> dict[str, Any]:
        """Judge one rollout (reply vs reference) and store the Judgement dict in the state."""
        if state.get(STATE_KEY) is not None:
            return state[STATE_KEY]
        reference = str(state.get("answer") or "")
        reply = (self.parser.parse_answer(state.get("completion") or []) or "").strip()
        if isinstance(state.get("error"), vf.EmptyModelResponseError):
            # An empty reply is the model's outcome, not an infrastructure error: score it 0 and
            # clear the error so that verifiers does not retry the rollout (DESIGN.md).
            result = judge.empty_reply(reference)
            state["error"] = None
        elif state.get("error") is not None:
            result = judge.unscored(
                f"rollout failed before judging: {state['error']!r}", reply, reference
            )
        elif not reply:
            result = judge.empty_reply(reference)
        else:
            instruction = _text(state["prompt"][-1])
            messages, label = judge.build_messages(instruction, reply, reference, self.order_seed)
            answer = await self.client.top_logprobs(messages)
            verdict = (
                judge.Verdict(raw_win_prob=None, error=answer.error)
                if answer.error
                else judge.parse_verdict(answer.top_logprobs, label)
            )
            result = judge.judgement(verdict, label, reply, reference, self.length_penalty_chars)
        if result.judge_error:
            logger.error("smoltalkbench judge error (counted in judge_error): %s", result.reason)
        state[STATE_KEY] = result.to_dict()
        return state[STATE_KEY]

    async def score_rollout(self, state):
        await self.judge_state(state)
        await super().score_rollout(state)

    async def score_group(self, states):
        await asyncio.gather(*(self.judge_state(s) for s in states))
        await super().score_group(states)


def load_environment(
    dataset: str = DEFAULT_DATASET,
    config: str = "gold",
    split: str = "test",
    data_files: str | list[str] | None = None,
    num_examples: int = -1,
    judge_model: str = DEFAULT_JUDGE_MODEL,
    judge_base_url: str = DEFAULT_JUDGE_BASE_URL,
    judge_api_key_var: str | None = DEFAULT_JUDGE_API_KEY_VAR,
    judge_temperature: float = 1.0,
    judge_max_retries: int = 3,
    judge_timeout_s: float = 60.0,
    judge_max_concurrent: int = 8,
    length_penalty_chars: int = judge.DEFAULT_LENGTH_PENALTY_CHARS,
    order_seed: int = 0,
    **kwargs,
) -> vf.Environment:
    """SmolTalkBench as a verifiers SingleTurnEnv judged against the reference replies.

    `dataset` is a hub id, a local .parquet/.jsonl path, or "fixture" (packaged, offline). Rows
    load lazily, when the evaluation asks for them. `judge_api_key_var` names the environment
    variable with the judge's key (None or "" for a keyless local endpoint). Raises ConfigError
    for invalid numbers.
    """
    if length_penalty_chars < 0:
        raise ConfigError(f"length_penalty_chars must be >= 0, got {length_penalty_chars}")
    if judge_max_retries < 0 or judge_max_concurrent < 1 or judge_timeout_s <= 0:
        raise ConfigError(
            "judge_max_retries must be >= 0, judge_max_concurrent >= 1, judge_timeout_s > 0"
        )
    if num_examples == 0 or num_examples < -1:
        raise ConfigError(f"num_examples must be -1 (all) or positive, got {num_examples}")
    client = JudgeClient(
        JudgeConfig(
            model=judge_model,
            base_url=judge_base_url,
            api_key_var=judge_api_key_var,
            temperature=judge_temperature,
            max_retries=judge_max_retries,
            timeout_s=judge_timeout_s,
            max_concurrent=judge_max_concurrent,
        )
    )
    if client.api_key() is None:
        logger.warning(
            "judge key variable %s is unset: every judgement will fail", judge_api_key_var
        )

    def build():
        return data.to_verifiers(data.load_rows(dataset, config, split, data_files), num_examples)

    rubric = JudgedRubric(client, length_penalty_chars, order_seed)
    return vf.SingleTurnEnv(eval_dataset=build, rubric=rubric, **kwargs)
