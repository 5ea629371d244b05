"""The collection's infrastructure-failure policy, in verifiers 0.3.1 terms.

One rule for every environment (DESIGN.md, "One failure policy"):
- an infrastructure failure (model endpoint, scoring service, judge) is never scored as a model
  outcome: the run stops, non-zero, with one line naming the component and its URL;
- an empty model answer is a model outcome: kept, scored 0 and counted (`empty_response`);
- an environment may tolerate a bounded share of judge failures (`ErrorBudget`); tolerated
  failures are excluded from the reward average and counted, with the denominator shown.

Why rubric overrides and not reward functions: verifiers 0.3.1's `Rubric` catches any exception
raised inside a reward function and scores it 0.0. `ScoreOnceRubric` scores each rollout once,
in `score_rollout`/`score_group`, before any reward function runs, so an `InfrastructureError`
raised there leaves the env-server worker, reaches `vf-eval` and ends the run.
"""

from __future__ import annotations

import asyncio
import inspect
import sys
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import verifiers as vf
from verifiers.types import Response, ResponseMessage

from .errors import InfrastructureError, install_excepthook
from .preflight import endpoint_base_url, ensure_reachable

EMPTY_ANSWER_KEY = "empty_response"


def _url_of(error: BaseException) -> str | None:
    """The request URL found along an exception chain (openai/httpx errors carry one)."""
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        request = getattr(current, "request", None)
        url = getattr(request, "url", None)
        if url:
            return str(url)
        current = current.__cause__ or current.__context__
    return None


def _chain(error: BaseException) -> str:
    """`ModelError -> APIConnectionError: Connection error.` (type names, last message)."""
    names, last = [], error
    current: BaseException | None = error
    while current is not None and len(names) < 6:
        names.append(type(current).__name__)
        last = current
        current = current.__cause__ or current.__context__
    message = str(last).strip() or str(error).strip()
    return " -> ".join(names) + (f": {message}" if message else "")


def raise_for_failed_rollout(state: dict[str, Any]) -> None:
    """Raise when the rollout's model call failed for a reason other than the model's answer.

    An empty answer (`EmptyModelResponseError`) is a model outcome: the error is cleared and the
    rollout flagged `empty_response`. A prompt the endpoint rejected as too long is recorded by
    verifiers as `state["prompt_too_long"]` (no error) and is left to the environment.

    Raises:
        InfrastructureError: component "model endpoint", with the request URL when known.
    """
    error = state.get("error")
    if error is None:
        return
    if isinstance(error, vf.EmptyModelResponseError):
        state["error"] = None
        state[EMPTY_ANSWER_KEY] = True
        return
    if isinstance(error, BaseException):
        raise InfrastructureError("model endpoint", _chain(error), _url_of(error))
    raise InfrastructureError("model endpoint", str(error))


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
        plan = self._plan()
        if plan is None:
            await super().score_rollout(state)
        else:
            self._score_direct(state, plan)

    async def score_group(self, states: list[dict[str, Any]]) -> None:
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
        members = list(self.rubrics)
        plans = [m._plan() if isinstance(m, DirectCallRubric) else None for m in members]
        if not states or not members or any(plan is None for plan in plans):
            await super().score_group(states)
            return
        for member in members:
            if isinstance(member, ScoreOnceRubric):
                await member.ensure_group_scored(states)
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
        await self.ensure_group_scored(states)
        await super().score_group(states)


def empty_response(state: Mapping[str, Any], **_: Any) -> float:
    """1.0 when the model returned no text (kept and scored 0, not retried), else 0.0."""
    return float(bool(state.get(EMPTY_ANSWER_KEY)))


