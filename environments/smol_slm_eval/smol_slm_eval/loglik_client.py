"""Log-likelihoods of continuations from an OpenAI-compatible completions endpoint.

One request per question: `prompt` = [context + continuation for each choice], `echo=true`,
`logprobs=1`, `max_tokens=1` (never 0: llama-cpp-python reads 0 as unlimited),
`temperature=0`. Each continuation's tokens are located by their text offset (at or after the
end of the context, before the end of the prompt) and their log-probabilities summed.

The request also says, in `extra_body`, where the tokens it reads begin: `echo_logprobs_from` =
the context's length in characters. `smol-envs-serve` then computes logits only where they are
read (the continuation's tokens; bit-identical log-probabilities) and echoes null before;
other OpenAI-compatible servers ignore the field and echo every position.

Before the first question, `probe` checks that the endpoint's echoed prompt log-probabilities
agree with the ones it reports for a generated token on the same prefix; an endpoint that fails
(e.g. stock llama-cpp-python 0.3.36 with a no-BOS model) is refused with `EndpointRefusedError`.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Sequence
from typing import Any

from .errors import EndpointRefusedError

PROBE_PROMPTS = ("The capital of France is", "Water boils at a temperature of")
PROBE_TOLERANCE = 0.02  # nats; the same model on the same prefix
# The first character whose tokens a request reads; honoured by smol-envs-serve (loglik.py).
READ_FROM_FIELD = "echo_logprobs_from"
_probed: dict[tuple[str, str, int], asyncio.Future] = {}


def _base_url(client: Any) -> str | None:
    url = getattr(client, "base_url", None)
    return str(url) if url is not None else None


def continuation_logprob(logprobs: Any, context_chars: int, prompt_chars: int) -> float:
    """Sum of token log-probabilities whose text offset lies in [context_chars, prompt_chars).

    A token that straddles the boundary (tokenised across the context end) counts as part of
    the continuation.

    Raises:
        ValueError: no token lies there, or a token there has no log-probability.
    """
    offsets = _get(logprobs, "text_offset")
    values = _get(logprobs, "token_logprobs")
    tokens = _get(logprobs, "tokens")
    total, found = 0.0, 0
    for offset, value, token in zip(offsets, values, tokens, strict=False):
        if offset < prompt_chars and offset + max(len(token), 1) > context_chars:
            if value is None or not math.isfinite(value):
                raise ValueError(f"token {token!r} at {offset} has no log-probability")
            total += value
            found += 1
    if not found:
        raise ValueError("no continuation token in the echoed prompt")
    return total


def _get(obj: Any, key: str) -> Any:
    return obj[key] if isinstance(obj, dict) else getattr(obj, key)


async def continuation_logliks(client: Any, model: str, context: str,
                               continuations: Sequence[str]) -> list[float]:
    """Summed log-probability of each continuation after `context`, in one request.

    Raises:
        EndpointRefusedError: the reply lacks echoed log-probabilities or its token offsets.
        (Connection and HTTP errors from the openai client propagate; the failure policy turns
        them into an InfrastructureError.)
    """
    prompts = [context + c for c in continuations]
    reply = await client.completions.create(
        model=model, prompt=prompts, echo=True, logprobs=1, max_tokens=1, temperature=0.0,
        extra_body={READ_FROM_FIELD: len(context)})
    choices = sorted(reply.choices, key=lambda c: c.index)
    if len(choices) != len(prompts):
        raise EndpointRefusedError(f"asked for {len(prompts)} prompts, got {len(choices)} "
                                   "choices (does the endpoint accept a list of prompts?)",
                                   _base_url(client))
    out = []
    for choice, prompt in zip(choices, prompts, strict=True):
        if choice.logprobs is None:
            raise EndpointRefusedError("no logprobs in an echo reply", _base_url(client))
        try:
            out.append(continuation_logprob(choice.logprobs, len(context), len(prompt)))
        except (ValueError, KeyError, AttributeError, TypeError) as exc:
            raise EndpointRefusedError(f"unusable echo logprobs: {exc}",
                                       _base_url(client)) from exc
    return out


async def _probe_once(client: Any, model: str) -> None:
    for prefix in PROBE_PROMPTS:
        generated = await client.completions.create(
            model=model, prompt=prefix, logprobs=1, max_tokens=1, temperature=0.0)
        choice = generated.choices[0]
        token = _get(choice.logprobs, "tokens")[0] if choice.logprobs else None
        value = _get(choice.logprobs, "token_logprobs")[0] if choice.logprobs else None
        if not token or value is None:
            raise EndpointRefusedError("the endpoint returns no logprobs for generated tokens",
                                       _base_url(client))
        echoed = await continuation_logliks(client, model, prefix, [token])
        if abs(echoed[0] - value) > PROBE_TOLERANCE:
            raise EndpointRefusedError(
                f"echoed prompt logprobs disagree with generated ones on the same prefix "
                f"({prefix!r} + {token!r}: echo {echoed[0]:.4f}, generated {value:.4f}); "
                "this server cannot score log-likelihoods (llama-cpp-python 0.3.36 shifts them "
                "for models without BOS: use `smol-envs-serve`)", _base_url(client))


async def probe(client: Any, model: str) -> None:
    """Check the endpoint's echo log-probabilities once per (base URL, model) in this process,
    through `continuation_logliks` itself (the request the questions send, field included).

    Raises:
        EndpointRefusedError: they disagree with generated-token log-probabilities.
    """
    key = (_base_url(client) or str(id(client)), model, id(asyncio.get_running_loop()))
    future = _probed.get(key)
    if future is None:
        future = _probed[key] = asyncio.ensure_future(_probe_once(client, model))
    try:
        await asyncio.shield(future)
    except BaseException:
        if _probed.get(key) is future and future.done():
            _probed.pop(key, None)  # let a later run probe again
        raise
