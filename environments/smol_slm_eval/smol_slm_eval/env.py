"""verifiers wiring: one environment per task, the `int_index` and `slm` groups.

The only module importing verifiers. Multiple-choice tasks do not generate: `LoglikEnv` asks
the endpoint for the log-likelihood of each choice (after the echo probe) in place of a model
response, records them in `state["logliks"]`, and its completion is the letter they pick
(`mc.predicted`); the rubric scores them against the gold choice (`mc.mc_record`). math_500 and
bfcl_v4 generate through vf-eval's client as usual. Every task is scored once per rollout by
`scorer`'s functions (the rubric is generated from `scorer.declaration`,
`smol_envs_core.adapters.classic.DeclaredRubric`); an infrastructure failure (endpoint down,
failing the echo probe) stops the run, for one task and for the `int_index`/`slm` groups alike
(`RunFailurePolicy`). smol-slm-eval is evaluation-only: `get_dataset()` (a train split) raises
`EvaluationOnlyError`.
"""

from __future__ import annotations

import asyncio
import sys
import time
from typing import Any

import verifiers as vf
from smol_envs_core.adapters import context, vf031
from smol_envs_core.adapters.classic import DeclaredRubric, classic_reply, reward_functions
from smol_envs_core.adapters.declaration import Score
from smol_envs_core.adapters.options import classic_loader
from smol_envs_core.adapters.policy import PolicyEnv, RunFailurePolicy
from smol_envs_core.errors import (
    InfrastructureError,
)

from . import bfcl, math500
from .config import SlmEvalOptions
from .data import load_rows
from .errors import ConfigError, DataUnavailableError, EvaluationOnlyError
from .loglik_client import continuation_logliks, probe
from .mc import mc_record, predicted
from .prompts import mc_request
from .scorer import (
    BEHAVIOUR_VERSION,
    declaration,
    not_scorable,
    score_choice,
    score_reply_bounded,
)
from .tasks import (
    BFCL,
    BFCL_MULTI_TURN,
    GROUPS,
    KIND_METRICS,
    MATH,
    MC,
    TASKS,
    bfcl_task_category,
)

LETTERS = "ABCDEFGHIJ"
GPQA_PROMPT = "[GPQA Diamond question withheld from logs: scored by log-likelihood]"


LEGACY_RECORD_KEY = "score_record"
"""The task's own record (mc/math/bfcl fields, e.g. `logliks`), kept where results read it."""


def _headline(kind: str) -> str:
    return KIND_METRICS[kind][0]


METRICS = {kind: reward_functions(declaration(kind, _headline(kind))) for kind in (MC, MATH, BFCL)}


class TaskRubric(DeclaredRubric):
    """The rubric made from `scorer.declaration(kind, headline)`: each rollout scored once by
    `scorer.score_reply` (math_500, bfcl_v4) or `scorer.score_choice` (multiple choice: the
    log-likelihoods `LoglikEnv` recorded against `choices`, the id -> (choice texts, gold index)
    of the run's questions)."""

    def __init__(self, kind: str, headline: str, rows: dict[str, dict], tier2: bool = False,
                 mode: str = "smol", choices: dict[str, tuple[list[str], int]] | None = None):
        super().__init__(declaration(kind, headline), self.score_of)
        self.kind, self.headline, self.rows, self.tier2 = kind, headline, rows, tier2
        self.mode, self.choices = mode, choices or {}
        self.deadline_s = math500.SCORE_DEADLINE_S

    def score_of(self, state: dict) -> Score | Any:
        """The rollout's Score (an awaitable of it for generated tasks: math_500 is scored in
        a worker process with a deadline, `scorer.score_reply_bounded`); the task's own
        record is also kept in `state["score_record"]`.

        Raises:
            InfrastructureError: a multiple-choice rollout without log-likelihoods.
        """
        if self.kind == MC:
            logliks = state.get("logliks")
            if logliks is None:
                raise InfrastructureError("model endpoint", "no log-likelihoods were recorded")
            choices, gold = self.choices[state["info"]["id"]]
            score = score_choice(mc_record(logliks, choices, gold), self.headline)
            state[LEGACY_RECORD_KEY] = score.details
            return score
        return self._score_generated(state)

    async def _score_generated(self, state: dict) -> Score:
        reason = state.get(context.NOT_SCORABLE_KEY)
        if reason is None and vf031.prompt_too_long(state):
            reason = "the endpoint refused the prompt as too long: not scorable"
        if reason is not None:
            score = not_scorable(self.kind, self.headline, reason)
            state[LEGACY_RECORD_KEY] = score.details
            return score
        row = self.rows[state["info"]["id"]]
        score = await score_reply_bounded(classic_reply(state), row, self.kind, self.headline,
                                          self.tier2, self.mode, self.deadline_s)
        state[LEGACY_RECORD_KEY] = score.details
        return score


