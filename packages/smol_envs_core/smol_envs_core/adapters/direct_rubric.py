"""Cheap classic scoring: verifiers 0.3.1's scoring path for synchronous readers, called directly.

verifiers 0.3.1 calls every reward function of every rollout through a general path (signature
inspection, argument assembly, one asyncio task each) that cost 29x the scoring itself on
pico-dsl-v1's 15 metrics. These rubrics give the same results (reward, metrics, advantage and
the trajectory steps' reward/advantage, as `vf.Rubric.score_group` and `vf.RubricGroup` set
them) with plain calls. This is a re-implementation of verifiers' private scoring behaviour:
`vf031.py` lists what it relies on and `tests/core/adapters/test_vf031.py` checks it against 0.3.1.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Mapping
from typing import Any

import verifiers as vf

_FAST_ARGS = frozenset(("prompt", "completion", "answer", "state", "info"))


def _fast_call_plan(funcs: list[Any]) -> list[tuple[str, Any, tuple[str, ...]]] | None:
    """(name, function, argument names) per reward function, or None when one of them needs
    verifiers' general calling path (a group or async function, or other arguments)."""
    plan = []
    for func in funcs:
        if asyncio.iscoroutinefunction(func):
            return None
        params = inspect.signature(func).parameters
        if any(p.kind is p.VAR_KEYWORD for p in params.values()):
            names = tuple(sorted(_FAST_ARGS))
        else:
            names = tuple(params)
        if not set(names) <= _FAST_ARGS:
            return None
        plan.append((func.__name__, func, names))
    return plan


class DirectCallRubric(vf.Rubric):
    """A rubric whose reward functions are cheap, synchronous readers, called directly.

    verifiers 0.3.1 calls every reward function of every rollout through a general path
    (signature inspection, argument assembly, one asyncio task each) that cost 29x the scoring
    itself on pico-dsl-v1's 15 metrics. Here each function gets the arguments it names among
    prompt/completion/answer/state/info with a plain call, or a subclass returns every metric at
    once from `direct_metrics`. The result is what `vf.Rubric.score_group` sets: `reward`
    (weighted sum), `metrics` (one value per function, by name), `advantage` (reward minus the
    group mean) and the trajectory steps' unset reward/advantage. Unlike verifiers, an exception
    in a reward function propagates: it is a bug, not a model's 0. A rubric with a function that
    needs other arguments, or is async, uses verifiers' path unchanged.
    """

    _plan_cache: tuple[tuple[int, ...], list | None, frozenset[str]] | None = None

    def direct_metrics(self, state: dict[str, Any]) -> dict[str, float] | None:
        """Every metric of one rollout at once (names = the reward functions'), or None to call
        the functions one by one. Subclasses with a score record override it."""
        return None

    def _plan(self) -> list[tuple[str, Any, tuple[str, ...]]] | None:
        key = tuple(id(f) for f in self.funcs)
        if self._plan_cache is None or self._plan_cache[0] != key:
            plan = _fast_call_plan(list(self.funcs))
            self._plan_cache = (key, plan, frozenset(name for name, _, _ in plan or ()))
        return self._plan_cache[1]

    def _score_direct(self, state: dict[str, Any], plan: list) -> float:
        metrics, reward = self.metrics_and_reward(state, plan)
        state["metrics"] = metrics
        state["reward"] = reward
        return reward

    def metrics_and_reward(self, state: dict[str, Any], plan: list) -> tuple[dict, float]:
        """(metrics by reward-function name, weighted reward) of one rollout, via `plan` (from
        `_plan()`); the state is not changed."""
        metrics = self.direct_metrics(state)
        if metrics is None:
            context = {"prompt": state.get("prompt"), "completion": state.get("completion"),
                       "answer": state.get("answer", ""), "state": state,
                       "info": state.get("info", {})}
            metrics = {name: float(func(**{arg: context[arg] for arg in args}))
                       for name, func, args in plan}
        elif metrics.keys() != self._plan_cache[2] or len(metrics) != len(plan):
            raise RuntimeError(f"direct_metrics gave {sorted(metrics)}, the reward functions are "
                               f"{[name for name, _, _ in plan]}")
        else:
            metrics = {name: float(metrics[name]) for name, _, _ in plan}
        reward = 0.0
        for (name, _, _), weight in zip(plan, self.weights, strict=True):
            reward += metrics[name] * weight
        return metrics, reward

    async def score_rollout(self, state: dict[str, Any]) -> None:
        """Score one rollout by calling the metrics directly; verifiers' own path when no plan
        applies."""
        plan = self._plan()
        if plan is None:
            await super().score_rollout(state)
        else:
            self._score_direct(state, plan)

    async def score_group(self, states: list[dict[str, Any]]) -> None:
        """Score a group by direct calls (rewards and metrics written as verifiers would);
        verifiers' own path when no plan applies or the group is empty."""
        plan = self._plan()
        if plan is None or not states:
            await super().score_group(states)
            return
        rewards = [self._score_direct(state, plan) for state in states]
        mean = sum(rewards) / len(rewards)
        for state, reward in zip(states, rewards, strict=True):
            state["advantage"] = reward - mean
            for step in state.get("trajectory") or []:
                if step.get("advantage") is None:
                    step["advantage"] = state["advantage"]
                if step.get("reward") is None:
                    step["reward"] = reward


