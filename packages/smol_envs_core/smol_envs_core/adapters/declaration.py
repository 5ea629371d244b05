"""One environment's scoring, declared once: its metrics, their weights, its failure kinds.

Every environment of the collection scores a reply in ONE pure function,
`score_reply(reply, task, ...) -> Score`, and declares what that function returns in one
`Declaration`. The classic rubric (`smol_envs_core.adapters.classic`, verifiers 0.3.1
`load_environment`) and the v1 task (`smol_envs_core.adapters.v1.DeclaredTask`, verifiers 0.3.1 and
0.4) are generated from the declaration and both call the same function, so vf-eval's score and a
trainer's reward are the same numbers and a scoring fix lands once (lm-evaluation-harness's
`metric_list` + `process_results`, inspect_ai's scorers: one place computes a sample's score).

No verifiers import: this module and the score functions are testable with literals.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

EMPTY_RESPONSE = "empty_response"
EMPTY_RESPONSE_DOC = "1.0 when the model returned no text (kept and scored 0, not retried)."


@dataclass(frozen=True)
class Metric:
    """One column of the results: a stable snake_case name, its weight and a one-line meaning.

    Attributes:
        name: the column name (in vf-eval's `metrics` and in v1's trace metrics or rewards).
        weight: 1.0 for the one headline reward, 0.0 for every diagnostic metric.
        doc: range, what 1.0 means, what it reads (becomes the reward function's docstring).
    """

    name: str
    weight: float
    doc: str


@dataclass(frozen=True)
class Declaration:
    """What an environment's score function returns, declared once for both adapters.

    Attributes:
        env_id: the environment id ("pico-dsl-v1"), for messages.
        behaviour_version: the scoring's version (semver string; bumped whenever a verdict,
            prompt or metric can change), written to every row's `info["behaviour_version"]`.
        metrics: every metric in column order; exactly one has weight 1.0 (the reward).
        failure_kinds: the model-outcome reasons a reply can fail for (`Score.failure`), e.g.
            "empty_response", "no_answer_block"; infrastructure failures are raised, never here.
        record_key: where the score record (`Score.to_dict()`) is kept, in a classic rollout's
            state and in a v1 trace's `info`.

    Raises:
        ValueError: no or several weight-1.0 metrics, a weight outside {0, 1}, a repeated name.
    """

    env_id: str
    behaviour_version: str
    metrics: tuple[Metric, ...]
    failure_kinds: tuple[str, ...]
    record_key: str

    def __post_init__(self) -> None:
        names = [m.name for m in self.metrics]
        if len(set(names)) != len(names):
            raise ValueError(f"{self.env_id}: repeated metric names in {names}")
        if any(m.weight not in (0.0, 1.0) for m in self.metrics):
            raise ValueError(f"{self.env_id}: metric weights must be 0.0 or 1.0")
        headline = [m.name for m in self.metrics if m.weight == 1.0]
        if len(headline) != 1:
            raise ValueError(f"{self.env_id}: exactly one weight-1.0 metric, got {headline}")

    @cached_property
    def names(self) -> tuple[str, ...]:
        """Every metric name, in column order."""
        return tuple(m.name for m in self.metrics)

    @cached_property
    def _name_set(self) -> frozenset[str]:
        return frozenset(self.names)

    @cached_property
    def reward_name(self) -> str:
        """The headline reward's name (the one weight-1.0 metric)."""
        return next(m.name for m in self.metrics if m.weight == 1.0)

    def with_reward(self, name: str) -> Declaration:
        """The same declaration with `name` as the headline (the former one at weight 0).

        Raises:
            ValueError: `name` is not a declared metric.
        """
        if name not in self.names:
            raise ValueError(f"{self.env_id}: unknown reward {name!r}; valid: {self.names}")
        metrics = tuple(Metric(m.name, float(m.name == name), m.doc) for m in self.metrics)
        return Declaration(self.env_id, self.behaviour_version, metrics, self.failure_kinds,
                           self.record_key)

    def score(self, metrics: Mapping[str, float], *, parsed: Any = None, reason: str = "",
              failure: str | None = None, details: Mapping[str, Any] | None = None) -> Score:
        """Build the Score of one reply from its metric values (every declared name, floats).

        Raises:
            ValueError: a missing or undeclared metric, a non-finite value, or an undeclared
                failure kind (a scorer bug: never silently a 0).
        """
        if metrics.keys() != self._name_set:
            raise ValueError(f"{self.env_id}: score gave {sorted(metrics)}, declared "
                             f"{sorted(self.names)}")
        if failure is not None and failure not in self.failure_kinds:
            raise ValueError(f"{self.env_id}: undeclared failure kind {failure!r}; "
                             f"declared: {self.failure_kinds}")
        values = {name: float(metrics[name]) for name in self.names}
        if not all(map(math.isfinite, values.values())):
            raise ValueError(f"{self.env_id}: non-finite metric in {values}")
        # The weighted sum: the weights are 1.0 for the headline and 0.0 for the rest
        # (checked at construction), so it is the headline's value.
        reward = values[self.reward_name]
        return Score(reward=reward, metrics=values, parsed=parsed, reason=reason,
                     failure=failure, details=dict(details or {}))


@dataclass(frozen=True)
class Score:
    """The score of one reply: what both adapters record.

    Attributes:
        reward: the weighted sum of the metrics (= the headline metric), in [0, 1].
        metrics: every declared metric by name, floats (column order of the declaration).
        parsed: the answer the scorer extracted (JSON-serialisable), or None.
        reason: one line on why the reply scored what it did ("" when it needs none).
        failure: the model-outcome failure kind (one of the declaration's), or None.
        details: environment-specific extras kept with the record (JSON-serialisable).
    """

    reward: float
    metrics: dict[str, float]
    parsed: Any = None
    reason: str = ""
    failure: str | None = None
    details: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """The record as plain JSON-able data (it travels in v1 traces and results rows)."""
        return {"reward": self.reward, "metrics": dict(self.metrics), "parsed": self.parsed,
                "reason": self.reason, "failure": self.failure, "details": dict(self.details)}

    @classmethod
    def from_dict(cls, record: Mapping[str, Any]) -> Score:
        """Inverse of `to_dict`."""
        return cls(reward=float(record["reward"]), metrics=dict(record["metrics"]),
                   parsed=record.get("parsed"), reason=record.get("reason", ""),
                   failure=record.get("failure"), details=dict(record.get("details") or {}))


def empty_metric() -> Metric:
    """The collection's `empty_response` metric (weight 0), which every environment declares."""
    return Metric(EMPTY_RESPONSE, 0.0, EMPTY_RESPONSE_DOC)


def zero_weight(names: Sequence[str], docs: Mapping[str, str]) -> tuple[Metric, ...]:
    """Zero-weight metrics named `names`, documented from `docs` (a name without a doc raises
    KeyError: every column says what it means)."""
    return tuple(Metric(name, 0.0, docs[name]) for name in names)
