"""verifiers wiring of SmolTalkBench: `load_environment`, the judged rubric and its metrics.

The only module importing classic verifiers. A rollout is one chat reply to one instruction; the
rubric (generated from `scorer.DECLARATION`) judges it once per rollout with `scorer.score_reply`
(the function the v1 task calls too), before any reward function runs, stores the resulting
`judge.Judgement` as a dict in `state["judge"]`, and the reward functions only read the score.
The shared failure policy (smol_envs_core.policy) applies: a failed model call stops the run; a
judge failure (endpoint down after retries, a reply without usable logprobs) stops the run too,
unless `max_judge_error_rate` tolerates a bounded share, which is then excluded from the reward
average and counted (`judge_error`) in every report.
"""

from __future__ import annotations

import inspect
import logging
from typing import Any

import verifiers as vf
from smol_envs_core import vf031
from smol_envs_core.classic import DeclaredRubric, classic_reply, reward_functions
from smol_envs_core.errors import install_excepthook, reject_unknown_arguments
from smol_envs_core.policy import ErrorBudget, PolicyEnv
from smol_envs_core.preflight import ensure_reachable
from smol_envs_core.reasoning import reasoning_from_message
from smol_envs_core.scoring import Score

from smoltalkbench import data, judge, splits
from smoltalkbench.build import candidate_rows
from smoltalkbench.defaults import (
    DEFAULT_DATASET,
    DEFAULT_JUDGE_API_KEY_VAR,
    DEFAULT_JUDGE_BASE_URL,
    DEFAULT_JUDGE_MODEL,
)
from smoltalkbench.errors import ConfigError, JudgeUnavailableError
from smoltalkbench.judge_client import JudgeClient, JudgeConfig, check_judge_options
from smoltalkbench.scorer import BEHAVIOUR_VERSION, DECLARATION, score_reply

logger = logging.getLogger(__name__)

STATE_KEY = "judge"
"""Where the rollout state keeps the `judge.Judgement` dict (`vf-eval -C judge` saves it)."""
METRICS = reward_functions(DECLARATION)


class JudgedRubric(DeclaredRubric):
    """The rubric made from `scorer.DECLARATION` (win_prob the reward): each rollout judged once
    by `scorer.score_reply`, the function the v1 task calls too.

    A judge failure raises JudgeUnavailableError (component "judge") unless
    `max_judge_error_rate` > 0; tolerated failures are recorded as `judge_error` = 1.0 and the
    environment's ErrorBudget checks their share when the run ends.
    """

    def __init__(self, client: JudgeClient, length_penalty_chars: int, order_seed: int = 0,
                 max_judge_error_rate: float = 0.0):
        super().__init__(DECLARATION, self.judge_state)
        self.client = client
        self.length_penalty_chars = length_penalty_chars
        self.order_seed = order_seed
        self.max_judge_error_rate = max_judge_error_rate

    async def judge_state(self, state: dict) -> Score:
        """Judge the rollout's reply against its reference (`state["answer"]`); the Judgement
        is also kept in `state["judge"]`."""
        instruction = vf031.content_to_text(state["prompt"][-1].get("content"))
        completion = state.get("completion") or []
        score = await score_reply(
            classic_reply(state), instruction, str(state.get("answer") or ""), self.client,
            self.length_penalty_chars, self.order_seed,
            tolerate_judge_error=self.max_judge_error_rate > 0.0,
            reasoning=reasoning_from_message(completion[-1]) if completion else None)
        state[STATE_KEY] = score.details
        return score


class SmolTalkBenchEnv(PolicyEnv):
    """The collection's SingleTurnEnv, with an ErrorBudget over tolerated judge failures.

    Its preflight checks the judge too, before any reply is generated: a judge whose key
    variable is unset, or at whose host nothing listens, raises JudgeUnavailableError in
    seconds instead of after the whole generation.
    """

    judge_client: JudgeClient | None = None
    behaviour_version = BEHAVIOUR_VERSION

    async def preflight(self, client: Any) -> None:
        """The model endpoint's preflight, then the judge's (key set, TCP reachable)."""
        await super().preflight(client)
        if self.judge_client is None:
            return
        config = self.judge_client.config
        if self.judge_client.api_key() is None:
            raise JudgeUnavailableError(
                f"judge API key variable {config.api_key_var} is not set (pass "
                "judge_api_key_var='' for a keyless local judge)", config.base_url)
        await ensure_reachable(config.base_url, component="judge")


