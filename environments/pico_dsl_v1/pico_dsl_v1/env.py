"""verifiers wiring: load_environment, the answer parser and the rubric.

The only module that imports classic verifiers. Every score comes from `scorer.score_reply`
(the function the v1 taskset calls too); the rubric is generated from `scorer.DECLARATION`
(`smol_envs_core.classic.DeclaredRubric`, which scores each rollout once and applies the shared
infrastructure-failure policy) and the record is kept in the rollout state.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import verifiers as vf
from smol_envs_core.classic import DeclaredRubric, classic_reply, reward_functions
from smol_envs_core.errors import install_excepthook, reject_unknown_arguments
from smol_envs_core.policy import PolicyEnv
from smol_envs_core.scoring import Score
from verifiers.types import State

from .data import (
    DATASET_MODES,
    SLICE_CHOICES,
    generate_rows,
    load_benchmark_rows,
    resolve_difficulty,
    select_rows,
    to_record,
)
from .errors import ConfigError
from .parse import parse_answer
from .prompt import SYSTEM_PROMPT
from .scorer import BEHAVIOUR_VERSION, DECLARATION, score_reply
from .splits import train_rows
from .tokenizer import valid_tokenizers

CLASSIC_TRAIN_ROWS = 480
PARSE_REASON_KEY = "pico_dsl_v1_parse_reason"


class PicoAnswerParser(vf.Parser):
    """verifiers Parser over parse.parse_answer: `parse` returns the final block's lines joined
    by newlines, or None when the response has no trailing `<answer>` block."""

    def parse(self, text: str) -> str | None:
        """The trailing answer block's lines joined by newlines, or None without a valid block."""
        parsed = parse_answer(text)
        return "\n".join(parsed.lines) if parsed.lines is not None else None


def score_state(state: dict[str, Any]) -> Score:
    """The classic rollout's Score: `scorer.score_reply` of its reply and gold lines (the
    parser's reason is also kept in `state["pico_dsl_v1_parse_reason"]`)."""
    score = score_reply(classic_reply(state), state["info"]["target_lines"])
    state[PARSE_REASON_KEY] = score.reason
    return score


def build_rubric(parser: vf.Parser | None = None) -> vf.Rubric:
    """The rubric made from `scorer.DECLARATION`: exact_match at weight 1.0, every other metric
    (empty_response included) at weight 0; each rollout scored once by `score_state`."""
    return DeclaredRubric(DECLARATION, score_state, parser=parser or PicoAnswerParser())


METRIC_FUNCS: tuple[Callable[..., float], ...] = reward_functions(DECLARATION)


def rollout_state(record: dict[str, Any], index: int, content: str) -> State:
    """A finished single-turn rollout state for `record` whose answer text is `content`.

    Args:
        record: a dataset record (`prompt`, `answer`, `info`), as `to_record` builds it.
        index: the rollout's example_id.
        content: the assistant message text to score.
    Returns the state as verifiers 0.3.1's rollout leaves it (prompt, one assistant message,
    empty trajectory), so that `rubric.score_group` can score it without a model: used by the
    gold-answer check and the rubric benchmark.
    """
    state = State(
        input={
            "prompt": record["prompt"],
            "answer": record["answer"],
            "info": record["info"],
            "example_id": index,
        }
    )
    state["prompt"] = record["prompt"]
    state["completion"] = [{"role": "assistant", "content": content}]
    state["trajectory"] = []
    return state


DEFAULT_MAX_TOKENS = 512  # the longest target block is 153 characters; room for a preamble


class PicoDslEnv(PolicyEnv):
    """The collection's SingleTurnEnv (empty answers kept and scored 0, infrastructure failures
    stop the run; see smol_envs_core.policy), with a default token budget."""

    default_max_tokens = DEFAULT_MAX_TOKENS
    behaviour_version = BEHAVIOUR_VERSION