@dataclass(frozen=True)
class ErrorBudget:
    """A bounded share of tolerated failures of one component, read from the run's outputs.

    Attributes:
        metric: the zero-weight metric that is 1.0 on a failed rollout (e.g. "judge_error").
        max_rate: the largest tolerated share in [0, 1]; 0 means any failure stops the run.
        component, url: what the failures are of, for the message.
    """

    metric: str
    max_rate: float
    component: str
    url: str | None = None

    def __post_init__(self) -> None:
        if not 0.0 <= self.max_rate <= 1.0:
            raise ValueError(f"max error rate must be in [0, 1], got {self.max_rate}")

    def apply(self, outputs: dict[str, Any]) -> None:
        """Check a finished run and exclude its tolerated failures from the reward average.

        Rewrites `outputs["metadata"]` (avg_reward and avg_metrics over the rollouts without a
        failure, plus `<metric>_count` and `scored_rollouts`) and drops the failed rollouts from
        `outputs["outputs"]`, which vf-eval only prints (results.jsonl already holds them all).

        Raises:
            InfrastructureError: the share of failures is above `max_rate`, or every rollout
                failed (even with `max_rate` 1.0: a run with no scored rollout has no score).
        """
        rows = outputs["outputs"]
        is_failed = [(r.get("metrics") or {}).get(self.metric, 0.0) >= 0.5 for r in rows]
        failed = [r for r, bad in zip(rows, is_failed, strict=True) if bad]
        if not failed:
            return
        share = len(failed) / len(rows)
        if share > self.max_rate or len(failed) == len(rows):
            why = (f"above the tolerated {self.max_rate:.1%}" if share > self.max_rate
                   else "no rollout is left to score")
            raise InfrastructureError(
                self.component,
                f"{len(failed)} of {len(rows)} rollouts failed ({share:.1%}), {why}",
                self.url,
            )
        kept = [r for r, bad in zip(rows, is_failed, strict=True) if not bad]
        metadata = outputs["metadata"]
        metadata["scored_rollouts"] = len(kept)
        metadata[f"{self.metric}_count"] = len(failed)
        metadata["avg_reward"] = sum(r["reward"] for r in kept) / len(kept)
        metadata["avg_metrics"] = {
            name: sum(r["metrics"][name] for r in kept) / len(kept)
            for name in (metadata.get("avg_metrics") or {})
        }
        outputs["outputs"] = kept
        print(
            f"smol-envs: {len(failed)} of {len(rows)} rollouts had a {self.component} failure "
            f"(tolerated up to {self.max_rate:.1%}); rewards averaged over the other "
            f"{len(kept)}",
            file=sys.stderr,
        )


def _as_infrastructure_error(error: BaseException) -> InfrastructureError | None:
    """The InfrastructureError behind `error`, also when vf-eval's env server sent its repr."""
    if isinstance(error, InfrastructureError):
        return error
    return InfrastructureError.from_text(str(error))


