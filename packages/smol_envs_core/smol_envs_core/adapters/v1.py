"""What every smol-envs v1 taskset shares: the single-turn rule, reply text and split checks.

verifiers has two APIs (root README.md, "Installing outside the workspace"): the classic one
(`policy.py`, used by `vf-eval NAME -a ...` on 0.3.1) and v1 (`verifiers.v1`: TaskData / Task /
Taskset), the only one in verifiers 0.4 and the only one prime-rl trains. This module imports
only `verifiers.v1`'s public names, which both 0.3.1 and 0.4.0 ship, so a taskset built on it
loads under either version.

The failure policy in v1 terms: a reward or metric that raises (an `InfrastructureError` from a
scoring service or judge client) leaves the trace with an error, so `trace.ok` is False and
trainers drop the rollout; it is never recorded as a reward of 0. A model endpoint failure is
caught by verifiers itself (the trace carries the provider error). An empty reply is a model
outcome: scored 0 and flagged by the `empty_response` metric.
"""

from __future__ import annotations

import inspect
from collections.abc import Sequence
from typing import Any, ClassVar

import verifiers.v1 as vf
from verifiers.v1.runtimes import ProgramResult

from .declaration import Declaration, Score
from .markers import strip_end_of_turn

SPLITS = ("train", "eval")


def reply_text(trace: vf.Trace) -> str:
    """The last assistant reply of `trace` as the model wrote it, with trailing end-of-turn
    markers removed ("" when the model said nothing).

    Not `Trace.last_reply`: verifiers strips it, and leading whitespace is code (a Python body
    continuation loses its indentation and fails to compile).
    """
    messages = getattr(trace, "assistant_messages", None)
    content = messages[-1].content if messages else None
    return strip_end_of_turn(content if isinstance(content, str) else trace.last_reply or "")


def check_split(split: str, env_id: str) -> str:
    """Return `split` when it is "train" or "eval".

    Raises:
        ValueError: any other value, naming the valid ones and the environment.
    """
    if split not in SPLITS:
        raise ValueError(f"{env_id}: unknown split {split!r}; valid: {', '.join(SPLITS)}")
    return split


def disjoint_by(train: Sequence[str], evaluation: set[str]) -> list[int]:
    """Indices of `train` whose key is not in `evaluation` (first occurrence only): the
    filter that keeps a train split free of evaluation items and of its own repeats."""
    seen: set[str] = set()
    kept = []
    for index, key in enumerate(train):
        if key in evaluation or key in seen:
            continue
        seen.add(key)
        kept.append(index)
    return kept


class SingleTurnStop:
    """Mixin for a `vf.Task`: the model answers once (a second turn is refused)."""

    @vf.stop
    async def single_turn(self, trace: vf.Trace) -> bool:
        """Stop after the first model turn."""
        return trace.num_turns >= 1


async def score_once(trace: vf.Trace, key: str, compute) -> dict:
    """The rollout's score record, computed once and kept in `trace.info[key]`.

    Args:
        trace: the finished rollout.
        key: where the record lives in `trace.info` (JSON-serialisable: it travels with the
            trace).
        compute: `async () -> dict` that scores the rollout; may raise `InfrastructureError`,
            which leaves the trace not ok (never a 0 reward).
    Metrics run before rewards in verifiers v1, so a metric computes the record and the
    reward reads it; either may come first without scoring twice.
    """
    record = trace.info.get(key)
    if record is None:
        record = trace.info[key] = await compute()
    return record


BEHAVIOUR_VERSION_KEY = "behaviour_version"


