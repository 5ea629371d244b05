"""SmolTalkBench's options, declared once: the classic `load_environment(**kwargs)` (env.py) and
the v1 taskset (taskset.py) are both built from these classes.

- `SelectionOptions`: the benchmark and the split (v1: `--env.taskset.*`);
- `JudgeOptions`: the judge (v1: `--env.taskset.task.*`, because verifiers' env server builds
  each task with the task config); `judge_config` is the one mapping onto the client's
  `JudgeConfig`, whose defaults these options take;
- `SmolTalkOptions`: both, flat: the classic keyword arguments.

`max_judge_error_rate` is classic-only: under v1 a judge failure leaves the trace not ok (the
trainer drops it). The classic name `split` for the hub split is deprecated: a value other than
"eval" or "train" is read as `hub_split`, with a warning.
"""

from __future__ import annotations

import warnings
from typing import Any, ClassVar

from pydantic import model_validator
from smol_envs_core.adapters.options import EnvOptions

from smoltalkbench import build, judge
from smoltalkbench.defaults import (
    DEFAULT_DATASET,
    DEFAULT_JUDGE_API_KEY_VAR,
    DEFAULT_JUDGE_BASE_URL,
    DEFAULT_JUDGE_MODEL,
)
from smoltalkbench.errors import ConfigError
from smoltalkbench.judge_client import JudgeConfig, check_judge_options

SPLITS = ("eval", "train")


class _SmolTalk(EnvOptions):
    env_id: ClassVar[str] = "smoltalkbench"
    error: ClassVar[type[Exception]] = ConfigError

    @classmethod
    def valid_names(cls) -> list[str]:
        """Every SmolTalkBench option (an unknown-option error reads the same in both APIs)."""
        return SmolTalkOptions.option_names()


class SelectionOptions(_SmolTalk):
    """The benchmark rows and the split."""

    dataset: str = DEFAULT_DATASET
    """The benchmark: a hub id, a local .parquet/.jsonl path, or `fixture` (packaged,
    offline)."""
    config: str = "gold"
    """Hub config (reference model)."""
    hub_split: str = "test"
    """Hub split of the benchmark."""
    data_files: str | list[str] | None = None
    """Passed to `datasets.load_dataset` for hub ids."""
    num_examples: int = -1
    """Rows to use (the first N); -1 = all."""
    split: str = "eval"
    """Rows served: `eval` (the benchmark) or `train` (every other distinct source prompt; the
    classic `get_dataset()` is the train split either way). A hub split name here is read as
    `hub_split` (deprecated)."""
    source_path: str | None = None
    """Train split: a local copy of the source (folder of `train*`/`test*` files); `null` reads
    the hub source at `source_revision`."""
    source_revision: str = build.SOURCE_REVISION
    """Train split: the hub source's pinned revision."""

    @model_validator(mode="before")
    @classmethod
    def _hub_split_alias(cls, data: Any) -> Any:
        if isinstance(data, dict) and data.get("split") not in (None, *SPLITS):
            warnings.warn("smoltalkbench: split as the hub split is deprecated; use hub_split "
                          "(split is now eval or train)", FutureWarning, stacklevel=2)
            data = dict(data)
            data["hub_split"] = data.pop("split")
        return data

    def check_values(self) -> None:
        """Allowed values (ConfigError naming them)."""
        self.choice("split", SPLITS)
        if self.num_examples == 0 or self.num_examples < -1:
            self.refuse(f"num_examples must be -1 (all) or positive, got {self.num_examples}")


