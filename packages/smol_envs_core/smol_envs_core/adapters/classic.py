"""The classic adapter: a verifiers 0.3.1 rubric generated from an environment's Declaration.

`DeclaredRubric` is the rubric of every `load_environment` in the collection. Its reward
functions are generated from the declaration (one reader per metric, named and documented by
it, weighted by it); the rollout is scored once by the environment's pure score function
(`scoring.Declaration` / `Score`), before any reward function runs, so an infrastructure failure
it raises stops the run (see `score_once.ScoreOnceRubric`) instead of becoming verifiers' 0.0.
The v1 adapter (`v1.DeclaredTask`) calls the same function: the two give the same numbers.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from ..text import completion_text
from .declaration import Declaration, Metric, Score
from .markers import strip_end_of_turn
from .score_once import ScoreOnceRubric

BEHAVIOUR_VERSION_KEY = "behaviour_version"

ScoreFunction = Callable[[dict[str, Any]], "Score | Awaitable[Score]"]


def classic_reply(state: Mapping[str, Any]) -> str:
    """The reply text of a classic rollout: its last assistant message (or raw completion) as
    the model wrote it, trailing end-of-turn markers removed ("" when it said nothing). The
    same text `v1.reply_text` gives for a v1 trace."""
    return strip_end_of_turn(completion_text(state.get("completion")))


def _reader(metric: Metric, record_key: str) -> Callable[..., float]:
    def read(state: Mapping[str, Any], **_: Any) -> float:
        return float(state[record_key]["metrics"][metric.name])

    read.__name__ = read.__qualname__ = metric.name
    read.__doc__ = metric.doc
    return read


def reward_functions(declaration: Declaration) -> tuple[Callable[..., float], ...]:
    """The rubric's reward functions of `declaration`: one reader per metric, named and
    documented by it, reading `state[record_key]["metrics"][name]`."""
    return tuple(_reader(m, declaration.record_key) for m in declaration.metrics)


def record_behaviour_version(info: Any, version: str) -> None:
    """Write `version` to a row's info (`info["behaviour_version"]`), when it is a dict."""
    if isinstance(info, dict):
        info[BEHAVIOUR_VERSION_KEY] = version


class DeclaredRubric(ScoreOnceRubric):
    """A ScoreOnceRubric whose reward functions and weights come from a Declaration.

    Args:
        declaration: the environment's metrics, weights, failure kinds and record key.
        score: `score(state) -> Score` (or an awaitable of one): the environment's adapter from
            a rollout state to its pure score function (typically
            `score_reply(classic_reply(state), task_of(state))`). It may raise
            InfrastructureError, which stops the run.
        **kwargs: passed to verifiers' Rubric (e.g. `parser`).

    The record kept in `state[declaration.record_key]` is `Score.to_dict()`; the row's info gets
    `behaviour_version`.
    """

    def __init__(self, declaration: Declaration, score: ScoreFunction, **kwargs: Any):
        super().__init__(funcs=list(reward_functions(declaration)),
                         weights=[m.weight for m in declaration.metrics], **kwargs)
        self.declaration = declaration
        self.record_key = declaration.record_key
        self.score_state = score

    def score_once(self, state: dict[str, Any]) -> Any:
        """The rollout's Score as a dict (an awaitable when the score function is async)."""
        record_behaviour_version(state.get("info"), self.declaration.behaviour_version)
        result = self.score_state(state)
        if inspect.isawaitable(result):
            return _as_record(result)
        return result.to_dict()

    def direct_metrics(self, state: dict[str, Any]) -> dict[str, float]:
        """Every declared metric at once, from the score record."""
        return dict(state[self.record_key]["metrics"])


async def _as_record(pending: Awaitable[Score]) -> dict[str, Any]:
    return (await pending).to_dict()
