"""smolscript as a verifiers v1 taskset (the API prime-rl trains and verifiers 0.4 ships).

v1 is chat-only, so the task is the chat variant of the completion protocol: a fixed system
prompt (`CHAT_SYSTEM_PROMPT`) and, as the user message, the same raw prompt the classic
environment sends (`prompts.build_prompt`). The reply is assembled exactly as a raw continuation
is (`assemble.assemble_completion`: a bare continuation, one fenced block, or a whole definition)
and scored by the same scoring service. Hidden tests stay on the host: the wire carries the task
id and edition only. A scoring-service failure raises `ScoringInfraError` (an
`InfrastructureError`), which leaves the trace not ok: never a reward of 0.

Sampling belongs to the caller (trainer or `vf-eval`): no temperature or token budget is forced
here; the classic environment's per-task budgets and greedy decoding are its evaluation defaults.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import verifiers.v1 as vf
from smol_envs_core.adapters.declaration import Declaration, Score
from smol_envs_core.adapters.v1 import DeclaredTask

from smolscript import data
from smolscript.config import ScoringOptions, SelectionOptions, selected_tasks
from smolscript.gate import ScoringGate
from smolscript.prompts import build_prompt, check_context, make_token_counter, token_budget
from smolscript.scorer import DECLARATION, declaration_for, score_reply

ENV_ID = "smolscript"
CHAT_SYSTEM_PROMPT = (
    "Continue the code in the user's message. Reply with the code that comes next and nothing "
    "else; a whole program in one fenced code block is accepted too."
)


class SmolscriptData(vf.TaskData):
    """One task on the wire: its id and edition (hidden tests are looked up on the host)."""

    task_id: str
    edition: str
    language: str
    difficulty: str


class SmolscriptTaskConfig(ScoringOptions, vf.TaskConfig):
    """The scoring options (`config.ScoringOptions`) under `--env.taskset.task.*` (the env
    server builds tasks with it)."""


@cache
def edition_tables(edition: str) -> tuple[dict[str, dict], dict[str, dict]]:
    """(task rows by id, hidden tests by id) of a packaged edition, read once per process."""
    tasks = data.load_tasks(edition)
    return {t["id"]: t for t in tasks}, data.hidden_for(tasks, data.load_hidden(edition))


@cache
def service_gate(requested_url: str | None, concurrency: int) -> ScoringGate:
    """One scoring gate (`gate.ScoringGate`) per service option and process (bounds per event
    loop)."""
    return ScoringGate(requested_url, concurrency)


class SmolscriptTask(DeclaredTask, vf.Task[SmolscriptData, vf.State, SmolscriptTaskConfig]):
    """Assembles the reply onto the task's head and runs the hidden tests once per rollout
    (`scorer.score_reply`, the classic rubric's function too)."""

    declaration = DECLARATION

    def declared(self) -> Declaration:
        """The full declaration, or the reward-only one under `reward_only`."""
        return declaration_for(self.config.reward_only)

    async def score_reply(self, reply: str) -> Score:
        """`scorer.score_reply` of the reply for this task (v1 has no prompt-too-long state: an
        endpoint that refuses the prompt fails the model call, and the trace is not ok)."""
        tasks, hidden = edition_tables(self.data.edition)
        task = tasks[self.data.task_id]
        gate = service_gate(self.config.service_url, self.config.concurrency)
        return await score_reply(reply, task, hidden[task["id"]], gate,
                                 reward_only=self.config.reward_only)


class SmolscriptTasksetConfig(SelectionOptions, vf.TasksetConfig):
    """The selection options (`config.SelectionOptions`) under `--env.taskset.*`, and the
    scoring options under `--env.taskset.task.*`: together the classic arguments."""

    task: SmolscriptTaskConfig = SmolscriptTaskConfig()


def to_task_data(task: dict[str, Any], edition: str) -> SmolscriptData:
    """A public task row as the task's wire data (chat variant of the prompt)."""
    return SmolscriptData(
        name=task["id"], task_id=task["id"], edition=edition, language=task["language"],
        difficulty=task["difficulty"], prompt=build_prompt(task),
        system_prompt=CHAT_SYSTEM_PROMPT,
    )


class SmolscriptTaskset(vf.Taskset[SmolscriptTask, SmolscriptTasksetConfig]):
    """smolscript tasks of one split (see `splits.py`); bad options raise ValueError."""

    def load(self) -> list[SmolscriptTask]:
        """The tasks of the configured split, edition and filters (`config.selected_tasks`).
        Raises DataError (a ValueError) for bad options; PromptTooLongError when, with
        `context_length`, a raw prompt plus its token budget does not fit (the classic check)."""
        config = self.config
        config.check("v1")
        config.task.check("v1")
        rows, edition = selected_tasks(config)
        if config.context_length is not None:
            check_context([(t["id"], build_prompt(t), token_budget(t["language"],
                                                                   t["difficulty"]))
                           for t in rows], config.context_length,
                          make_token_counter(config.tokenizer))
        return [SmolscriptTask(to_task_data(row, edition), config.task) for row in rows]
