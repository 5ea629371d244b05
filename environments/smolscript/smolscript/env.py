"""verifiers wiring of smolscript: `load_environment`, the rubric and its reward functions.

The only module that imports classic verifiers. Each rollout is scored once by
`scorer.score_reply` (the function the v1 taskset calls too: assembly onto the task's prefix,
then the scoring service), the rubric is generated from `scorer.DECLARATION`, and the verdict is
stored in the rollout state (and its `info`, so that `vf-eval -s` keeps it); the reward
functions only read it.

verifiers 0.3.1 catches exceptions raised inside reward functions and scores them 0.0, which
would turn an infrastructure failure into a model failure. Scoring therefore happens once per
rollout in the collection's `ScoreOnceRubric` (smol_envs_core.adapters.policy), before any reward
function runs: a failed model call or a `ScoringInfraError` raised there stops the run with one
line naming the component and its URL.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from typing import Any

import verifiers as vf
from datasets import Dataset
from smol_envs_core.adapters import vf031
from smol_envs_core.adapters.classic import DeclaredRubric, classic_reply
from smol_envs_core.adapters.declaration import Score
from smol_envs_core.adapters.options import classic_loader
from smol_envs_core.adapters.policy import PolicyEnv
from smol_envs_core.adapters.preflight import chat_client_warning
from smol_envs_core.server.endpoints import COMPLETIONS_ALIAS

from smolscript import data, splits
from smolscript.assemble import ASSEMBLY_VERSION
from smolscript.config import SmolscriptOptions, as_list, selected_tasks
from smolscript.gate import ScoringGate
from smolscript.prompts import (
    TEMPLATE_ID,
    build_prompt,
    check_context,
    make_token_counter,
    token_budget,
)
from smolscript.scorer import BEHAVIOUR_VERSION, declaration_for, score_reply

# --------------------------------------------------------------------------- rubric


class SmolscriptRubric(DeclaredRubric):
    """The rubric made from `scorer.DECLARATION` (passed is the reward): each rollout is scored
    once by `scorer.score_reply` through the scoring service; infra errors stop the run.

    Args:
        tasks, hidden: public task rows and their hidden tests, by task id (a train split
            built later adds its rows).
        service_url: the scoring service; None reuses or starts the local one.
        concurrency: scoring jobs in flight at once (the rubric's `gate.ScoringGate`).
        reward_only: score with `scorer.REWARD_ONLY_DECLARATION` (the same reward, a program
            job stopped at its first failing test, no `hidden_test_pass_rate`).
    """

    def __init__(self, tasks: Mapping[str, Mapping[str, Any]],
                 hidden: Mapping[str, Mapping[str, Any]], service_url: str | None,
                 concurrency: int, reward_only: bool = False):
        super().__init__(declaration_for(reward_only), self.score_state_of)
        self.tasks = tasks
        self.hidden = hidden
        self.gate = ScoringGate(service_url, concurrency)
        self.reward_only = reward_only

    async def score_state_of(self, state: dict) -> Score:
        """Score the rollout's reply; the row's info keeps the raw completion, the evaluated
        code, the assembly and the verdict (what the results file and the report read)."""
        info = state.get("info") or {}
        task = self.tasks[info["id"]]
        raw = classic_reply(state)
        score = await score_reply(raw, task, self.hidden[task["id"]], self.gate,
                                  prompt_too_long=vf031.prompt_too_long(state),
                                  reward_only=self.reward_only)
        info.update({"raw_completion": raw, "evaluated_code": score.parsed,
                     "assembly": score.details["assembly"], "empty_completion": not raw.strip(),
                     "verdict": score.details["verdict"]})
        state["info"] = info
        return score


# --------------------------------------------------------------------------- environment


class SmolscriptEnv(PolicyEnv):
    """Single-turn raw completion environment; per-task token budgets and greedy decoding are
    its evaluation defaults (`default_sampling`), never an override of the caller's settings.

    An empty completion is a model outcome: it is kept and scored (it fails), instead of being
    retried and dropped (PolicyEnv).
    """

    async def preflight(self, client: Any) -> None:
        """The model endpoint's preflight, after one warning line when vf-eval reaches the model
        through a chat API (the `smollm2-135m` alias, `-b` without `--api-client-type`)."""
        warning = chat_client_warning(client, "smolscript", COMPLETIONS_ALIAS)
        if warning:
            print(warning, file=sys.stderr)
        await super().preflight(client)

    behaviour_version = BEHAVIOUR_VERSION

    async def get_model_response(self, state, prompt, client=None, model=None, tool_defs=None,
                                 sampling_args=None) -> vf031.Response:
        """The model's completion under the task's token budget and the benchmark's default sampling
        (a caller's own sampling arguments pass unchanged)."""
        args = default_sampling(sampling_args or state.get("sampling_args") or {},
                                state["info"]["max_tokens"])
        return await super().get_model_response(state, prompt, client=client, model=model,
                                                tool_defs=tool_defs, sampling_args=args)


def default_sampling(args: Mapping[str, Any], budget: int) -> dict[str, Any]:
    """The request's sampling arguments: the caller's, with the benchmark's defaults filled in.

    Temperature 0 (greedy) when the caller sets none; `max_tokens` = the caller's `max_tokens`
    or `max_completion_tokens`, else the task's budget. A trainer's temperature, token limit and
    sample count (`n`) pass unchanged, so the rollouts of a group can differ.
    """
    merged = {key: value for key, value in args.items() if value is not None}
    limit = merged.pop("max_completion_tokens", None)
    merged.setdefault("max_tokens", limit if limit is not None else budget)
    merged.setdefault("temperature", 0.0)
    return merged


def _rows(tasks: Sequence[Mapping[str, Any]], max_tokens: int | None, dataset_sha256: str
          ) -> list[dict]:
    rows = []
    for task in tasks:
        rows.append({
            "prompt": build_prompt(task),
            "answer": "",
            "info": {"id": task["id"], "language": task["language"],
                     "difficulty": task["difficulty"],
                     "max_tokens": token_budget(task["language"], task["difficulty"], max_tokens),
                     "template_id": TEMPLATE_ID, "assembly_version": ASSEMBLY_VERSION,
                     "budget_overridden": max_tokens is not None,
                     "dataset_sha256": dataset_sha256},
        })
    return rows


def build_environment(options: SmolscriptOptions) -> vf.Environment:
    """The classic environment of checked `options` (config.SmolscriptOptions): the selected
    tasks (`config.selected_tasks`) as `eval_dataset`, the train split (built when asked for) as
    `dataset`, and the rubric scoring through the service.

    Raises:
        DataError: the selection holds no tasks. PromptTooLongError: with `context_length`, a
        prompt plus its budget does not fit (prompts are never truncated).
    """
    tasks, edition = selected_tasks(options)
    rows = _rows(tasks, options.max_tokens, data.dataset_hash(edition))
    if options.context_length is not None:
        check_context([(r["info"]["id"], r["prompt"], r["info"]["max_tokens"]) for r in rows],
                      options.context_length, make_token_counter(options.tokenizer))
    hidden = data.hidden_for(tasks, data.load_hidden(edition))
    rubric = SmolscriptRubric({t["id"]: t for t in tasks}, hidden, options.service_url,
                              options.concurrency, options.reward_only)
    languages, difficulties = as_list(options.languages), as_list(options.difficulties)

    def train_dataset() -> Dataset:
        # The train split (splits.py), built when asked for; its rows become scorable too.
        train = splits.train_tasks(languages, difficulties)
        rubric.tasks = {**rubric.tasks, **{t["id"]: t for t in train}}
        rubric.hidden = {**rubric.hidden, **data.hidden_for(train, data.load_hidden("full2000"))}
        return Dataset.from_list(_rows(train, options.max_tokens, data.dataset_hash("full2000")))

    return SmolscriptEnv(dataset=train_dataset, eval_dataset=Dataset.from_list(rows),
                         rubric=rubric)


load_environment = classic_loader(SmolscriptOptions, build_environment, """Build the smolscript
environment (verifiers classic API: `vf-eval smolscript -a '{...}'`).

Every option is declared once in config.py (listed below); an unknown option is a TypeError
naming the valid ones, a bad value a DataError (ValueError) naming the valid values.
""")
