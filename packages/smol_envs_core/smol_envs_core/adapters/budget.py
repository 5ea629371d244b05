"""The error budget: a bounded share of tolerated failures of one component, checked when a
classic run ends (root README.md, "When infrastructure fails": tolerated failures are excluded
from the reward average and counted, with the denominator shown)."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Any

from ..errors import InfrastructureError


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
