"""Context limits as a property of the run: which rows fit the endpoint's context, checked
before the first request.

A prompt longer than the server's context comes back from verifiers as `prompt_too_long` with
no error, and would be scored as the model's 0. `check_context` asks the endpoint for its
context (`max_model_len` on `POST /tokenize`, which vLLM and `smol-envs-serve` answer) and the
token count of every prompt, and returns the rows whose prompt plus reply budget cannot fit.
Those rows are not scorable: the environment skips their request, records `NOT_SCORABLE_KEY`
in the rollout's state, and reports them (counted, named, excluded from the score). A run whose
rows mostly cannot fit is refused with one line naming the context it needs
(`refuse_mostly_too_long`). An endpoint without `/tokenize` (stock llama-cpp-python, hosted
APIs) is not checked in advance; verifiers' `prompt_too_long` still marks such rows.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..errors import InfrastructureError

NOT_SCORABLE_KEY = "not_scorable"
"""State key of a rollout whose prompt cannot fit the endpoint's context (its reason)."""
TEMPLATE_MARGIN = 16
"""Tokens added to a prompt's count for the chat template's role markers."""


class ContextTooSmallError(InfrastructureError):
    """Most rows of the run cannot fit the endpoint's context: the run is refused."""

    def __init__(self, reason: str, url: str | None = None):
        super().__init__("model endpoint (context)", reason, url)

    def __reduce__(self):
        return (type(self), (self.reason, self.url))


@dataclass(frozen=True)
class ContextCheck:
    """The endpoint's context and each row's need, in tokens.

    Attributes:
        context: the endpoint's context length, or None when it does not say (not checked).
        need: {row id: prompt tokens + TEMPLATE_MARGIN + the reply budget}.
    """

    context: int | None
    need: Mapping[str, int]

    @property
    def too_long(self) -> dict[str, int]:
        """{row id: need} of the rows that cannot fit (none when the context is unknown)."""
        if self.context is None:
            return {}
        return {rid: n for rid, n in self.need.items() if n > self.context}

    def reason(self, row_id: str) -> str:
        """One line on why a row is not scorable."""
        return (f"prompt and reply need {self.need[row_id]} tokens, more than the endpoint's "
                f"{self.context}-token context: not scorable")


def prompt_text(prompt: Any) -> str:
    """The text of a prompt: a string, or the contents of chat messages joined by newlines."""
    if isinstance(prompt, str):
        return prompt
    return "\n".join(str(m.get("content") or "") for m in prompt or [])


def _root(base_url: str) -> str:
    root = base_url.rstrip("/")
    return root[:-len("/v1")] if root.endswith("/v1") else root


async def check_context(base_url: str, prompts: Mapping[str, Any],
                        reply_tokens: int, timeout_s: float = 30.0) -> ContextCheck:
    """Ask the endpoint at `base_url` (".../v1") for its context and each prompt's tokens.

    Args:
        prompts: {row id: prompt (a string or chat messages)}.
        reply_tokens: the reply budget each row needs beside its prompt.
    Returns:
        the ContextCheck; `context` None when the endpoint has no usable `/tokenize`.
    Raises:
        InfrastructureError: the endpoint cannot be reached.
    """
    import httpx

    url = f"{_root(base_url)}/tokenize"
    need: dict[str, int] = {}
    context = None
    async with httpx.AsyncClient(timeout=timeout_s) as http:
        for row_id, prompt in prompts.items():
            try:
                reply = await http.post(url, json={"prompt": prompt_text(prompt)})
            except httpx.HTTPError as exc:
                raise InfrastructureError("model endpoint", f"{type(exc).__name__}: {exc}",
                                          url) from exc
            body = reply.json() if reply.status_code == 200 else {}
            if not isinstance(body.get("count"), int) or not isinstance(
                    body.get("max_model_len"), int):
                return ContextCheck(None, {})
            context = body["max_model_len"]
            need[row_id] = body["count"] + TEMPLATE_MARGIN + reply_tokens
    return ContextCheck(context, need)


def refuse_mostly_too_long(check: ContextCheck, task: str, url: str | None = None) -> None:
    """Raise ContextTooSmallError when more than half of the rows cannot fit.

    The message is one line: how many rows, the endpoint's context, the context they need and
    how to start the local server with it.
    """
    too_long = check.too_long
    if not too_long or 2 * len(too_long) <= len(check.need):
        return
    needed = max(too_long.values())
    raise ContextTooSmallError(
        f"{task}: {len(too_long)} of {len(check.need)} rows need more than the endpoint's "
        f"{check.context}-token context (prompt and reply: up to {needed} tokens); serve a "
        f"context of at least {needed} tokens (`smol-envs-serve start --n-ctx "
        f"{_round_up(needed)}`, within the model's own limit)", url)


def _round_up(tokens: int) -> int:
    size = 1024
    while size < tokens:
        size *= 2
    return size
