"""The one module of smoltalkbench that talks to the network: it asks the judge for one token.

Given the messages built by `judge.build_prompt`, `JudgeClient.top_logprobs` calls an
OpenAI-compatible chat endpoint with max_tokens=1, logprobs=True and top_logprobs=5 (AlpacaEval
2.0's weighted annotator settings), retries transient failures (connection errors, timeouts,
429 and 5xx) with exponential backoff (sleeping outside its concurrency slot), and returns
either the first token's top logprobs or an error string. It never raises for an endpoint
failure: verifiers 0.3.1 would swallow the exception inside a reward function and score 0, so
failures travel as values and are counted.

`JudgeClient.judge` is the one scoring path of a reply, used by the classic rubric and the v1
taskset alike: reasoning trace split off (`smol_envs_core.adapters.reasoning`), prompt built (model
text neutralised, including the control tokens the judge's tokenizer reports at `/tokenizer_info`
where the server has that route), judge asked (in one order, or in both and averaged), re-asked
once when it gave no usable verdict, and a control pair (the reference against itself) asked
before a missing verdict or a request over the judge's context (HTTP 400 naming the context) is
booked as the reply's loss; when the control pair fails too, the judge is to blame (README,
"No verdict").
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import re
import time
import urllib.error
import urllib.request
import weakref
from dataclasses import dataclass, replace
from typing import Any

import openai
from smol_envs_core.adapters.reasoning import split_reasoning
from smol_envs_core.errors import InfrastructureError

from smoltalkbench import judge
from smoltalkbench.neutralize import special_skeletons

logger = logging.getLogger(__name__)

TOP_LOGPROBS = judge.TOP_K
_TRANSIENT = (
    openai.APIConnectionError,  # includes APITimeoutError
    openai.RateLimitError,
    openai.InternalServerError,
)
# How servers word a 400 for a request longer than the model's context: llama-cpp-python
# ("Requested tokens (N) exceed context window of C"), vLLM ("This model's maximum context
# length is C tokens"), OpenAI (code context_length_exceeded), TGI ("must have less than C
# tokens"), llama.cpp's server ("exceeds the available context size").
# HTTP statuses that say a server has no such route (`read_route`): not a failure.
NO_ROUTE = (404, 405, 501)
CONTEXT_EXCEEDED = re.compile(
    r"context[ _](?:window|length|size)|maximum context|context_length_exceeded"
    r"|must have less than \d+ tokens|prompt is too long|input is too long", re.IGNORECASE)


@dataclass(frozen=True)
class JudgeConfig:
    """Where and how to call the judge.

    api_key_var names the environment variable holding the key; None or "" means the endpoint
    needs none (a local server). max_retries counts retries after the first attempt;
    backoff_s is the first wait, doubled on each retry. timeout_s bounds one request.
    """

    model: str
    base_url: str
    api_key_var: str | None
    temperature: float = 1.0
    max_retries: int = 3
    backoff_s: float = 1.0
    timeout_s: float = 60.0
    max_concurrent: int = 8
    label_bias: str = "none"
    """How a re-ask is constrained to the labels (`judge.label_bias_params`)."""
    min_label_mass: float = judge.DEFAULT_MIN_LABEL_MASS
    both_orders: bool = False
    """Judge each reply under both labels and average (twice the calls)."""


def check_judge_options(label_bias: str, min_label_mass: float) -> None:
    """Raise ConfigError for a bad `judge_label_bias` or a label mass floor outside [0, 1]."""
    from smoltalkbench.errors import ConfigError

    try:
        if label_bias != judge.AUTO:
            judge.label_bias_params(label_bias)
    except ValueError as exc:
        raise ConfigError(str(exc)) from None
    if not 0.0 <= min_label_mass <= 1.0:
        raise ConfigError(f"judge_min_label_mass must be in [0, 1], got {min_label_mass}")


@dataclass(frozen=True)
class JudgeReply:
    """Top logprobs of the judge's first token [(token, logprob)], or an error, and the tries."""

    top_logprobs: list[tuple[str, float]] | None
    error: str | None
    attempts: int
    token: str | None = None
    overflow: bool = False
    """The endpoint refused the request as longer than its context (HTTP 400)."""


