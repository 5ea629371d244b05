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
from smol_envs_core.reasoning import reasoning_from_message
from smol_envs_core.scoring import Score
from smol_envs_core.v1 import DeclaredTask, check_split, reply_text

from smoltalkbench import build, data, judge, splits
from smoltalkbench.defaults import (
    DEFAULT_DATASET,
    DEFAULT_JUDGE_API_KEY_VAR,
    DEFAULT_JUDGE_BASE_URL,
    DEFAULT_JUDGE_MODEL,
)
from smoltalkbench.errors import ConfigError
from smoltalkbench.judge_client import JudgeClient, JudgeConfig, check_judge_options
from smoltalkbench.scorer import DECLARATION, score_reply

ENV_ID = "smoltalkbench"


class SmolTalkData(vf.TaskData):
    """One instruction on the wire (the `prompt`), its reference reply and its topic fields."""

    row_id: str
    reference: str
    topic: str
    category: str
    group: str


class SmolTalkTaskConfig(vf.TaskConfig):
    """The judge, under `--env.taskset.task.*` (the env server builds tasks with it)."""

    judge_model: str = DEFAULT_JUDGE_MODEL
    judge_base_url: str = DEFAULT_JUDGE_BASE_URL
    judge_api_key_var: str | None = DEFAULT_JUDGE_API_KEY_VAR
    """Environment variable holding the judge's key; None or "" for a keyless endpoint."""
    judge_temperature: float = 1.0
    judge_max_retries: int = 3
    judge_timeout_s: float = 60.0
    judge_max_concurrent: int = 8
    length_penalty_chars: int = judge.DEFAULT_LENGTH_PENALTY_CHARS
    order_seed: int = 0
    judge_label_bias: str = "none"
    """How a re-ask is constrained to the labels: "none", "tokens" (llama-cpp-python),
    "ids:<ids of m>;<ids of M>" or "auto" (the ids read from the judge server's /tokenize)."""
    judge_min_label_mass: float = judge.DEFAULT_MIN_LABEL_MASS
    judge_both_orders: bool = False
    """Judge each reply under both labels and average (position bias cancels; 2x calls)."""


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
        c = self.config
        return judge_client(JudgeConfig(
            model=c.judge_model, base_url=c.judge_base_url, api_key_var=c.judge_api_key_var,
            temperature=c.judge_temperature, max_retries=c.judge_max_retries,
            timeout_s=c.judge_timeout_s, max_concurrent=c.judge_max_concurrent,
            label_bias=c.judge_label_bias, min_label_mass=c.judge_min_label_mass,
            both_orders=c.judge_both_orders,
        ))

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


class SmolTalkTasksetConfig(vf.TasksetConfig):
    """Options under `--env.taskset.*`."""

    task: SmolTalkTaskConfig = SmolTalkTaskConfig()
    split: str = "eval"
    """"eval": the benchmark; "train": source conversations not in the benchmark."""
    dataset: str = DEFAULT_DATASET
    """The benchmark: a hub id, a local .parquet/.jsonl path, or "fixture" (packaged)."""
    config: str = "gold"
    hub_split: str = "test"
    source_path: str | None = None
    """Train split: a local copy of the source (train*/test* files); None reads the hub."""
    source_revision: str = build.SOURCE_REVISION
    num_examples: int = -1
    """Rows to use; -1 = all."""


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
        c = self.config
        split = check_split(c.split, ENV_ID)
        if c.num_examples == 0 or c.num_examples < -1:
            raise ConfigError(f"num_examples must be -1 (all) or positive, got {c.num_examples}")
        check_judge_options(c.task.judge_label_bias, c.task.judge_min_label_mass)
        benchmark = data.load_rows(c.dataset, c.config, c.hub_split)
        rows = benchmark.to_list()
        if split == "train":
            candidates = build.candidate_rows(splits.load_source(c.source_path, c.source_revision))
            rows = splits.train_rows(candidates, benchmark["instruction"])
        if c.num_examples > 0:
            rows = rows[: c.num_examples]
        return [SmolTalkTask(to_task_data(row), c.task) for row in rows]