def _check_arguments(
    dataset_mode: str, difficulty: str | None, tokenizer: str, slice_: str
) -> None:
    if dataset_mode not in DATASET_MODES:
        raise ConfigError(
            f"unknown dataset_mode {dataset_mode!r}; valid: {', '.join(DATASET_MODES)}"
        )
    if slice_ not in SLICE_CHOICES:
        raise ConfigError(f"unknown slice {slice_!r}; valid: {', '.join(SLICE_CHOICES)}")
    resolve_difficulty(difficulty)
    if dataset_mode == "fixed" and difficulty is not None:
        raise ConfigError(
            "difficulty applies to dataset_mode='generated'; the fixed benchmark uses slice"
        )
    if tokenizer not in valid_tokenizers():
        raise ConfigError(
            f"unknown tokenizer {tokenizer!r}; valid: {', '.join(valid_tokenizers())}"
        )


def load_environment(
    num_examples: int | None = None,
    slice: str = "mixed",
    dataset_mode: str = "fixed",
    seed: int = 0,
    difficulty: str | None = None,
    tokenizer: str = "auto",
    max_tokens: int = DEFAULT_MAX_TOKENS,
    num_train: int = CLASSIC_TRAIN_ROWS,
    **kwargs: Any,
) -> vf.Environment:
    """Build the pico-dsl-v1 environment.

    Args:
        num_examples: rows to use; None or -1 = every row of the selection (fixed: 480 for
            "mixed", 80 for one slice; generated: as many as the phrases give, up to 480). A
            larger value is an error that names the maximum.
        slice: "mixed" (round-robin over the 6 x 4 grid) or one slice name.
        dataset_mode: "fixed" (the packaged benchmark) or "generated" (built from `seed`).
        seed: generated mode only.
        difficulty: generated mode only: tiny/easy/medium/hard/mixed or tape16/24/34/48.
        tokenizer: generated mode phrase-length measure: "auto", "none" or a tiktoken name.
        max_tokens: token budget of each request when the run sets none (`vf-eval -t` wins).
        num_train: rows of the train split (`get_dataset()`): the seeded generated stream minus
            every evaluation prompt (splits.py); the evaluation rows are `get_eval_dataset()`.
        **kwargs: refused (TypeError naming the valid arguments): a misspelled argument must
            not silently run the defaults.

    Raises:
        ValueError (ConfigError): an argument is unknown or out of range; the message lists the
            valid values.
    """
    install_excepthook()  # an error below reaches the user as one line
    reject_unknown_arguments("pico-dsl-v1", kwargs, list(inspect.signature(load_environment)
                                                          .parameters)[:-1])
    _check_arguments(dataset_mode, difficulty, tokenizer, slice)
    if isinstance(max_tokens, bool) or not isinstance(max_tokens, int) or max_tokens < 1:
        raise ConfigError(f"max_tokens must be a positive integer, got {max_tokens!r}")
    if num_examples is not None and num_examples < 0:
        num_examples = None
    if dataset_mode == "fixed":
        rows = select_rows(load_benchmark_rows(), slice, num_examples)
    else:
        rows = generate_rows(num_examples, seed, difficulty, tokenizer, slice)
    from datasets import Dataset

    eval_dataset = Dataset.from_list([to_record(row) for row in rows])
    # Training rows never share a prompt with the evaluation rows (see splits.py); built lazily.
    train_seed = seed + 1 if dataset_mode == "generated" else seed
    exclude = {record["question"] for record in eval_dataset}

    def train_dataset() -> Dataset:
        train = train_rows(num_train, train_seed, difficulty, tokenizer, slice, exclude)
        return Dataset.from_list([to_record(row) for row in train])

    parser = PicoAnswerParser()
    env = PicoDslEnv(
        dataset=train_dataset,
        eval_dataset=eval_dataset,
        system_prompt=SYSTEM_PROMPT,
        parser=parser,
        rubric=build_rubric(parser),
    )
    env.default_max_tokens = max_tokens
    return env
