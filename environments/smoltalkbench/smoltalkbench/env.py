"""verifiers wiring of SmolTalkBench: `load_environment`, the judged rubric and its metrics.

The only module importing classic verifiers. A rollout is one chat reply to one instruction; the
rubric (generated from `scorer.DECLARATION`) judges it once per rollout with `scorer.score_reply`
(the function the v1 task calls too), before any reward function runs, stores the resulting
`judge.Judgement` as a dict in `state["judge"]`, and the reward functions only read the score.
The shared failure policy (smol_envs_core.adapters.policy) applies: a failed model call stops the
run; a judge failure (endpoint down after retries, a reply without usable logprobs) stops the run
too, unless `max_judge_error_rate` tolerates a bounded share, which is then excluded from the reward
average and counted (`judge_error`) in every report.
"""

from __future__ import annotations

import logging
from typing import Any

import verifiers as vf
from smol_envs_core.adapters import vf031
from smol_envs_core.adapters.classic import DeclaredRubric, classic_reply, reward_functions
from smol_envs_core.adapters.declaration import Score
from smol_envs_core.adapters.options import classic_loader
from smol_envs_core.adapters.policy import ErrorBudget, PolicyEnv
from smol_envs_core.adapters.preflight import ensure_reachable
from smol_envs_core.adapters.reasoning import reasoning_from_message

from smoltalkbench import data
from smoltalkbench.config import SmolTalkOptions, benchmark, train_rows
from smoltalkbench.errors import JudgeUnavailableError
from smoltalkbench.judge_client import JudgeClient
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


def build_environment(options: SmolTalkOptions) -> vf.Environment:
    """The classic environment of checked `options` (config.SmolTalkOptions): the benchmark rows
    (or, with split="train", the train split) as `eval_dataset` and the train split as
    `dataset`, both loaded when the evaluation asks for them; the judged rubric and the error
    budget over tolerated judge failures.

    `get_dataset()` raises InfrastructureError when the train source is unreachable.
    """
    client = JudgeClient(options.judge_config())
    if client.api_key() is None:
        logger.warning(
            "judge key variable %s is unset: every judgement will fail", options.judge_api_key_var
        )

    def train(num_examples: int = -1):
        from datasets import Dataset

        rows = Dataset.from_list(train_rows(options, benchmark(options)))
        return data.to_verifiers(rows, num_examples)

    def build():
        if options.split == "train":
            return train(options.num_examples)
        return data.to_verifiers(benchmark(options), options.num_examples)

    rubric = JudgedRubric(client, options.length_penalty_chars, options.order_seed,
                          options.max_judge_error_rate)
    env = SmolTalkBenchEnv(dataset=train, eval_dataset=build, rubric=rubric)
    env.judge_client = client
    env.error_budget = ErrorBudget("judge_error", options.max_judge_error_rate, "judge",
                                   options.judge_base_url)
    return env


load_environment = classic_loader(SmolTalkOptions, build_environment, """SmolTalkBench as a
verifiers SingleTurnEnv judged against the reference replies (classic API:
`vf-eval smoltalkbench -a '{...}'`).

Every option is declared once in config.py (listed below); an unknown option is a TypeError
naming the valid ones, a bad value a ConfigError (ValueError). Rows load lazily, when the
evaluation asks for them. `max_judge_error_rate` 0 stops the run at the first judge failure;
tolerated ones are excluded from the reward average and counted (`judge_error`).
""")
