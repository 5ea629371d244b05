"""Score once: each classic rollout is scored by one call before its reward functions read it.

verifiers 0.3.1's `Rubric` catches any exception raised inside a reward function and scores it
0.0. Scoring here happens in `score_rollout`/`score_group`, before any reward function runs, so
an `InfrastructureError` raised by a scoring service or judge client leaves the env-server
worker, reaches `vf-eval` and ends the run, instead of becoming a model's 0.
"""

from __future__ import annotations

import asyncio
import inspect
from typing import Any

from .direct_rubric import DirectCallRubric
from .failures import raise_for_failed_rollout


class ScoreOnceRubric(DirectCallRubric):
    """A rubric that scores each rollout once, before its reward functions read the record.

    Subclasses implement `score_once(state) -> dict`, plain or async (a service or judge
    call; those of a group run concurrently); it may raise `InfrastructureError`. The record is
    stored in `state[self.record_key]` and the reward functions only read it (`DirectCallRubric`
    calls them cheaply). A rollout whose model call failed raises `InfrastructureError` instead
    of being scored.
    """

    record_key = "score_record"

    def score_once(self, state: dict[str, Any]) -> Any:
        """Score one finished rollout; return (or, when async, resolve to) the record."""
        raise NotImplementedError

    def _start(self, state: dict[str, Any]) -> Any:
        """None when the state already has its record (set now, for a plain score_once), else
        the awaitable of an async score_once."""
        if state.get(self.record_key) is not None:
            return None
        raise_for_failed_rollout(state)
        record = self.score_once(state)
        if inspect.isawaitable(record):
            return record
        state[self.record_key] = record
        return None

    async def ensure_scored(self, state: dict[str, Any]) -> dict[str, Any]:
        """Apply the failure policy, then score the rollout unless it already carries a record."""
        pending = self._start(state)
        if pending is not None:
            state[self.record_key] = await pending
        return state[self.record_key]

    async def score_rollout(self, state: dict[str, Any]) -> None:
        """Score the rollout once (`ensure_scored`), then let verifiers read the reward
        functions."""
        await self.ensure_scored(state)
        await super().score_rollout(state)

    async def ensure_group_scored(self, states: list[dict[str, Any]]) -> None:
        """`ensure_scored` for every rollout of a group, the async scorers concurrently."""
        pending = [(state, self._start(state)) for state in states]
        waiting = [(state, p) for state, p in pending if p is not None]
        if waiting:
            records = await asyncio.gather(*(p for _, p in waiting))
            for (state, _), record in zip(waiting, records, strict=True):
                state[self.record_key] = record

    async def score_group(self, states: list[dict[str, Any]]) -> None:
        """Score every rollout of the group once (concurrently), then verifiers' group scoring."""
        await self.ensure_group_scored(states)
        await super().score_group(states)