class EvalOnly:
    """Mixin for a verifiers Environment without a train split: `get_dataset()` refuses."""

    def get_dataset(self, n: int = -1, seed: int | None = None) -> Any:
        """Raises EvaluationOnlyError: smol-slm-eval has no train split (see its message)."""
        raise EvaluationOnlyError("train split")


class TaskEnv(EvalOnly, PolicyEnv):
    """A generated task (math_500, bfcl_v4): the collection's failure policy, no train split.

    Before its first request it checks the run's context needs (`smol_envs_core.adapters.context`):
    every row's prompt plus reply budget against the endpoint's context. A run whose rows
    mostly cannot fit is refused (ContextTooSmallError, one line naming the context needed),
    unless the task is one component of a group (`refuse_mostly_too_long` False: the group's
    other tasks still run); a row that cannot fit gets no request and is scored not scorable.
    """

    refuse_mostly_too_long = True

    behaviour_version = BEHAVIOUR_VERSION

    def __init__(self, *args: Any, task: str = "", **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.task = task
        self.context_check: context.ContextCheck | None = None
        self._context_refusal: context.ContextTooSmallError | None = None
        self._context_lock: asyncio.Lock | None = None

    async def _checked_context(self, client: Any) -> context.ContextCheck:
        """The run's ContextCheck, made once (the first rollout asks; the others wait);
        a refusal is kept and raised again for every rollout without asking anew."""
        if self._context_lock is None:
            self._context_lock = asyncio.Lock()
        async with self._context_lock:
            if self._context_refusal is not None:
                raise self._context_refusal
            if self.context_check is None:
                base_url = str(getattr(client, "base_url", ""))
                dataset = self.get_eval_dataset()
                prompts = {info["id"]: prompt for info, prompt
                           in zip(dataset["info"], dataset["prompt"], strict=True)}
                check = await context.check_context(
                    base_url, prompts, int(self.sampling_args.get("max_tokens") or 0))
                if self.refuse_mostly_too_long:
                    try:
                        context.refuse_mostly_too_long(check, self.task, base_url or None)
                    except context.ContextTooSmallError as exc:
                        self._context_refusal = exc
                        raise
                self.context_check = check
        return self.context_check

    async def get_model_response(self, state: Any, prompt: Any, *args: Any, **kwargs: Any
                                 ) -> vf031.Response:
        """The model's reply, after the run's context check; a row whose prompt cannot fit
        gets an empty synthetic reply and `state["not_scorable"]` (its reason).

        Raises:
            ContextTooSmallError: most rows of the run cannot fit the endpoint's context.
        """
        client = kwargs.get("client") or (args[0] if args else None) or state.get("client")
        client = getattr(client, "client", client)
        check = await self._checked_context(client)
        row_id = (state.get("info") or {}).get("id")
        if row_id in check.too_long:
            state[context.NOT_SCORABLE_KEY] = check.reason(row_id)
            return vf031.synthetic_response("smol-slm-eval-not-scorable", int(time.time()),
                                            str(state.get("model") or ""), "")
        return await super().get_model_response(state, prompt, *args, **kwargs)


class TaskGroup(EvalOnly, RunFailurePolicy, vf.EnvGroup):
    """The `int_index` and `slm` groups: verifiers' EnvGroup with the run failure policy (an
    infrastructure failure in any component stops the run, non-zero) and no train split."""

    behaviour_version = BEHAVIOUR_VERSION


class LoglikEnv(EvalOnly, PolicyEnv):
    """Multiple choice by log-likelihood: the 'response' is the predicted choice's letter."""

    behaviour_version = BEHAVIOUR_VERSION

    def __init__(self, items: dict[str, tuple], headline: str, **kwargs: Any):
        super().__init__(**kwargs)
        self.items, self.headline = items, headline

    async def get_model_response(self, state: Any, prompt: Any, client: Any = None,
                                 model: str | None = None, **_: Any) -> vf031.Response:
        """The choices' log-likelihoods (probe first), kept in `state["logliks"]`, and the
        letter they pick as the reply (`mc.predicted`); nothing here knows the gold choice.

        Raises:
            InfrastructureError: the endpoint failed or returned no usable log-likelihoods."""
        client = client if client is not None else state["client"]
        openai_client = getattr(client, "client", client)
        model = model or state["model"]
        context, continuations, choices, _ = self.items[state["info"]["id"]]
        try:
            await probe(openai_client, model)
            logliks = await continuation_logliks(openai_client, model, context, continuations)
        except InfrastructureError:
            raise
        except Exception as exc:  # connection, HTTP, timeouts: the endpoint, not the model
            url = str(getattr(openai_client, "base_url", "")) or None
            raise InfrastructureError("model endpoint", f"{type(exc).__name__}: {exc}",
                                      url) from exc
        state["logliks"] = [float(x) for x in logliks]
        letter = LETTERS[predicted(logliks, choices, self.headline)]
        return vf031.synthetic_response("smol-slm-eval-loglik", int(time.time()), str(model),
                                        letter)


def _dataset(records: list[dict]):
    from datasets import Dataset

    return Dataset.from_list(records)


def _select(rows: list[dict], num_examples: int) -> list[dict]:
    return rows if num_examples is None or num_examples < 0 else rows[:num_examples]


def headline_of(task: str, enable_tier2_metric: bool | None, bfcl_mode: str) -> str:
    """The task's reward metric. BFCL: `ast_match` where the checker exists (the seven
    single-turn categories) unless `enable_tier2_metric` is False, or in the seed mode unless it
    is True (the seed's default is Tier 1); multi-turn: `function_name_match`.

    Raises:
        ConfigError: Tier 2 asked for a multi-turn task.
    """
    spec = TASKS[task]
    if spec.kind != BFCL:
        return spec.metric
    if bfcl_task_category(task) in BFCL_MULTI_TURN:
        if enable_tier2_metric:
            raise ConfigError(f"{task}: multi-turn BFCL has no Tier 2 here (the official metric "
                              "is interactive: run BFCL's own runner); use "
                              "enable_tier2_metric=false")
        return spec.metric
    tier2 = enable_tier2_metric if enable_tier2_metric is not None else bfcl_mode != "seed"
    return "ast_match" if tier2 else spec.metric


def _bfcl_info(row: dict, task: str, headline: str) -> dict:
    return {"id": row["id"], "benchmark": task, "category": row["category"],
            "headline_metric": headline,
            "first_offered_baseline": bfcl.first_offered_baseline(row)}


def build_task_env(task: str, num_examples: int = -1, prompt_style: str = "seed",
                   data_path: str | None = None, enable_tier2_metric: bool | None = None,
                   bfcl_categories: list[str] | None = None,
                   bfcl_mode: str = "smol") -> vf.Environment:
    """One task's environment (rows loaded and checked here; see `load_environment`)."""
    spec = TASKS[task]
    headline = headline_of(task, enable_tier2_metric, bfcl_mode)
    rows = load_rows(task, data_path)
    if spec.kind == BFCL and bfcl_categories:
        rows = [r for r in rows if r["category"] in bfcl_categories]
    rows = _select(rows, num_examples)
    by_id = {r["id"]: r for r in rows}
    items = {r["id"]: mc_request(task, r, prompt_style) for r in rows} if spec.kind == MC else {}
    rubric = TaskRubric(spec.kind, headline, by_id, tier2=True, mode=bfcl_mode,
                        choices={key: (choices, gold)
                                 for key, (_, _, choices, gold) in items.items()})
    if spec.kind == MC:
        records = [{"prompt": [{"role": "user", "content": (
            GPQA_PROMPT if task == "gpqa_diamond" else items[r["id"]][0])}],
            "answer": LETTERS[items[r["id"]][3]], "info": {"id": r["id"], "benchmark": task}}
            for r in rows]
        dataset = _dataset(records)
        return LoglikEnv(items, headline, eval_dataset=dataset, rubric=rubric)
    if spec.kind == MATH:
        records = [{"prompt": [{"role": "user", "content": math500.math_prompt(r["problem"])}],
                    "answer": r["answer"], "info": {"id": r["id"], "benchmark": task}}
                   for r in rows]
        sampling = {"temperature": 0.0, "stop": math500.STOP, "max_tokens": math500.MAX_TOKENS}
    else:
        records = [{"prompt": [{"role": "user", "content": bfcl.bfcl_prompt(r)}],
                    "answer": "", "info": _bfcl_info(r, task, headline)} for r in rows]
        sampling = {"temperature": 0.0, "stop": bfcl.stop_strings(bfcl_mode),
                    "max_tokens": bfcl.MAX_TOKENS}
    return TaskEnv(eval_dataset=_dataset(records), rubric=rubric, sampling_args=sampling,
                   task=task)


def build_environment(config: SlmEvalOptions) -> vf.Environment:
    """The classic environment of checked options (config.SlmEvalOptions): one task, or a group
    as an EnvGroup (a group skips, and names on stderr, components without data).

    The environment is evaluation-only: `get_eval_dataset()` holds the rows; `get_dataset()`
    and `split="train"` raise EvaluationOnlyError.

    Raises:
        DataUnavailableError: a task's data is missing (the message names how to supply it).
    """
    if config.split == "train":
        raise EvaluationOnlyError("train split")
    task, data_path = config.task, config.data_path
    bfcl_category = config.bfcl_category
    options = {"num_examples": config.num_examples, "prompt_style": config.prompt_style,
               "enable_tier2_metric": config.enable_tier2_metric, "bfcl_mode": config.bfcl_mode,
               "bfcl_categories": [bfcl_category] if bfcl_category else None}
    if task not in GROUPS:
        return build_task_env(task, data_path=data_path, **options)
    names, envs, missing = [], [], []
    for name in GROUPS[task]:
        try:
            component = build_task_env(name, **options)
            # In a group, a task whose rows cannot fit the context leaves them not scorable
            # (counted and named by the report) instead of refusing the other tasks' run.
            component.refuse_mostly_too_long = False
            envs.append(component)
            names.append(name)
        except DataUnavailableError as exc:
            missing.append(f"{name} ({exc})")
    if missing:
        print(f"smol-slm-eval: {task}: skipping tasks without data: " + "; ".join(missing),
              file=sys.stderr)
    if not envs:
        raise DataUnavailableError(f"{task}: no component has data")
    return TaskGroup(envs=envs, env_names=names)


load_environment = classic_loader(SlmEvalOptions, build_environment, """Build the smol-slm-eval
environment for one task or a group (verifiers classic API:
`vf-eval smol-slm-eval -a '{"task": ...}'`).

Every option is declared once in config.SlmEvalOptions (listed below); an unknown option is an
UnknownArgumentError (a TypeError naming the valid ones), a bad value a ConfigError naming the
valid values.
""")