def special_tokens_of(info: Any) -> list[str]:
    """Special-token spellings in a tokenizer description (vLLM's `/tokenizer_info`, ours):
    string values of `*_token` keys, `additional_special_tokens`, and the `content` of
    `added_tokens_decoder` entries marked special. Anything else is ignored; never raises."""
    if not isinstance(info, dict):
        return []
    found = [v for k, v in info.items() if str(k).endswith("_token") and isinstance(v, str)]
    extra = info.get("additional_special_tokens")
    found += [t for t in extra if isinstance(t, str)] if isinstance(extra, list) else []
    added = info.get("added_tokens_decoder")
    if isinstance(added, dict):
        found += [e.get("content") for e in added.values()
                  if isinstance(e, dict) and e.get("special") and isinstance(e.get("content"), str)]
    return found


def _field(item: Any, name: str) -> Any:
    return item.get(name) if isinstance(item, dict) else getattr(item, name, None)


def extract_top_logprobs(response: Any) -> tuple[list[tuple[Any, Any]] | None, str | None]:
    """(raw top (token, logprob) pairs of the first generated token, that token) from a chat
    completion, exactly as the server sent them: `judge.clean_top_logprobs` checks them. The
    sampled token's own entry is added when the top list lacks it (as llama.cpp does).

    Returns (None, token-or-None) when the response carries no logprobs for its first token.
    """
    choices = getattr(response, "choices", None) or []
    if not choices:
        return None, None
    message = getattr(choices[0], "message", None)
    token = getattr(message, "content", None)
    content = getattr(getattr(choices[0], "logprobs", None), "content", None) or []
    if not content:
        return None, token
    top = [(_field(t, "token"), _field(t, "logprob"))
           for t in _field(content[0], "top_logprobs") or []]
    sampled = (_field(content[0], "token"), _field(content[0], "logprob"))
    if top and sampled[0] is not None and sampled[0] not in {t for t, _ in top}:
        top.append(sampled)
    return top, token


