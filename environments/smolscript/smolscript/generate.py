"""Batches of generation jobs for `smolscript evaluate --model`: the plan, the out-of-memory
backoff and the statistics of a run.

`plan_batches` groups the prompts by token budget (a batch never mixes budgets), then by
prompt length, and cuts each group into batches of `batch_size`, the largest budgets and the
longest prompts first (so an out-of-memory error shows up in the first batch). The plan is a
function of the selection alone, so a resumed run plans the same batches. `BatchRunner`
generates one batch, halving the batch size and retrying the same prompts whenever the backend
runs out of memory (each halving recorded); it yields each part it generated, so that the
caller checkpoints every part before scoring it. `totals` sums a run's statistics. No file,
clock or model access beyond the backend handed in.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from smol_envs_core.errors import InfrastructureError

from smolscript.backends import Backend, Generation, OutOfMemory

# The component an in-process generation failure names (the collection's InfrastructureError:
# the run stops with what it checkpointed, never a model's 0).
COMPONENT = "in-process model"


def generation_error(reason: str) -> InfrastructureError:
    """The infrastructure error of a failed in-process generation."""
    return InfrastructureError(COMPONENT, reason)


@dataclass(frozen=True)
class Job:
    """One prompt to continue: task id, raw prompt, token budget (new tokens) and the prompt's
    length in tokens; `order` is the task's position in the dataset (the last tie-breaker)."""

    id: str
    prompt: str
    budget: int
    prompt_tokens: int
    order: int


def plan_batches(jobs: Sequence[Job], batch_size: int) -> list[list[Job]]:
    """The jobs in batches of at most `batch_size`: grouped by budget (largest first), within
    a budget by prompt length (longest first), then dataset order. Pure.

    Raises ValueError when batch_size < 1."""
    if batch_size < 1:
        raise ValueError(f"batch_size must be >= 1, got {batch_size}")
    ordered = sorted(jobs, key=lambda j: (-j.budget, -j.prompt_tokens, j.order))
    batches = []
    for _, group in itertools.groupby(ordered, key=lambda j: j.budget):
        group = list(group)
        batches += [group[i:i + batch_size] for i in range(0, len(group), batch_size)]
    return batches


@dataclass
class BatchRunner:
    """Generates batches on a backend with out-of-memory backoff.

    batch_size: the current batch size (starts at the requested one; halved on each OOM and
      kept smaller for the rest of the run).
    oom_retries: how many times a batch was retried at half the size; `oom_events` says where
      (first task id of the part, size before and after).
    """

    backend: Backend
    batch_size: int
    stop: tuple[str, ...] = ()
    oom_retries: int = 0
    oom_events: list[dict[str, Any]] = field(default_factory=list)

    def run(self, batch: Sequence[Job]) -> Iterator[tuple[list[Job], list[Generation], float]]:
        """Generate `batch` in parts of at most `batch_size`; yields (jobs, generations,
        wall seconds) for each part generated.

        Raises InfrastructureError (component "in-process model") when even one prompt does
        not fit in memory, or when the backend fails (its RuntimeError)."""
        queue = list(batch)
        while queue:
            part = queue[:self.batch_size]
            started = time.monotonic()
            try:
                generations = self.backend.generate([j.prompt for j in part],
                                                    [j.budget for j in part], self.stop)
            except OutOfMemory as exc:
                if self.batch_size == 1:
                    raise generation_error(f"out of memory at batch size 1 on task {part[0].id}: "
                                          f"{exc}") from exc
                self.oom_retries += 1
                self.oom_events.append({"first_id": part[0].id, "from": self.batch_size,
                                        "to": self.batch_size // 2, "error": str(exc)[:200]})
                self.batch_size //= 2
                continue
            except RuntimeError as exc:
                raise generation_error(f"the backend failed on task {part[0].id}: {exc}") from exc
            if len(generations) != len(part):
                raise generation_error(f"the backend returned {len(generations)} continuations "
                                      f"for {len(part)} prompts")
            yield part, generations, time.monotonic() - started
            queue = queue[len(part):]


def totals(generations: Mapping[str, Mapping[str, Any]],
           sessions: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """A run's generation statistics over all its sessions (a resumed run has several).

    generations: task id -> {"status": "generated" | "prompt_too_long", "new_tokens",
      "hit_limit", ...}; sessions: {"oom_retries", "final_batch_size", "wall_s",
      "new_tokens", ...} per session, in order.
    Returns completions, hit_limit (continuations cut by their token limit), prompt_too_long,
    new_tokens, oom_retries, final_batch_size (the last session's), wall_s (generation time,
    summed) and tokens_per_s (new tokens per second of generation; None before any). Pure.
    """
    made = [g for g in generations.values() if g.get("status") == "generated"]
    wall = sum(float(s.get("wall_s", 0.0)) for s in sessions)
    tokens = sum(int(s.get("new_tokens", 0)) for s in sessions)
    return {"completions": len(made),
            "hit_limit": sum(1 for g in made if g.get("hit_limit")),
            "prompt_too_long": sum(1 for g in generations.values()
                                   if g.get("status") == "prompt_too_long"),
            "new_tokens": sum(int(g.get("new_tokens", 0)) for g in made),
            "oom_retries": sum(int(s.get("oom_retries", 0)) for s in sessions),
            "final_batch_size": sessions[-1].get("final_batch_size") if sessions else None,
            "wall_s": round(wall, 3),
            "tokens_per_s": round(tokens / wall, 2) if wall > 0 else None}