def num_turns(state: Mapping[str, Any]) -> float:
    """Number of model turns in the rollout (verifiers' multi-turn monitor metric)."""
    return float(len(state.get("trajectory") or []))


class TurnMonitorRubric(DirectCallRubric):
    """verifiers' `num_turns` monitor (weight 0), called directly instead of through its path."""

    def __init__(self, **kwargs: Any):
        super().__init__(funcs=[num_turns], weights=[0.0], **kwargs)

    def direct_metrics(self, state: dict[str, Any]) -> dict[str, float]:
        """{"num_turns": the rollout's number of assistant turns} (verifiers' monitor metric)."""
        return {"num_turns": num_turns(state)}


class DirectCallGroup(vf.RubricGroup):
    """verifiers' RubricGroup whose members are DirectCallRubrics, scored in one pass.

    verifiers 0.3.1's `RubricGroup.score_group` runs each member over the whole group and
    copies every rollout's metrics dict twice per member. Here each member's score-once records
    are made first (`ScoreOnceRubric.ensure_group_scored`), then each rollout is scored by every
    member in one loop. The result is what `vf.RubricGroup.score_group` gives, quirks included:
    reward = sum of the members' rewards; metrics = the rollout's earlier metrics updated with
    the members' (summed where two share a name); `advantage` = the last member's reward minus
    its group mean; trajectory steps without a reward/advantage get the first member's. A group
    with a member that is not a DirectCallRubric (or needs verifiers' path) uses verifiers' code.
    """

    async def score_group(self, states: list[dict[str, Any]]) -> None:
        """Score a group through every member rubric in one direct pass; verifiers' own path
        when a member has no direct plan or the group is empty."""
        members = list(self.rubrics)
        plans = [m._plan() if isinstance(m, DirectCallRubric) else None for m in members]
        if not states or not members or any(plan is None for plan in plans):
            await super().score_group(states)
            return
        for member in members:
            ensure = getattr(member, "ensure_group_scored", None)  # ScoreOnceRubric's records
            if ensure is not None:
                await ensure(states)
        names = [name for plan in plans for name, _, _ in plan]
        disjoint = len(set(names)) == len(names)  # else shared names are summed, as verifiers
        rewards = [[0.0] * len(states) for _ in members]
        for i, state in enumerate(states):
            merged: dict[str, float] = {}
            total = 0.0
            for k, (member, plan) in enumerate(zip(members, plans, strict=True)):
                metrics, reward = member.metrics_and_reward(state, plan)
                rewards[k][i] = reward
                total += reward
                if disjoint:
                    merged.update(metrics)
                    continue
                for name, value in metrics.items():
                    merged[name] = merged.get(name, 0.0) + value
            earlier = state.get("metrics")
            state["metrics"] = {**earlier, **merged} if earlier else merged
            state["reward"] = total
        first_mean = sum(rewards[0]) / len(states)
        last_mean = sum(rewards[-1]) / len(states)
        for i, state in enumerate(states):
            state["advantage"] = rewards[-1][i] - last_mean
            for step in state.get("trajectory") or []:
                if step.get("advantage") is None:
                    step["advantage"] = rewards[0][i] - first_mean
                if step.get("reward") is None:
                    step["reward"] = rewards[0][i]

