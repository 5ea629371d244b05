"""smolscript's options, declared once: the classic `load_environment(**kwargs)` (env.py) and the
v1 taskset (taskset.py) are both built from these classes.

- `SelectionOptions`: which tasks and how their prompts are checked (v1: `--env.taskset.*`);
- `ScoringOptions`: how replies are scored (v1: `--env.taskset.task.*`, because verifiers' env
  server builds each task with the task config);
- `SmolscriptOptions`: both, flat: the classic keyword arguments.

`max_tokens` is classic-only: under v1 the harness sends the caller's sampling. Which tasks an
option set selects is `selected_tasks`.
"""

from __future__ import annotations

from typing import ClassVar

from smol_envs_core.adapters.options import EnvOptions

from smolscript import data, splits
from smolscript.errors import DataError

SPLITS = ("eval", "train")


class _Smolscript(EnvOptions):
    env_id: ClassVar[str] = "smolscript"
    error: ClassVar[type[Exception]] = DataError

    @classmethod
    def valid_names(cls) -> list[str]:
        """Every smolscript option (an unknown-option error reads the same in both APIs)."""
        return SmolscriptOptions.option_names()


class SelectionOptions(_Smolscript):
    """The task selection and the prompt check."""

    classic_only: ClassVar[dict[str, str]] = {
        "max_tokens": "under v1 the harness sends the caller's sampling (token limit included)",
    }

    languages: list[str] | str | None = None
    """Filter (null = all nine): `python, javascript, html, css, cpp, c, lua, csharp, rust`. A
    filtered run reports `filtered_macro_score`, never the official SmolScript Score."""
    difficulties: list[str] | str | None = None
    """Filter (null = all): `easy, medium, moderate`."""
    edition: str = "default"
    """Evaluation edition: `default` (350), `previous1000`, `full2000`; `default-0.3.0`,
    `default-0.4.0` (the default edition as published at those dataset versions, with weaker
    hidden tests, kept for earlier results)."""
    num_examples: int = -1
    """First N selected tasks in dataset order (-1 = all)."""
    per_language: int | None = None
    """Keep the first K selected tasks of each language (quick mixed runs; applied before
    `num_examples`)."""
    max_tokens: int | None = None
    """Classic only: replaces every task's token budget (recorded in `info`)."""
    context_length: int | None = None
    """Model context; every prompt plus its token budget must fit it (else an error; prompts
    are never truncated)."""
    tokenizer: str = "smollm2"
    """Token counter for the context check: `smollm2`, `gguf:PATH`, `hf:NAME`, `bytes`."""
    split: str = "eval"
    """Tasks served: `eval` (the chosen edition) or `train` (full2000 minus every task that is,
    or is similar to, a default-edition task; the classic `get_dataset()` is the train split
    either way)."""

    def check_values(self) -> None:
        """Allowed values (DataError naming them)."""
        self.choice("split", SPLITS)
        self.choice("edition", sorted(data.EDITIONS))
        if self.split == "train" and self.edition != splits.EVAL_EDITION:
            self.refuse(f"edition applies to the eval split; the train split is drawn from "
                        f"{splits.TRAIN_EDITION}")
        data.check_selection(as_list(self.languages), as_list(self.difficulties))
        if self.num_examples == 0 or self.num_examples < -1:
            self.refuse(f"num_examples must be -1 (all) or positive, got {self.num_examples}")
        for name in ("per_language", "max_tokens", "context_length"):
            value = getattr(self, name)
            if value is not None and value < 1:
                self.refuse(f"{name} must be a positive integer or null, got {value!r}")


class ScoringOptions(_Smolscript):
    """The scoring service and the scoring mode."""

    service_url: str | None = None
    """Scoring service; null reuses the one at `$SMOLSCRIPT_SANDBOX_URL` (else
    `127.0.0.1:$SMOLSCRIPT_SANDBOX_PORT`, default 8790) or starts it there; a service started
    this way is said on stderr and stays up for later runs."""
    concurrency: int = 8
    """Scoring jobs in flight at once."""
    reward_only: bool = False
    """For trainers: the same reward (`passed`), `syntax_ok` and `empty_response`, scored
    faster: a program job stops at its first failing test and no credit baselines run;
    `hidden_test_pass_rate` is not computed, so not a column."""

    def check_values(self) -> None:
        """`concurrency` must be positive (DataError)."""
        if self.concurrency < 1:
            self.refuse(f"concurrency must be a positive integer, got {self.concurrency!r}")


class SmolscriptOptions(ScoringOptions, SelectionOptions):
    """Every smolscript option, flat: the classic keyword arguments (`-a` JSON keys)."""

    def check_values(self) -> None:
        """Both groups' checks."""
        SelectionOptions.check_values(self)
        ScoringOptions.check_values(self)


def as_list(value: list[str] | str | None) -> list[str] | None:
    """A filter as a list (a string is one value; None = no filter)."""
    return [value] if isinstance(value, str) else value


def selected_tasks(options: SelectionOptions) -> tuple[list[dict], str]:
    """(the tasks `options.split` selects, their edition): the filters, then the first
    `per_language` of each language, then the first `num_examples` (`data.select_tasks`; the
    train split is `splits.train_tasks`).

    Raises:
        DataError: the selection holds no tasks.
    """
    languages, difficulties = as_list(options.languages), as_list(options.difficulties)
    if options.split == "eval":
        tasks = data.select_tasks(options.edition, languages, difficulties,
                                  options.per_language, options.num_examples)
        edition = options.edition
    else:
        tasks = data.first_tasks(splits.train_tasks(languages, difficulties),
                                 options.per_language, options.num_examples)
        edition = splits.TRAIN_EDITION
    if not tasks:
        raise DataError("smolscript: the selection holds no tasks")
    return tasks, edition
