"""Failure classification of a finished classic rollout: a model outcome or an infrastructure
failure (root README.md, "When infrastructure fails").

An empty model answer is a model outcome (kept, scored 0, counted as `empty_response`); any other
error verifiers recorded on the rollout is the model endpoint's failure and raises
`InfrastructureError` naming the component and the request URL.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..errors import InfrastructureError
from . import vf031

EMPTY_ANSWER_KEY = "empty_response"


def _url_of(error: BaseException) -> str | None:
    """The request URL found along an exception chain (openai/httpx errors carry one)."""
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        request = getattr(current, "request", None)
        url = getattr(request, "url", None)
        if url:
            return str(url)
        current = current.__cause__ or current.__context__
    return None


def _chain(error: BaseException) -> str:
    """`ModelError -> APIConnectionError: Connection error.` (type names, last message)."""
    names, last = [], error
    current: BaseException | None = error
    while current is not None and len(names) < 6:
        names.append(type(current).__name__)
        last = current
        current = current.__cause__ or current.__context__
    message = str(last).strip() or str(error).strip()
    return " -> ".join(names) + (f": {message}" if message else "")


def raise_for_failed_rollout(state: dict[str, Any]) -> None:
    """Raise when the rollout's model call failed for a reason other than the model's answer.

    An empty answer (`EmptyModelResponseError`) is a model outcome: the error is cleared and the
    rollout flagged `empty_response`. A prompt the endpoint rejected as too long is recorded by
    verifiers as `state["prompt_too_long"]` (no error) and is left to the environment.

    Raises:
        InfrastructureError: component "model endpoint", with the request URL when known.
    """
    error = state.get("error")
    if error is None:
        return
    if isinstance(error, vf031.EmptyModelResponseError):
        state["error"] = None
        state[EMPTY_ANSWER_KEY] = True
        return
    if isinstance(error, BaseException):
        raise InfrastructureError("model endpoint", _chain(error), _url_of(error))
    raise InfrastructureError("model endpoint", str(error))


def empty_response(state: Mapping[str, Any], **_: Any) -> float:
    """1.0 when the model returned no text (kept and scored 0, not retried), else 0.0."""
    return float(bool(state.get(EMPTY_ANSWER_KEY)))

