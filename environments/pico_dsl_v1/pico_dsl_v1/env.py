"""verifiers wiring: load_environment, the answer parser and the rubric.

The only module that imports classic verifiers. Every score comes from `scorer.score_reply`
(the function the v1 taskset calls too); the rubric is generated from `scorer.DECLARATION`
(`smol_envs_core.adapters.classic.DeclaredRubric`, which scores each rollout once and applies the
shared infrastructure-failure policy) and the record is kept in the rollout state.
"""

from __future__ import annotations

from functools import partial
from typing import Any

import verifiers as vf
from smol_envs_core.adapters.classic import DeclaredRubric, classic_reply
from smol_envs_core.adapters.declaration import Declaration, Score
from smol_envs_core.adapters.options import classic_loader
from smol_envs_core.adapters.policy import PolicyEnv
from verifiers.types import State

from .config import DEFAULT_MAX_TOKENS, PicoOptions, eval_rows, train_split
from .data import to_record
from .parse import parse_answer
from .prompt import SYSTEM_PROMPT
from .scorer import BEHAVIOUR_VERSION, DECLARATION, SHAPED_DECLARATION, score_reply

PARSE_REASON_KEY = "pico_dsl_v1_parse_reason"


class PicoAnswerParser(vf.Parser):
    """verifiers Parser over parse.parse_answer: `parse` returns the final block's lines joined
    by newlines, or None when the response has no trailing `<answer>` block."""

    def parse(self, text: str) -> str | None:
        """The trailing answer block's lines joined by newlines, or None without a valid block."""
        parsed = parse_answer(text)
        return "\n".join(parsed.lines) if parsed.lines is not None else None


def score_state(state: dict[str, Any], declaration: Declaration = DECLARATION) -> Score:
    """The classic rollout's Score: `scorer.score_reply` of its reply and gold lines under
    `declaration` (the parser's reason is also kept in `state["pico_dsl_v1_parse_reason"]`)."""
    score = score_reply(classic_reply(state), state["info"]["target_lines"], declaration)
    state[PARSE_REASON_KEY] = score.reason
    return score


def build_rubric(parser: vf.Parser | None = None,
                 declaration: Declaration = DECLARATION) -> vf.Rubric:
    """The rubric made from `declaration` (`scorer.DECLARATION`: exact_match at weight 1.0,
    every other metric, empty_response included, at weight 0; `SHAPED_DECLARATION` for the
    opt-in shaped reward); each rollout scored once by `score_state`."""
    return DeclaredRubric(declaration, partial(score_state, declaration=declaration),
                          parser=parser or PicoAnswerParser())


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


class PicoDslEnv(PolicyEnv):
    """The collection's SingleTurnEnv (empty answers kept and scored 0, infrastructure failures
    stop the run; see smol_envs_core.adapters.policy), with a default token budget."""

    default_max_tokens = DEFAULT_MAX_TOKENS
    behaviour_version = BEHAVIOUR_VERSION


def build_environment(options: PicoOptions) -> vf.Environment:
    """The classic environment of checked `options` (config.PicoOptions): the evaluation rows
    (or, with split="train", the train split) as `eval_dataset`, the train split (built when
    asked for) as `dataset`, and the rubric of the chosen reward.

    Raises:
        ConfigError: a row count out of range (the message names the maximum).
    """
    from datasets import Dataset

    evaluation = eval_rows(options)

    def train_dataset() -> Dataset:
        # Training rows never share a prompt with the evaluation rows (see splits.py).
        return Dataset.from_list([to_record(row) for row in train_split(options, evaluation)])

    served = evaluation if options.split == "eval" else train_split(options, evaluation)
    declaration = SHAPED_DECLARATION if options.reward == "line_similarity" else DECLARATION
    parser = PicoAnswerParser()
    env = PicoDslEnv(
        dataset=train_dataset,
        eval_dataset=Dataset.from_list([to_record(row) for row in served]),
        system_prompt=SYSTEM_PROMPT,
        parser=parser,
        rubric=build_rubric(parser, declaration),
    )
    env.default_max_tokens = options.max_tokens
    return env


load_environment = classic_loader(PicoOptions, build_environment, """Build the pico-dsl-v1
environment (verifiers classic API: `vf-eval pico-dsl-v1 -a '{...}'`).

Every option is declared once in config.PicoOptions (listed below); an unknown option is a
TypeError naming the valid ones, a bad value a ConfigError (ValueError) naming the valid values.
""")
