"""The one module of smoltalkbench that talks to the network: it asks the judge for one token.

Given the messages built by `judge.build_messages`, `JudgeClient.top_logprobs` calls an
OpenAI-compatible chat endpoint with max_tokens=1, logprobs=True and top_logprobs=5 (AlpacaEval
2.0's weighted annotator settings), retries transient failures (connection errors, timeouts,
429 and 5xx) with exponential backoff (sleeping outside its concurrency slot), and returns
either the first token's top logprobs or an error string. It never raises for an endpoint
failure: verifiers 0.3.1 would swallow the exception inside a reward function and score 0, so
failures travel as values and are counted.
"""

from __future__ import annotations

import asyncio
import logging
import os
import weakref
from dataclasses import dataclass
from typing import Any

import openai

from smoltalkbench import judge

logger = logging.getLogger(__name__)

TOP_LOGPROBS = judge.TOP_K
_TRANSIENT = (
    openai.APIConnectionError,  # includes APITimeoutError
    openai.RateLimitError,
    openai.InternalServerError,
)


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


@dataclass(frozen=True)
class JudgeReply:
    """Top logprobs of the judge's first token [(token, logprob)], or an error, and the tries."""

    top_logprobs: list[tuple[str, float]] | None
    error: str | None
    attempts: int
    token: str | None = None


def _field(item: Any, name: str) -> Any:
    return item.get(name) if isinstance(item, dict) else getattr(item, name, None)


def extract_top_logprobs(response: Any) -> tuple[list[tuple[Any, Any]] | None, str | None]:
    """(raw top (token, logprob) pairs of the first generated token, that token) from a chat
    completion, exactly as the server sent them: `judge.clean_top_logprobs` checks them.

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
    top = _field(content[0], "top_logprobs") or []
    return [(_field(t, "token"), _field(t, "logprob")) for t in top], token


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

    async def top_logprobs(self, messages: list[dict[str, str]]) -> JudgeReply:
        """Ask the judge for one token and return its top-5 logprobs, or an error.

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
                        temperature=self.config.temperature,
                        logprobs=True,
                        top_logprobs=TOP_LOGPROBS,
                    )
                except _TRANSIENT as exc:
                    failure: Exception | None = exc
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