def load_environment(
    dataset: str = DEFAULT_DATASET,
    config: str = "gold",
    split: str = "test",
    data_files: str | list[str] | None = None,
    num_examples: int = -1,
    judge_model: str = DEFAULT_JUDGE_MODEL,
    judge_base_url: str = DEFAULT_JUDGE_BASE_URL,
    judge_api_key_var: str | None = DEFAULT_JUDGE_API_KEY_VAR,
    judge_temperature: float = 1.0,
    judge_max_retries: int = 3,
    judge_timeout_s: float = 60.0,
    judge_max_concurrent: int = 8,
    length_penalty_chars: int = judge.DEFAULT_LENGTH_PENALTY_CHARS,
    order_seed: int = 0,
    max_judge_error_rate: float = 0.0,
    judge_label_bias: str = "none",
    judge_min_label_mass: float = judge.DEFAULT_MIN_LABEL_MASS,
    judge_both_orders: bool = False,
    source_path: str | None = None,
    **kwargs,
) -> vf.Environment:
    """SmolTalkBench as a verifiers SingleTurnEnv judged against the reference replies.

    `dataset` is a hub id, a local .parquet/.jsonl path, or "fixture" (packaged, offline). Rows
    load lazily, when the evaluation asks for them. `judge_api_key_var` names the environment
    variable with the judge's key (None or "" for a keyless local endpoint).
    `max_judge_error_rate` (in [0, 1], default 0) is the share of judge failures tolerated:
    0 stops the run at the first one; tolerated ones are excluded from the reward average and
    counted. `judge_label_bias` says how a re-ask is constrained to the labels ("none",
    "tokens" for llama-cpp-python, "ids:<ids of m>;<ids of M>", "auto": the ids read from the
    judge server's /tokenize), `judge_min_label_mass` (in
    [0, 1]) the share of probability the labels need for a verdict; `judge_both_orders` judges
    each reply under both labels and averages (position bias cancels; twice the judge calls).
    `get_dataset()` is the train split (splits.py): the source conversations that are not in
    the benchmark, read from `source_path` (a local copy) or the hub; built when asked
    for, it raises InfrastructureError when the source is unreachable. Raises ConfigError for
    invalid numbers.
    """
    install_excepthook()  # an error below reaches the user as one line
    reject_unknown_arguments("smoltalkbench", kwargs, list(inspect.signature(load_environment)
                                                            .parameters)[:-1])
    if length_penalty_chars < 0:
        raise ConfigError(f"length_penalty_chars must be >= 0, got {length_penalty_chars}")
    if judge_max_retries < 0 or judge_max_concurrent < 1 or judge_timeout_s <= 0:
        raise ConfigError(
            "judge_max_retries must be >= 0, judge_max_concurrent >= 1, judge_timeout_s > 0"
        )
    if not 0.0 <= max_judge_error_rate <= 1.0:
        raise ConfigError(f"max_judge_error_rate must be in [0, 1], got {max_judge_error_rate}")
    if num_examples == 0 or num_examples < -1:
        raise ConfigError(f"num_examples must be -1 (all) or positive, got {num_examples}")
    check_judge_options(judge_label_bias, judge_min_label_mass)
    client = JudgeClient(
        JudgeConfig(
            model=judge_model,
            base_url=judge_base_url,
            api_key_var=judge_api_key_var,
            temperature=judge_temperature,
            max_retries=judge_max_retries,
            timeout_s=judge_timeout_s,
            max_concurrent=judge_max_concurrent,
            label_bias=judge_label_bias,
            min_label_mass=judge_min_label_mass,
            both_orders=bool(judge_both_orders),
        )
    )
    if client.api_key() is None:
        logger.warning(
            "judge key variable %s is unset: every judgement will fail", judge_api_key_var
        )

    def build():
        return data.to_verifiers(data.load_rows(dataset, config, split, data_files), num_examples)

    def build_train():
        from datasets import Dataset

        benchmark = data.load_rows(dataset, config, split, data_files)
        candidates = candidate_rows(splits.load_source(source_path))
        rows = splits.train_rows(candidates, benchmark["instruction"])
        return data.to_verifiers(Dataset.from_list(rows))

    rubric = JudgedRubric(client, length_penalty_chars, order_seed, max_judge_error_rate)
    env = SmolTalkBenchEnv(dataset=build_train, eval_dataset=build, rubric=rubric)
    env.judge_client = client
    env.error_budget = ErrorBudget("judge_error", max_judge_error_rate, "judge", judge_base_url)
    return env