class JudgeOptions(_SmolTalk):
    """The judge: where it is, how it is asked, and how its verdict is read."""

    classic_only: ClassVar[dict[str, str]] = {
        "max_judge_error_rate": "under v1 a judge failure leaves the trace not ok (the trainer "
                                "drops it)",
    }

    judge_model: str = DEFAULT_JUDGE_MODEL
    """Judge model id."""
    judge_base_url: str = DEFAULT_JUDGE_BASE_URL
    """Judge endpoint (OpenAI-compatible)."""
    judge_api_key_var: str | None = DEFAULT_JUDGE_API_KEY_VAR
    """Environment variable holding the judge's key; `null` or `""` for a keyless local
    endpoint."""
    judge_temperature: float = JudgeConfig.temperature
    """Judge sampling temperature (logprobs do not depend on it)."""
    judge_max_retries: int = JudgeConfig.max_retries
    """Retries of transient judge errors (>= 0), exponential backoff from 1 s."""
    judge_timeout_s: float = JudgeConfig.timeout_s
    """Bound of one judge request, in seconds (> 0)."""
    judge_max_concurrent: int = JudgeConfig.max_concurrent
    """Judge requests in flight (>= 1; a retry's backoff waits outside this limit)."""
    length_penalty_chars: int = judge.DEFAULT_LENGTH_PENALTY_CHARS
    """K of the length penalty (>= 0)."""
    order_seed: int = 0
    """Seed of the label order (hashed with the instruction and the reply) and of the fence
    tags."""
    max_judge_error_rate: float = 0.0
    """Classic only: share of judge failures tolerated (in [0, 1]); 0 stops the run at the
    first one; tolerated ones are excluded from the reward average and counted."""
    judge_label_bias: str = JudgeConfig.label_bias
    """How a re-ask is constrained to the labels: `none`, `tokens` (llama-cpp-python),
    `ids:<ids of m>;<ids of M>` or `auto` (the ids read once from the judge server's
    `POST /tokenize`, which vLLM and `smol-envs-serve` answer; `none` where it has none)."""
    judge_min_label_mass: float = JudgeConfig.min_label_mass
    """P(`m`) + P(`M`) needed for a verdict (in [0, 1]; below: re-ask, see "No verdict")."""
    judge_both_orders: bool = JudgeConfig.both_orders
    """Judge each reply under both labels and average (position bias cancels; twice the
    judge calls)."""

    def check_values(self) -> None:
        """Judge numbers in range and a valid label bias (ConfigError)."""
        if self.length_penalty_chars < 0:
            self.refuse(f"length_penalty_chars must be >= 0, got {self.length_penalty_chars}")
        if self.judge_max_retries < 0 or self.judge_max_concurrent < 1 or self.judge_timeout_s <= 0:
            self.refuse("judge_max_retries must be >= 0, judge_max_concurrent >= 1, "
                        "judge_timeout_s > 0")
        if not 0.0 <= self.max_judge_error_rate <= 1.0:
            self.refuse(f"max_judge_error_rate must be in [0, 1], got "
                        f"{self.max_judge_error_rate}")
        try:
            check_judge_options(self.judge_label_bias, self.judge_min_label_mass)
        except ConfigError as error:
            self.refuse(str(error))

    def judge_config(self) -> JudgeConfig:
        """The judge client's config of these options."""
        return JudgeConfig(
            model=self.judge_model, base_url=self.judge_base_url,
            api_key_var=self.judge_api_key_var, temperature=self.judge_temperature,
            max_retries=self.judge_max_retries, timeout_s=self.judge_timeout_s,
            max_concurrent=self.judge_max_concurrent, label_bias=self.judge_label_bias,
            min_label_mass=self.judge_min_label_mass, both_orders=self.judge_both_orders,
        )


class SmolTalkOptions(JudgeOptions, SelectionOptions):
    """Every SmolTalkBench option, flat: the classic keyword arguments (`-a` JSON keys)."""

    def check_values(self) -> None:
        """Both groups' checks."""
        SelectionOptions.check_values(self)
        JudgeOptions.check_values(self)


def benchmark(options: SelectionOptions):
    """The benchmark rows (`data.load_rows` of dataset, config, hub_split, data_files): a
    validated datasets.Dataset."""
    from smoltalkbench import data

    return data.load_rows(options.dataset, options.config, options.hub_split, options.data_files)


def train_rows(options: SelectionOptions, rows) -> list[dict]:
    """The train split beside the benchmark `rows`: every other distinct source prompt
    (`splits.train_rows`). Raises InfrastructureError when the source cannot be reached."""
    from smoltalkbench import splits

    candidates = build.candidate_rows(splits.load_source(options.source_path,
                                                         options.source_revision))
    return splits.train_rows(candidates, rows["instruction"])