class JudgeClient:
    """Async judge caller with bounded concurrency; builds its OpenAI client on first use.

    The OpenAI client (its connection pool) and the concurrency semaphore belong to the event
    loop that first used them, so each running loop gets its own pair: synchronous trainers
    score each batch in a fresh `asyncio.run`, and a semaphore bound to a finished loop raises
    "is bound to a different event loop".
    """

    def __init__(self, config: JudgeConfig):
        self.config = config
        self._per_loop: weakref.WeakKeyDictionary[
            asyncio.AbstractEventLoop, tuple[openai.AsyncOpenAI, asyncio.Semaphore]
        ] = weakref.WeakKeyDictionary()
        self._specials: tuple[str, ...] | None = None
        self._bias_mode: str | None = None

    async def special_tokens(self) -> tuple[str, ...]:
        """Skeletons of the judge tokenizer's special tokens (`neutralize.special_skeletons`),
        read once from `/tokenizer_info` beside the base URL; () when the server has no such
        route (the fixed control-token patterns still apply).

        Raises:
            InfrastructureError: the route failed (`read_route`); nothing is cached, so the
                next sample asks again. A busy judge is waited for, never taken for one without
                the route: which tokens are neutralised must not depend on the load.
        """
        if self._specials is None:
            info = await asyncio.to_thread(self.read_route, "/tokenizer_info")
            if info is None:
                logger.info("the judge server has no /tokenizer_info route")
            self._specials = special_skeletons(special_tokens_of(info))
        return self._specials

    async def label_bias_mode(self) -> str:
        """The `judge_label_bias` mode in force: the configured one, or for "auto" the label
        ids read once from the judge server's `POST /tokenize` (vLLM's and `smol-envs-serve`'s
        route; no special tokens added) as "ids:..." (`judge.ids_mode`); "none" (the reminder
        re-ask) when the server has no such route or its reply holds no usable ids.

        Raises:
            InfrastructureError: the route failed (`read_route`); nothing is cached.
        """
        if self._bias_mode is None:
            if self.config.label_bias != judge.AUTO:
                self._bias_mode = self.config.label_bias
            else:
                self._bias_mode = await asyncio.to_thread(self._read_label_ids)
        return self._bias_mode

    def _read_label_ids(self) -> str:
        replies = [self.read_route("/tokenize", {"model": self.config.model, "prompt": label,
                                                 "add_special_tokens": False})
                   for label in judge.IDENTIFIERS]
        try:
            return judge.ids_mode(*(reply.get("tokens") for reply in replies))
        except (ValueError, AttributeError) as exc:  # no route (None), or no usable ids
            logger.warning("judge_label_bias auto: no label ids from the judge's /tokenize "
                           "(%r); re-asks add a reminder turn instead", exc)
            return "none"

    def read_route(self, path: str, body: dict | None = None) -> Any:
        """The JSON reply of the judge server's `path` beside its base URL (`GET`, or `POST`
        of `body`), with the judge's own timeout and retries (`timeout_s`, `max_retries`,
        `backoff_s`); None when the server has no such route (HTTP 404, 405 or 501).

        Raises:
            InfrastructureError: ("judge", reason, URL) when it cannot be read: connection
                refused, timeout, any other HTTP status, a reply that is not JSON.
        """
        url = self.config.base_url.rstrip("/").removesuffix("/v1") + path
        key = self.api_key()
        headers = {"content-type": "application/json",
                   **({"authorization": f"Bearer {key}"} if key and key != "EMPTY" else {})}
        data = json.dumps(body).encode() if body is not None else None
        for attempt in range(self.config.max_retries + 1):
            request = urllib.request.Request(url, data=data, headers=headers)
            try:
                with urllib.request.urlopen(request, timeout=self.config.timeout_s  # noqa: S310
                                            ) as response:
                    return json.load(response)
            except urllib.error.HTTPError as exc:
                if exc.code in NO_ROUTE:
                    return None
                failure: Exception = exc
            except (OSError, ValueError) as exc:  # refused, timeout, not JSON
                failure = exc
            if attempt < self.config.max_retries:
                time.sleep(self.config.backoff_s * 2 ** attempt)
        raise InfrastructureError("judge", f"{url} failed after {attempt + 1} tries: "
                                  f"{failure!r}", url)

    def api_key(self) -> str | None:
        """The key from the configured variable; "EMPTY" when none is needed, None if unset."""
        if not self.config.api_key_var:
            return "EMPTY"
        return os.environ.get(self.config.api_key_var) or None

    def _for_this_loop(self, key: str) -> tuple[openai.AsyncOpenAI, asyncio.Semaphore]:
        loop = asyncio.get_running_loop()
        pair = self._per_loop.get(loop)
        if pair is None:
            # Retries are ours (counted, logged); the SDK's own would hide them.
            client = openai.AsyncOpenAI(
                base_url=self.config.base_url,
                api_key=key,
                max_retries=0,
                timeout=self.config.timeout_s,
            )
            pair = self._per_loop[loop] = (client, asyncio.Semaphore(self.config.max_concurrent))
        return pair

    async def top_logprobs(self, messages: list[dict[str, str]], top: int = TOP_LOGPROBS,
                           extra: dict | None = None,
                           temperature: float | None = None) -> JudgeReply:
        """Ask the judge for one token and return its `top` logprobs, or an error.

        `extra` adds request fields (`logit_bias`, ...); `temperature` overrides the config's.
        Transient failures are retried up to config.max_retries times with exponential backoff;
        other API errors (400, 401, 404, ...) fail at once. Never raises for endpoint errors.
        """
        key = self.api_key()
        if key is None:
            return JudgeReply(
                None, f"judge API key variable {self.config.api_key_var} is not set", 0
            )
        client, semaphore = self._for_this_loop(key)
        attempts = 0
        while True:
            attempts += 1
            # The slot is held for the request only: a retry's backoff sleeps outside it, so a
            # failing sample never keeps the others waiting.
            async with semaphore:
                try:
                    response = await client.chat.completions.create(
                        model=self.config.model,
                        messages=messages,  # type: ignore[arg-type]
                        max_tokens=1,
                        temperature=(self.config.temperature if temperature is None
                                     else temperature),
                        logprobs=True,
                        top_logprobs=top,
                        **({"extra_body": extra} if extra else {}),
                    )
                except _TRANSIENT as exc:
                    failure: Exception | None = exc
                except openai.BadRequestError as exc:
                    overflow = bool(CONTEXT_EXCEEDED.search(str(exc)))
                    return JudgeReply(None, ("judge context exceeded: " if overflow else
                                             "judge endpoint error: ") + repr(exc), attempts,
                                      overflow=overflow)
                except openai.APIError as exc:
                    return JudgeReply(None, f"judge endpoint error: {exc!r}", attempts)
                except Exception as exc:  # noqa: BLE001 - any client failure is a judge error
                    return JudgeReply(None, f"judge client error: {exc!r}", attempts)
                else:
                    failure = None
            if failure is None:
                top, token = extract_top_logprobs(response)
                if top is None:
                    return JudgeReply(None, "judge reply has no logprobs", attempts, token)
                return JudgeReply(top, None, attempts, token)
            if attempts > self.config.max_retries:
                return JudgeReply(
                    None, f"judge endpoint failed after {attempts} tries: {failure!r}", attempts
                )
            wait = self.config.backoff_s * 2 ** (attempts - 1)
            logger.warning("judge call failed (%r); retry %d in %.1fs", failure, attempts, wait)
            await asyncio.sleep(wait)

    async def _ask(self, messages: list[dict[str, str]], label: str,
                   first_token: str | None = None) -> tuple[judge.Verdict, bool]:
        """(verdict, re-asked) of one ask (first_token None), followed by the re-ask when the
        answer had no verdict; with first_token given, only the re-ask after that answer.

        The re-ask is constrained by `logit_bias` at temperature 0 where the config says how
        (`label_bias`); otherwise the judge's own token and a reminder turn are appended, as
        Arena-Hard's second judgment attempt does, and the label mass floor applies again.
        """
        try:
            bias = judge.label_bias_params(await self.label_bias_mode())
        except InfrastructureError as exc:
            return judge.Verdict(raw_win_prob=None, error=exc.reason), first_token is not None
        if first_token is not None and bias is not None:
            reply = await self.top_logprobs(messages, judge.REASK_TOP_LOGPROBS, bias, 0.0)
            if reply.error:
                return judge.Verdict(raw_win_prob=None, error=reply.error,
                                     overflow=reply.overflow), True
            return judge.parse_constrained(reply.top_logprobs, label, reply.token), True
        if first_token is not None:
            messages = [*messages, {"role": "assistant", "content": first_token},
                        {"role": "user", "content": judge.reask_text()}]
        reply = await self.top_logprobs(messages)
        if reply.error:
            return (judge.Verdict(raw_win_prob=None, error=reply.error, overflow=reply.overflow),
                    first_token is not None)
        verdict = judge.parse_verdict(reply.top_logprobs, label, self.config.min_label_mass)
        if verdict.no_verdict and first_token is None:
            return await self._ask(messages, label, reply.token or "")
        return verdict, first_token is not None

    async def judge(self, instruction: str, content: str, reference: str, *,
                    reasoning: str | None = None, seed: int = 0,
                    length_penalty_chars: int = judge.DEFAULT_LENGTH_PENALTY_CHARS,
                    ) -> judge.Judgement:
        """Judge one reply against the reference: the sample's Judgement, never raising.

        `content` is the reply as the model wrote it and `reasoning` a separate reasoning field;
        only the answer after the reasoning trace is judged and counted. Outcomes: judged (0..1,
        capped by the length rule; with `both_orders` the mean of the two orders); the reply's
        loss without a judge call (empty, or a trace that never closed); the reply's loss with
        `no_verdict` (the judge gave none, even re-asked, on this reply but did on a control
        pair of the reference against itself); the reply's loss when the request with this
        reply exceeds the judge's context but the control pair fits; `judge_error` (an endpoint
        failure, or the control pair fails too: the judge itself is unusable), which the
        adapters hand to the failure policy.
        """
        split = split_reasoning(content, reasoning)
        if split.answer is None:
            return judge.no_answer(reference, split.trace_chars)
        answer = split.answer.strip()
        if not answer:  # the model's outcome: no judge call (nor any of its routes)
            return judge.empty_reply(reference, split.trace_chars)
        try:
            specials = await self.special_tokens()
        except InfrastructureError as exc:
            return judge.unscored(exc.reason, answer, reference)
        labels = judge.IDENTIFIERS if self.config.both_orders else (None,)
        results = []
        for label in labels:
            prompt = judge.build_prompt(instruction, answer, reference, seed, label, specials)
            if not prompt.reply.strip():
                return judge.empty_reply(reference, split.trace_chars)
            result = await self._judge_prompt(prompt, instruction, reference, seed,
                                              length_penalty_chars, specials)
            results.append(result)
            if result.judge_error or not result.reason.startswith("judged"):
                break  # the other order cannot change an error or a loss
        result = (results[0] if len(results) == 1
                  else judge.combine_orders(results, length_penalty_chars))
        return replace(result, trace_chars=split.trace_chars)

    async def _judge_prompt(self, prompt: judge.JudgePrompt, instruction: str, reference: str,
                            seed: int, k: int, specials: tuple[str, ...]) -> judge.Judgement:
        """The Judgement of one built prompt: asked (and re-asked), and, when there is no
        verdict or the request overflowed, settled by the control pair."""
        verdict, reasked = await self._ask(prompt.messages, prompt.label)
        result = self._book(verdict, prompt, k,
                            f" after a re-ask ({self._bias_mode})" if reasked else "")
        if result is not None:
            return result
        control = judge.build_prompt(instruction, reference, reference, seed, None, specials)
        checked, _ = await self._ask(control.messages, control.label)
        if checked.error:
            return judge.unscored(checked.error, prompt.reply, prompt.reference)
        if checked.no_verdict:
            return judge.unscored(
                f"judge gives no verdict, even on a control pair (the reference against "
                f"itself): {checked.no_verdict}", prompt.reply, prompt.reference)
        if verdict.overflow:
            return judge.lost(
                f"reply overflows the judge's context ({verdict.error}), though a control pair "
                "fits: scored as the reply's loss", prompt.reply, prompt.reference)
        return judge.lost(
            f"no verdict on this reply, re-asked ({verdict.no_verdict}), though one on a "
            "control pair: scored as the reply's loss", prompt.reply, prompt.reference,
            no_verdict=True)

    @staticmethod
    def _book(verdict: judge.Verdict, prompt: judge.JudgePrompt, k: int,
              note: str) -> judge.Judgement | None:
        """The Judgement of a verdict or endpoint failure; None when there was no verdict or the
        request overflowed the judge's context (the control pair decides)."""
        if verdict.no_verdict or verdict.overflow:
            return None
        return judge.judgement(verdict, prompt.label, prompt.reply, prompt.reference, k, note)
