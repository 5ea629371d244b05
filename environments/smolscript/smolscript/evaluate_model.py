"""The evaluator's model path: `smolscript evaluate --model M` generates in process, then
scores, as the card describes.

`evaluate_model(backend, model, output, ...)` builds each selected task's raw prompt (the one
completion template), plans batches by budget and length (`smolscript.generate`), generates
them on the backend (greedy, seed 0, the versioned budgets or `max_new_tokens` for a separately
recorded experiment), checkpoints every generated part in the results file *before* scoring it,
and scores each continuation with the scoring function the vf-eval rubric uses
(`scorer.score_reply`: assembly onto the prompt's head, the hidden tests in the scoring
service). Generation of the next batch overlaps with the scoring of the last.

The results file is the predictions path's (`smolscript.evaluate`: file lock, atomic
checkpoints, resume checks, summary), plus two sections: `generations` (task id -> the raw
continuation, its token counts, whether it hit its limit, or `prompt_too_long`) and
`generation` (the backend, one record per session, and the totals: completions that hit their
limit, OOM retries, final batch size, generation wall time, tokens/s). A resume must match the
model (sha256 or Hub commit), the backend, the budgets, the batch size and the decoding; it
regenerates nothing that was saved. A prompt that does not fit the context with its budget is
never truncated: the task fails as `prompt_too_long` without a generation.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from smol_envs_core.errors import InfrastructureError

from smolscript import data
from smolscript.backends import DECODING, Backend
from smolscript.errors import EvaluationError
from smolscript.evaluate import (
    Run,
    ScoringTasks,
    base_settings,
    checkpoint,
    finish,
    modules_hash,
    open_output,
    selected,
    stop_run,
    task_record,
)
from smolscript.gate import ScoringGate, Slot
from smolscript.generate import BatchRunner, Job, plan_batches, totals
from smolscript.models import ModelRef
from smolscript.prompts import BUDGETS_VERSION, TEMPLATE_ID, build_prompt, token_budget
from smolscript.scorer import score_reply

# Modules whose code decides what is generated; their bytes form the generator hash.
GENERATOR_MODULES = ("backends.py", "generate.py", "prompts.py", "evaluate_model.py")
Progress = Callable[[str, int, int], None]


def model_settings(model: ModelRef, backend: Backend, batch_size: int,
                   max_new_tokens: int | None) -> dict[str, Any]:
    """The model path's part of the run identity: model, backend, template, budgets (the
    versioned table, or the override of a `max_new_tokens` experiment), batch size, decoding
    and the generator's code hash."""
    return {"model": model.identity(), "backend": backend.describe(), "template": TEMPLATE_ID,
            "budgets": BUDGETS_VERSION if max_new_tokens is None
            else f"max_new_tokens={max_new_tokens}",
            "max_new_tokens": max_new_tokens, "batch_size": batch_size, "decoding": DECODING,
            "generator_sha256": modules_hash(GENERATOR_MODULES)}


def _jobs(tasks: Sequence[Mapping[str, Any]], backend: Backend, max_new_tokens: int | None
          ) -> tuple[list[Job], dict[str, dict]]:
    """Every selected task as a Job, and the prompt_too_long generations of those whose prompt
    plus budget exceed the backend's context (never truncated)."""
    jobs, too_long = [], {}
    for order, task in enumerate(tasks):
        prompt = build_prompt(task)
        budget = token_budget(task["language"], task["difficulty"], max_new_tokens)
        length = backend.count_tokens(prompt)
        if length + budget > backend.context_length:
            too_long[task["id"]] = {
                "status": "prompt_too_long", "raw_completion": "", "prompt_tokens": length,
                "budget": budget, "new_tokens": 0, "hit_limit": False,
                "reason": f"{length} prompt tokens + {budget} budget > "
                          f"{backend.context_length}-token context (never truncated)"}
        else:
            jobs.append(Job(task["id"], prompt, budget, length, order))
    return jobs, too_long


def _record(task: Mapping[str, Any], generation: Mapping[str, Any], score: Any) -> dict:
    verdict = score.details["verdict"]
    return task_record(task, verdict, score.parsed, score.details["assembly"],
                       raw_completion=generation["raw_completion"],
                       generation={k: generation.get(k) for k in
                                   ("status", "prompt_tokens", "budget", "new_tokens",
                                    "hit_limit", "session", "batch")})


