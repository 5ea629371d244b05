"""Train and eval splits of pico-dsl-v1, which never share a prompt.

- eval: the fixed 480-row benchmark (packaged, validated), selected by slice;
- train: the seeded generated stream (`data.generate_rows` for seed, seed + 1, ...), minus every
  row whose prompt equals a benchmark prompt, and minus repeats within the stream.

Pure given its arguments and the packaged benchmark; shared by the classic environment
(`dataset` / `eval_dataset`) and the v1 taskset.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from .data import generate_rows, load_benchmark_rows, select_rows
from .errors import ConfigError
from .prompt import format_question

# Seeds tried at most per train split before giving up (each gives up to 480 rows).
MAX_TRAIN_SEEDS = 64
DEFAULT_TRAIN_ROWS = 1920


def prompt_key(row: dict[str, Any]) -> str:
    """The row's user prompt: the identity two splits must never share."""
    return format_question(row["input"], row["dictionary"], row["tape"])


def eval_rows(slice_: str = "mixed", num_examples: int | None = None) -> list[dict[str, Any]]:
    """The fixed benchmark's rows for `slice_` (round-robin; None: all of them)."""
    return select_rows(load_benchmark_rows(), slice_, num_examples)


def train_rows(
    num_examples: int = DEFAULT_TRAIN_ROWS,
    seed: int = 0,
    difficulty: str | None = None,
    tokenizer: str = "auto",
    slice_: str = "mixed",
    exclude: Collection[str] = (),
) -> list[dict[str, Any]]:
    """`num_examples` generated rows whose prompts are not in the benchmark, in stream order.

    `exclude` holds further prompts to leave out (the eval rows of a generated-mode evaluation).

    Rows come from `generate_rows(None, s, ...)` for s = seed, seed + 1, ...; a row's id names
    its seed (`gen-<seed>-<n>`), so ids are unique too.

    Raises:
        ConfigError: `num_examples` < 1, or MAX_TRAIN_SEEDS seeds give fewer new rows.
    """
    if num_examples < 1:
        raise ConfigError(f"train num_examples must be >= 1, got {num_examples}")
    seen = {prompt_key(row) for row in load_benchmark_rows()} | set(exclude)
    picked: list[dict[str, Any]] = []
    for current in range(seed, seed + MAX_TRAIN_SEEDS):
        for row in generate_rows(None, current, difficulty, tokenizer, slice_):
            key = prompt_key(row)
            if key not in seen:
                seen.add(key)
                picked.append(row)
                if len(picked) == num_examples:
                    return picked
    raise ConfigError(
        f"the generated stream gave only {len(picked)} new rows in {MAX_TRAIN_SEEDS} seeds; "
        f"ask for num_examples <= {len(picked)}"
    )
