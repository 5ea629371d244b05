"""smol-slm-eval's options, declared once: the classic `load_environment(**kwargs)` (env.py) and
the v1 taskset (taskset.py, which refuses to load: the environment is evaluation-only) are both
built from `SlmEvalOptions`, so a trainer's bad option reads as the classic user's would, and a
valid set meets the refusal.
"""

from __future__ import annotations

from typing import ClassVar

from smol_envs_core.adapters.options import EnvOptions

from .bfcl import MODES as BFCL_MODES
from .errors import ConfigError
from .prompts import PROMPT_STYLES
from .tasks import BFCL_CATEGORIES, GROUPS, task_names

SPLITS = ("eval", "train")


class SlmEvalOptions(EnvOptions):
    """Every smol-slm-eval option (classic `-a` JSON keys and v1 `--env.taskset.<name>`)."""

    env_id: ClassVar[str] = "smol-slm-eval"
    error: ClassVar[type[Exception]] = ConfigError

    task: str = "hellaswag"
    """One of the eight tasks, a BFCL multi-turn task (`"bfcl_v4_multi_turn_base"`,
    `_miss_func`, `_miss_param`, `_long_context`), `"int_index"` (hellaswag, arc_easy,
    arc_challenge, arithmark_2, arithmark_3_0 as an EnvGroup) or `"slm"` (every task); a group
    skips components without data and names them."""
    num_examples: int = -1
    """Rows per task (first N); -1 = all."""
    prompt_style: str = "seed"
    """`"seed"` (bare context) or `"lm_eval"` (lm-evaluation-harness prompts)."""
    data_path: str | None = None
    """A local data file (Hub schema: .jsonl/.json/.csv/.parquet) or a BFCL data folder, for
    one task."""
    enable_tier2_metric: bool | None = None
    """bfcl_v4: `true` makes `ast_match` the reward (refused for multi-turn tasks), `false`
    makes `function_name_match` the reward (the seed's Tier 1); `null`: `ast_match` on
    single-turn tasks (in `bfcl_mode="seed"`: `function_name_match`)."""
    bfcl_category: str | None = None
    """bfcl_v4: keep one of the seven single-turn categories."""
    bfcl_mode: str = "smol"
    """bfcl_v4: `"smol"` (stop strings and parsing that keep a fenced answer whole) or `"seed"`
    (the seed's own, for agreement checks)."""
    split: str = "eval"
    """`eval` (the benchmarks' rows); `train` is refused (evaluation-only), as the classic
    `get_dataset()` and the v1 taskset are."""

    def check_values(self) -> None:
        """Allowed values (ConfigError naming them)."""
        self.choice("task", task_names())
        if self.prompt_style not in PROMPT_STYLES:
            self.refuse(f"prompt_style must be one of {PROMPT_STYLES}, got {self.prompt_style!r}")
        if self.bfcl_category is not None and self.bfcl_category not in BFCL_CATEGORIES:
            self.refuse(f"bfcl_category must be one of {BFCL_CATEGORIES}")
        if self.bfcl_mode not in BFCL_MODES:
            self.refuse(f"bfcl_mode must be one of {BFCL_MODES}, got {self.bfcl_mode!r}")
        if self.data_path is not None and self.task in GROUPS:
            self.refuse("data_path applies to a single task, not a group")
        self.choice("split", SPLITS)