def evaluate_model(
    backend: Backend,
    model: ModelRef,
    output: str | Path,
    *,
    client_factory: Callable[[], Any],
    edition: str = "default",
    languages: Sequence[str] | None = None,
    difficulties: Sequence[str] | None = None,
    resume: bool = False,
    batch_size: int = 64,
    max_new_tokens: int | None = None,
    concurrency: int = 8,
    progress: Progress | None = None,
) -> dict:
    """Generate with `backend`, score, write `output`; returns the final results document.

    backend: an open generation backend (`backends.open_backend(model)`).
    model: the resolved `--model` (its identity is recorded and checked on resume).
    client_factory: returns an async context manager yielding a ScoringClient.
    batch_size: prompts per generated batch (halved on out-of-memory, recorded).
    max_new_tokens: replaces every task's budget (a separate experiment: never the official
      score).
    progress: called as progress("generated" | "scored", done, total).
    Raises EvaluationError (bad arguments, resume mismatch, output locked) and InfraStop
    (after checkpointing) when the scoring service or the backend fails.
    """
    if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
        raise EvaluationError(f"batch_size must be a positive integer, got {batch_size!r}")
    if concurrency < 1:
        raise EvaluationError(f"concurrency must be >= 1, got {concurrency}")
    if max_new_tokens is not None and (isinstance(max_new_tokens, bool) or max_new_tokens < 1):
        raise EvaluationError(f"max_new_tokens must be a positive integer, got {max_new_tokens!r}")
    output = Path(output)
    langs, diffs = data.check_selection(languages, difficulties)
    tasks = data.load_tasks(edition, langs, diffs)
    if not tasks:
        raise EvaluationError("the selection holds no tasks")
    hidden = data.hidden_for(tasks, data.load_hidden(edition))
    by_id = {t["id"]: t for t in tasks}
    settings = {**base_settings(edition, langs, diffs, "model", client_factory),
                **model_settings(model, backend, batch_size, max_new_tokens)}
    run = Run(settings=settings, selected_ids=list(by_id))
    with open_output(output, run, resume) as previous:
        generations = selected(previous.get("generations"), run)
        sessions = list((previous.get("generation") or {}).get("sessions") or [])
        session = {"session": len(sessions) + 1,
                   "started_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                   "batch_size_start": batch_size, "final_batch_size": batch_size,
                   "oom_retries": 0, "oom_events": [], "batches": 0, "completions": 0,
                   "new_tokens": 0, "wall_s": 0.0}
        sessions.append(session)

        def sync_sections() -> None:
            run.sections = {"generations": dict(sorted(generations.items())),
                            "generation": {"model": model.identity(),
                                           "backend": backend.describe(), "sessions": sessions,
                                           "totals": totals(generations, sessions)}}

        jobs, too_long = _jobs(tasks, backend, max_new_tokens)
        for task_id, entry in too_long.items():
            generations.setdefault(task_id, {**entry, "session": session["session"],
                                             "batch": None})
        plan = [[j for j in batch if j.id not in generations]
                for batch in plan_batches(jobs, batch_size)]
        plan = [batch for batch in plan if batch]
        sync_sections()
        checkpoint(output, run)
        total = len(tasks)

        def report_progress(stage: str, done: int) -> None:
            if progress is not None:
                progress(stage, done, total)

        def on_done(record: dict) -> None:
            run.results[record["id"]] = record
            sync_sections()
            checkpoint(output, run)
            report_progress("scored", len(run.results))

        async def main() -> None:
            async with client_factory() as client:
                pool = ScoringTasks(ScoringGate.on_client(client, concurrency), on_done)

                def scorer(task_id: str) -> Callable[[Slot], Awaitable[dict]]:
                    async def score(slot: Slot) -> dict:
                        entry = generations[task_id]
                        task = by_id[task_id]
                        result = await score_reply(
                            entry["raw_completion"], task, hidden[task_id], slot,
                            prompt_too_long=entry["status"] == "prompt_too_long")
                        return _record(task, entry, result)
                    return score

                for task_id in generations:  # generated earlier (or too long), not scored
                    if task_id not in run.results:
                        pool.submit(scorer(task_id))
                report_progress("generated", len(generations))
                runner = BatchRunner(backend, batch_size)
                for number, batch in enumerate(plan, 1):
                    parts = runner.run(batch)
                    while (step := await asyncio.to_thread(next, parts, None)) is not None:
                        part, made, wall = step
                        for job, generation in zip(part, made, strict=True):
                            generations[job.id] = {
                                "status": "generated", "raw_completion": generation.text,
                                "prompt_tokens": job.prompt_tokens, "budget": job.budget,
                                "new_tokens": generation.new_tokens,
                                "hit_limit": generation.hit_limit,
                                "session": session["session"], "batch": number}
                        session.update(
                            batches=session["batches"] + 1,
                            completions=session["completions"] + len(part),
                            new_tokens=session["new_tokens"] + sum(g.new_tokens for g in made),
                            wall_s=round(session["wall_s"] + wall, 3),
                            oom_retries=runner.oom_retries, oom_events=runner.oom_events,
                            final_batch_size=runner.batch_size)
                        sync_sections()
                        checkpoint(output, run)  # saved before any of it is scored
                        report_progress("generated", len(generations))
                        for job in part:
                            pool.submit(scorer(job.id))
                        pool.raise_failure()
                await pool.drain()

        try:
            asyncio.run(main())
        except InfrastructureError as exc:  # the scoring service or the in-process model
            sync_sections()
            raise stop_run(output, run, exc) from exc
        sync_sections()
        return finish(output, run, langs, bool(languages or difficulties)
                      or max_new_tokens is not None)