def _drop_unawaited_infrastructure_failures(loop: asyncio.AbstractEventLoop) -> None:
    """Keep the run's failure to its one line.

    When one rollout's infrastructure failure stops a run, verifiers leaves the other rollouts'
    tasks to end on their own; those that fail the same way are never awaited, and asyncio would
    print each with a traceback ("Task exception was never retrieved"). This handler drops
    exceptions that are infrastructure failures (already reported); anything else still reaches
    the previous handler.
    """
    previous = loop.get_exception_handler()

    def handler(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        error = context.get("exception")
        if error is not None and _as_infrastructure_error(error) is not None:
            return
        if previous is not None:
            previous(loop, context)
        else:
            loop.default_exception_handler(context)

    loop.set_exception_handler(handler)


class RunFailurePolicy:
    """Mixin for any verifiers Environment (a `vf.EnvGroup` too): the run-level failure policy.

    A run that hit an infrastructure failure raises `InfrastructureError` from `generate` (also
    when the failure happened in a vf-eval env-server worker, which sends only its repr);
    uncaught, it prints as one line and the process exits 1, and a saved run's folder is renamed
    `<name>-FAILED` (`mark_failed_run`). `error_budget`, when set, checks the finished run's
    share of tolerated failures. Before the first rollout, `preflight` checks that the model
    endpoint accepts a TCP connection (subclasses add their own components, e.g. a judge).
    Put it before the verifiers class: `class E(RunFailurePolicy, vf.EnvGroup)`.
    """

    error_budget: ErrorBudget | None = None

    async def generate(self, *args: Any, **kwargs: Any) -> Any:
        install_excepthook()
        saved = kwargs.get("results_path") if kwargs.get("save_results") else None
        try:
            await self.preflight(kwargs.get("client", args[1] if len(args) > 1 else None))
            outputs = await super().generate(*args, **kwargs)
            if self.error_budget is not None:
                self.error_budget.apply(outputs)
        except Exception as exc:
            infra = _as_infrastructure_error(exc)
            if saved:
                mark_failed_run(Path(saved), str(infra or exc))
            if infra is None:
                raise
            _drop_unawaited_infrastructure_failures(asyncio.get_running_loop())
            raise infra from None
        if saved:
            print(f"smol-envs: results saved to {saved}", file=sys.stderr)
        return outputs


    async def preflight(self, client: Any) -> None:
        """Fail in seconds when nothing listens at the model endpoint (`preflight`), instead
        of after the OpenAI client's minutes of retries. Raises InfrastructureError; a client
        without a base URL (a test's stand-in) is not checked."""
        base = endpoint_base_url(client)
        if base is not None:
            route = "completions" if getattr(self, "message_type", "chat") == "completion" \
                else "chat/completions"
            await ensure_reachable(f"{base}/{route}")


class PolicyEnv(RunFailurePolicy, vf.SingleTurnEnv):
    """SingleTurnEnv with the collection's failure policy.

    - An empty model answer becomes an empty assistant message flagged `empty_response` (scored
      0 once) instead of verifiers' retry-then-drop.
    - A run that hit an infrastructure failure raises `InfrastructureError` from `generate`
      (`RunFailurePolicy`); uncaught, it prints as one line and the process exits 1.
    - `error_budget`, when set, checks the finished run's share of tolerated failures.
    - `default_max_tokens`, when set, is the token budget of a request that names none (vf-eval
      without `-t`); a budget the user gives always wins.
    """

    default_max_tokens: int | None = None

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        # verifiers' MultiTurnMonitorRubric computes num_turns through its slow general path;
        # the same metric, called directly (see DirectCallRubric).
        rubrics = getattr(self.rubric, "rubrics", None)
        if rubrics is not None:
            for k, rubric in enumerate(rubrics):
                if type(rubric).__name__ == "MultiTurnMonitorRubric":
                    rubrics[k] = TurnMonitorRubric()
            # verifiers' group of our rubrics: scored in one pass (same results).
            if type(self.rubric) is vf.RubricGroup and all(
                    isinstance(r, DirectCallRubric) for r in rubrics):
                self.rubric = DirectCallGroup(rubrics=rubrics)

    def _with_default_budget(self, state: Any, args: tuple, kwargs: dict) -> dict:
        if self.default_max_tokens is None or len(args) >= 4 or kwargs.get("sampling_args"):
            return kwargs
        sampling = dict(state.get("sampling_args") or {})
        if sampling.get("max_tokens") is None and sampling.get("max_completion_tokens") is None:
            sampling["max_tokens"] = self.default_max_tokens
        return {**kwargs, "sampling_args": sampling}

    async def get_model_response(self, state: Any, prompt: Any, *args: Any, **kwargs: Any
                                 ) -> Response:
        kwargs = self._with_default_budget(state, args, kwargs)
        try:
            return await super().get_model_response(state, prompt, *args, **kwargs)
        except vf.EmptyModelResponseError:
            state[EMPTY_ANSWER_KEY] = True
            return Response(
                id="smol-envs-empty-response", created=int(time.time()),
                model=str(state.get("model") or ""), usage=None,
                message=ResponseMessage(content="", finish_reason="stop", is_truncated=False),
            )


def mark_failed_run(folder: Path, reason: str) -> Path | None:
    """Rename the results folder of a failed run to `<name>-FAILED` (with the reason in
    FAILED.txt), so that nothing takes its partial rows for results; returns the new path."""
    if not folder.is_dir():
        return None
    target = folder.with_name(f"{folder.name}-FAILED")
    suffix = 1
    while target.exists():
        suffix += 1
        target = folder.with_name(f"{folder.name}-FAILED{suffix}")
    folder.rename(target)
    (target / "FAILED.txt").write_text(reason + "\n")
    print(f"smol-envs: the failed run's partial output is in {target}", file=sys.stderr)
    return target