class DeclaredTask(SingleTurnStop):
    """Mixin for a `vf.Task`: the v1 adapter of an environment's Declaration (see `scoring`).

    Subclasses set `declaration` (or override `declared()`, e.g. to choose the headline by a
    task option) and implement `score_reply(reply) -> Score` (plain or async; may raise
    InfrastructureError, which leaves the trace not ok, never a reward of 0). The reply is
    `reply_text(trace)`, the same text the classic adapter scores (`classic.classic_reply`).
    The record (`Score.to_dict()`) is computed once and kept in `trace.info[record_key]`;
    `trace.info["behaviour_version"]` names the scoring. Results: the headline under its
    declared name in `trace.rewards` (weight 1.0), every other metric in `trace.metrics`.
    """

    declaration: ClassVar[Declaration]

    def declared(self) -> Declaration:
        """The declaration this task scores with (the class's, by default)."""
        return self.declaration

    def score_reply(self, reply: str) -> Score:
        """Score one reply (the environment's pure function, with this task's data)."""
        raise NotImplementedError

    def score_trace(self, trace: vf.Trace) -> Any:
        """Score the trace's reply: `score_reply(reply_text(trace))` (a Score, or an awaitable
        of one). An environment that also reads another part of the reply message (e.g. a
        separate reasoning field) overrides this, still calling its one scoring function."""
        return self.score_reply(reply_text(trace))

    async def scored(self, trace: vf.Trace) -> dict[str, Any]:
        """The trace's score record, computed at the first call."""
        declaration = self.declared()

        async def compute() -> dict[str, Any]:
            trace.info[BEHAVIOUR_VERSION_KEY] = declaration.behaviour_version
            result = self.score_trace(trace)
            if inspect.isawaitable(result):
                result = await result
            return result.to_dict()

        return await score_once(trace, declaration.record_key, compute)

    @vf.metric
    async def declared_metrics(self, trace: vf.Trace) -> dict[str, float]:
        """Every declared metric but the headline (zero weight), by name."""
        record = await self.scored(trace)
        headline = self.declared().reward_name
        return {name: v for name, v in record["metrics"].items() if name != headline}

    @vf.reward(weight=1.0)
    async def declared_reward(self, trace: vf.Trace) -> dict[str, float]:
        """The headline reward in [0, 1], under its declared name."""
        record = await self.scored(trace)
        headline = self.declared().reward_name
        return {headline: record["metrics"][headline]}


class ChatHarnessConfig(vf.HarnessConfig):
    """Options of `ChatHarness` (none beyond verifiers' own)."""


class ChatHarness(vf.Harness[ChatHarnessConfig]):
    """One chat completion, in process: the harness every smol-envs taskset ships.

    verifiers' default harness (`bash`) is a coding agent with tools, and its tool-less `null`
    loop is a script that `uv` installs per runtime; our tasks only need the model to answer a
    system + user prompt once. The request goes to verifiers' interception endpoint, which
    applies the caller's sampling (temperature, max_tokens, n) and records the call in the
    trace, so this harness sends no sampling option of its own: the trainer's settings reach
    the model unchanged. A failed request raises, which leaves the trace not ok.
    """

    APPENDS_SYSTEM_PROMPT = True
    EXECUTES_CODE = False
    NEEDS_CONTAINER = False

    async def launch(self, ctx: Any, trace: vf.Trace, runtime: Any, endpoint: str,
                     secret: str, mcp_urls: dict[str, str], data: vf.TaskData,
                     *args: Any, **kwargs: Any) -> ProgramResult:
        """Send the task's messages once; return a synthetic successful program result."""
        from openai import AsyncOpenAI

        system, prompt = self.resolve_prompt(data)
        messages: list[dict[str, Any]] = [{"role": "system", "content": system}] if system else []
        if isinstance(prompt, str):
            messages.append({"role": "user", "content": prompt})
        else:
            messages.extend(m if isinstance(m, dict) else m.model_dump(exclude_none=True)
                            for m in prompt or [])
        async with AsyncOpenAI(base_url=endpoint, api_key=secret, max_retries=0) as client:
            await client.chat.completions.create(model=ctx.model, messages=messages)
        return ProgramResult(exit_code=0, stdout="", stderr="")
