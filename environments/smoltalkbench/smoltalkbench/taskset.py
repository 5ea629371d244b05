"""SmolTalkBench as a verifiers v1 taskset (the API prime-rl trains and verifiers 0.4 ships).

Same scoring function as the classic environment (`scorer.score_reply`: `judge` builds the
prompt and reads the verdict, `judge_client` calls the judge). Splits: eval is the benchmark
(`data.load_rows`); train is every source conversation not in the benchmark (`splits.py`). A
judge failure raises `InfrastructureError`, which leaves the trace not ok (trainers drop it); it
is never a reward of 0. An empty reply loses without a judge call (a model outcome, reward 0).
"""

from __future__ import annotations

from functools import cache
from typing import Any

import verifiers.v1 as vf
from smol_envs_core.adapters.declaration import Score
from smol_envs_core.adapters.reasoning import reasoning_from_message
from smol_envs_core.adapters.v1 import DeclaredTask, reply_text

from smoltalkbench.config import JudgeOptions, SelectionOptions, benchmark, train_rows
from smoltalkbench.judge_client import JudgeClient, JudgeConfig
from smoltalkbench.scorer import DECLARATION, score_reply

ENV_ID = "smoltalkbench"


class SmolTalkData(vf.TaskData):
    """One instruction on the wire (the `prompt`), its reference reply and its topic fields."""

    row_id: str
    reference: str
    topic: str
    category: str
    group: str


class SmolTalkTaskConfig(JudgeOptions, vf.TaskConfig):
    """The judge options (`config.JudgeOptions`) under `--env.taskset.task.*` (the env server
    builds tasks with it)."""


@cache
def judge_client(config: JudgeConfig) -> JudgeClient:
    """One judge client per judge config and process (safe across event loops)."""
    return JudgeClient(config)


class SmolTalkTask(DeclaredTask, vf.Task[SmolTalkData, vf.State, SmolTalkTaskConfig]):
    """Judges the reply against the reference once per rollout (`scorer.score_reply`, the
    classic rubric's function too); the reward is `win_prob`. A judge failure is never
    tolerated here: it raises, and the trace is not ok."""

    declaration = DECLARATION

    def _client(self) -> JudgeClient:
        return judge_client(self.config.judge_config())

    async def score_reply(self, reply: str, reasoning: str | None = None) -> Score:
        """`scorer.score_reply` of the reply against this task's reference."""
        return await score_reply(reply, self.data.prompt_text, self.data.reference,
                                 self._client(), self.config.length_penalty_chars,
                                 self.config.order_seed, reasoning=reasoning)

    def score_trace(self, trace: vf.Trace):
        """The reply and, where the endpoint returned one, its separate reasoning field."""
        messages = getattr(trace, "assistant_messages", None)
        return self.score_reply(reply_text(trace),
                                reasoning_from_message(messages[-1]) if messages else None)


class SmolTalkTasksetConfig(SelectionOptions, vf.TasksetConfig):
    """The selection options (`config.SelectionOptions`) under `--env.taskset.*`, and the judge
    options under `--env.taskset.task.*`: together the classic arguments."""

    task: SmolTalkTaskConfig = SmolTalkTaskConfig()


def to_task_data(row: dict[str, Any]) -> SmolTalkData:
    """A benchmark-format row (`build.COLUMNS`) as the task's wire data."""
    return SmolTalkData(
        name=row["id"], row_id=row["id"], prompt=row["instruction"], reference=row["output"],
        topic=row["topic"], category=row["category"], group=row["group"],
    )


class SmolTalkTaskset(vf.Taskset[SmolTalkTask, SmolTalkTasksetConfig]):
    """SmolTalkBench tasks of one split; raises ValueError on a bad option and
    InfrastructureError when the train source cannot be reached."""

    def load(self) -> list[SmolTalkTask]:
        """The tasks of the configured split (eval: the benchmark rows; train: the disjoint
        source rows). Raises ConfigError for bad options."""
        config = self.config
        config.check("v1")
        config.task.check("v1")
        rows = benchmark(config)
        rows = rows.to_list() if config.split == "eval" else train_rows(config, rows)
        if config.num_examples > 0:
            rows = rows[: config.num_examples]
        return [SmolTalkTask(to_task_data(row), config.task) for row in rows]
