"""pico-dsl-v1 as a verifiers v1 taskset (the API prime-rl trains and verifiers 0.4 ships).

Same scoring function as the classic environment (`scorer.score_reply`, declared once in
`scorer`); this is the only module that imports `verifiers.v1`. The reward is exact match by
default; `reward="line_similarity"` switches to an opt-in shaped reward for curricula
(`shaped.shaped_line_similarity`: credit for lines 3 and 4 beyond what a tape-blind answer gets,
see shaped.py), recorded under its own name `shaped_line_similarity` so it is never
mistaken for the benchmark's score (`exact_match` stays a metric either way).
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

import verifiers.v1 as vf
from smol_envs_core.adapters.declaration import Declaration, Score
from smol_envs_core.adapters.v1 import DeclaredTask

from .config import PicoOptions, rows
from .errors import ConfigError
from .prompt import SYSTEM_PROMPT
from .scorer import DECLARATION, SHAPED, SHAPED_DECLARATION, score_reply
from .splits import prompt_key

ENV_ID = "pico-dsl-v1"
# reward option -> reward name in the results (and in the score record)
REWARDS: dict[str, str] = {
    "exact_match": "exact_match",
    "line_similarity": SHAPED,
}


class PicoData(vf.TaskData):
    """One pico-dsl-v1 task on the wire: the row id, its cell and the four gold lines."""

    row_id: str
    slice_name: str
    complexity_level: str
    target_lines: list[str]
    reward_name: str = "exact_match"
    """Which reward the task records: "exact_match" or "shaped_line_similarity"."""


class PicoTask(DeclaredTask, vf.Task[PicoData]):
    """Scores the reply's trailing `<answer>` block against the four gold lines
    (`scorer.score_reply`, the classic rubric's function too)."""

    declaration = DECLARATION

    @property
    def key(self) -> str:
        """Content identity (prompt and gold lines), the same in every split and run."""
        content = {"prompt": self.data.prompt, "target_lines": self.data.target_lines}
        return hashlib.sha256(json.dumps(content, sort_keys=True).encode()).hexdigest()

    def declared(self) -> Declaration:
        """`DECLARATION` (exact_match the reward), or `SHAPED_DECLARATION` when shaped."""
        return SHAPED_DECLARATION if self.data.reward_name == SHAPED else DECLARATION

    def score_reply(self, reply: str) -> Score:
        """`scorer.score_reply` of the reply against this task's gold lines."""
        return score_reply(reply, self.data.target_lines, self.declared())


class PicoTasksetConfig(PicoOptions, vf.TasksetConfig):
    """Options under `--env.taskset.*`: exactly `config.PicoOptions` (the classic arguments),
    beside verifiers' own taskset fields."""


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
        """The tasks of the configured split and slice (`config.rows`: the evaluation rows, or
        the seeded train stream). Raises ConfigError naming the valid values."""
        self.config.check("v1")
        return [PicoTask(to_task_data(row, self.config.reward), self.config.task)
                for row in rows(self.config)]
