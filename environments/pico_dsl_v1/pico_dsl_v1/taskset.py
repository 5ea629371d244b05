"""pico-dsl-v1 as a verifiers v1 taskset (the API prime-rl trains and verifiers 0.4 ships).

Same pure core as the classic environment (`splits`, `parse`, `score`); this is the only module
that imports `verifiers.v1`. The reward is exact match by default; `reward="line_similarity"`
switches to an opt-in shaped reward for curricula (`shaped.shaped_line_similarity`: credit for
lines 3 and 4 beyond what a tape-blind answer gets, see shaped.py), recorded under its own name
`shaped_line_similarity` so it is never mistaken for the benchmark's score (`exact_match` stays
a metric either way).
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

import verifiers.v1 as vf
from smol_envs_core.v1 import SingleTurnTask, check_split, reply_text, score_once

from .data import SLICE_CHOICES
from .errors import ConfigError
from .parse import parse_answer
from .prompt import SYSTEM_PROMPT
from .score import METRIC_NAMES, score_answer
from .shaped import shaped_line_similarity
from .splits import DEFAULT_TRAIN_ROWS, eval_rows, prompt_key, train_rows

ENV_ID = "pico-dsl-v1"
RECORD_KEY = "pico_dsl_v1_scores"
# reward option -> reward name in the results (and in the score record)
REWARDS: dict[str, str] = {
    "exact_match": "exact_match",
    "line_similarity": "shaped_line_similarity",
}


class PicoData(vf.TaskData):
    """One pico-dsl-v1 task on the wire: the row id, its cell and the four gold lines."""

    row_id: str
    slice_name: str
    complexity_level: str
    target_lines: list[str]
    reward_name: str = "exact_match"
    """Which reward the task records: "exact_match" or "shaped_line_similarity"."""


class PicoTask(SingleTurnTask, vf.Task[PicoData]):
    """Scores the reply's trailing `<answer>` block against the four gold lines."""

    @property
    def key(self) -> str:
        """Content identity (prompt and gold lines), the same in every split and run."""
        content = {"prompt": self.data.prompt, "target_lines": self.data.target_lines}
        return hashlib.sha256(json.dumps(content, sort_keys=True).encode()).hexdigest()

    async def _record(self, trace: vf.Trace) -> dict[str, float]:
        async def compute() -> dict[str, float]:
            parsed = parse_answer(reply_text(trace))
            record = score_answer(parsed, self.data.target_lines)
            if self.data.reward_name == "shaped_line_similarity":
                record["shaped_line_similarity"] = shaped_line_similarity(
                    parsed, self.data.target_lines)
            return record

        return await score_once(trace, RECORD_KEY, compute)

    @vf.metric
    async def pico_metrics(self, trace: vf.Trace) -> dict[str, float]:
        """Every metric of `score.METRIC_NAMES` (exact_match, format and line scores), in [0, 1]."""
        record = await self._record(trace)
        return {name: record[name] for name in METRIC_NAMES}

    @vf.reward(weight=1.0)
    async def reward(self, trace: vf.Trace) -> dict[str, float]:
        """The headline reward in [0, 1], named by the task: exact_match (all four lines equal,
        the benchmark's score) or shaped_line_similarity (opt-in, partial credit; see shaped.py)."""
        return {self.data.reward_name: (await self._record(trace))[self.data.reward_name]}


class PicoTasksetConfig(vf.TasksetConfig):
    """Options under `--env.taskset.*`."""

    split: str = "eval"
    """"eval": the fixed benchmark; "train": the generated stream minus the benchmark."""
    slice: str = "mixed"
    """"mixed" or one slice name."""
    num_train: int = DEFAULT_TRAIN_ROWS
    """Rows of the train split."""
    seed: int = 0
    """First seed of the train split's generated stream."""
    difficulty: str | None = None
    """Train split only: tiny/easy/medium/hard/mixed or tape16/24/34/48."""
    reward: str = "exact_match"
    """"exact_match" (the benchmark's score) or "line_similarity" (shaped, opt-in)."""


def to_task_data(row: dict[str, Any], reward: str = "exact_match") -> PicoData:
    """A benchmark or generated row (see `data.py`) as the task's wire data."""
    if reward not in REWARDS:
        raise ConfigError(f"{ENV_ID}: unknown reward {reward!r}; valid: {', '.join(REWARDS)}")
    return PicoData(
        name=row["id"],
        row_id=row["id"],
        prompt=prompt_key(row),
        system_prompt=SYSTEM_PROMPT,
        slice_name=row["slice"],
        complexity_level=row["complexity_level"],
        target_lines=list(row["target_lines"]),
        reward_name=REWARDS[reward],
    )


class PicoTaskset(vf.Taskset[PicoTask, PicoTasksetConfig]):
    """pico-dsl-v1 tasks of one split (see `splits.py`); raises ValueError on a bad option."""

    def load(self) -> list[PicoTask]:
        config = self.config
        split = check_split(config.split, ENV_ID)
        if config.slice not in SLICE_CHOICES:
            raise ConfigError(f"unknown slice {config.slice!r}; valid: {', '.join(SLICE_CHOICES)}")
        if split == "eval":
            rows = eval_rows(config.slice)
        else:
            rows = train_rows(config.num_train, config.seed, config.difficulty, "auto",
                              config.slice)
        return [PicoTask(to_task_data(row, config.reward), config.task) for row in rows]
