"""The collection's infrastructure-failure policy, in verifiers 0.3.1 terms: `PolicyEnv`.

One rule for every environment (root README.md, "When infrastructure fails"):
- an infrastructure failure (model endpoint, scoring service, judge) is never scored as a model
  outcome: the run stops, non-zero, with one line naming the component and its URL
  (`run_policy.RunFailurePolicy`, `failures.raise_for_failed_rollout`);
- an empty model answer is a model outcome: kept, scored 0 and counted (`empty_response`);
- an environment may tolerate a bounded share of judge failures (`budget.ErrorBudget`);
  tolerated failures are excluded from the reward average and counted.

The pieces live one concern per module (failures, direct_rubric, score_once, budget,
quiet_tasks, run_policy; the verifiers internals they rely on in vf031); this module holds the
environment class and re-exports their public names for existing imports.
"""

from __future__ import annotations

import time
from typing import Any

import verifiers as vf

from . import sampling, vf031
from .budget import ErrorBudget
from .direct_rubric import DirectCallGroup, DirectCallRubric, TurnMonitorRubric, num_turns
from .failures import EMPTY_ANSWER_KEY, empty_response, raise_for_failed_rollout
from .run_policy import RunFailurePolicy, mark_failed_run
from .score_once import ScoreOnceRubric

__all__ = ["PolicyEnv", "RunFailurePolicy", "ErrorBudget", "ScoreOnceRubric",
           "DirectCallRubric", "DirectCallGroup", "TurnMonitorRubric", "num_turns",
           "EMPTY_ANSWER_KEY", "empty_response", "raise_for_failed_rollout", "mark_failed_run"]


class PolicyEnv(RunFailurePolicy, vf.SingleTurnEnv):
    """SingleTurnEnv with the collection's failure policy.

    - An empty model answer becomes an empty assistant message flagged `empty_response` (scored
      0 once) instead of verifiers' retry-then-drop.
    - A run that hit an infrastructure failure raises `InfrastructureError` from `generate`
      (`RunFailurePolicy`); uncaught, it prints as one line and the process exits 1.
    - `error_budget`, when set, checks the finished run's share of tolerated failures.
    - `default_max_tokens`, when set, is the token budget of a request that names none (vf-eval
      without `-t`); a budget the user gives always wins. The same holds for every key of the
      environment's `sampling_args` (vf-eval's None is "not set"), and a greedy request carries
      no repetition penalty (`sampling`).
    """

    default_max_tokens: int | None = None

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        # verifiers' MultiTurnMonitorRubric computes num_turns through its slow general path;
        # the same metric, called directly (see DirectCallRubric).
        rubrics = getattr(self.rubric, "rubrics", None)
        if rubrics is not None:
            for k, rubric in enumerate(rubrics):
                if isinstance(rubric, vf031.MultiTurnMonitorRubric):
                    rubrics[k] = TurnMonitorRubric()
            # verifiers' group of our rubrics: scored in one pass (same results).
            if type(self.rubric) is vf.RubricGroup and all(
                    isinstance(r, DirectCallRubric) for r in rubrics):
                self.rubric = DirectCallGroup(rubrics=rubrics)

    def default_sampling_args(self) -> dict[str, Any]:
        """The environment's own sampling: its `sampling_args` (verifiers' `n` and
        `extra_body` included) and `default_max_tokens` as `max_tokens` when set."""
        defaults = dict(getattr(self, "sampling_args", None) or {})
        if self.default_max_tokens is not None:
            defaults.setdefault("max_tokens", self.default_max_tokens)
        return defaults

    async def generate(self, inputs: Any, *args: Any, **kwargs: Any) -> Any:
        """verifiers' `generate` with the caller's sampling laid over the environment's by
        `sampling.effective` (a None from vf-eval leaves the default standing), so that the
        run's metadata (`sampling_args`) records what the requests carry."""
        if len(args) >= 3:
            args = (*args[:2], sampling.effective(self.default_sampling_args(), args[2]),
                    *args[3:])
        else:
            kwargs["sampling_args"] = sampling.effective(self.default_sampling_args(),
                                                         kwargs.get("sampling_args"))
        return await super().generate(inputs, *args, **kwargs)

    def _request_sampling(self, state: Any, args: tuple, kwargs: dict) -> tuple[tuple, dict]:
        if len(args) >= 4:  # (client, model, tool_defs, sampling_args, ...)
            return (*args[:3], sampling.effective(self.default_sampling_args(), args[3]),
                    *args[4:]), kwargs
        given = kwargs.get("sampling_args") or state.get("sampling_args")
        return args, {**kwargs, "sampling_args": sampling.effective(
            self.default_sampling_args(), given)}

    async def get_model_response(self, state: Any, prompt: Any, *args: Any, **kwargs: Any
                                 ) -> vf031.Response:
        """verifiers' model call under the environment's sampling (`sampling.effective`: its
        defaults where the caller set none, greedy without a repetition penalty); an empty
        answer becomes an empty assistant message flagged `empty_response` (verifiers would
        retry, then drop it)."""
        args, kwargs = self._request_sampling(state, args, kwargs)
        try:
            return await super().get_model_response(state, prompt, *args, **kwargs)
        except vf031.EmptyModelResponseError:
            state[EMPTY_ANSWER_KEY] = True
            return vf031.synthetic_response("smol-envs-empty-response", int(time.time()),
                                            str(state.get("model") or ""), "")
