"""The verifiers 0.3.1 internals the collection relies on, in one place.

Everything here is behaviour of the pinned verifiers (>=0.3.1,<0.4) classic API that is not a
documented public contract; `tests/core/adapters/test_vf031.py` checks each item against the
installed version, so an upgrade that changes one fails there, not in a run. Private names touched:

- `verifiers.legacy.envs.multiturn_env.MultiTurnMonitorRubric`: the `num_turns` monitor that
  `SingleTurnEnv.__init__` adds to every rubric (replaced by a direct-call equivalent);
- `verifiers.Rubric.funcs` / `.weights` and `verifiers.RubricGroup.rubrics`: the reward
  functions, their weights and a group's members (read to call them directly);
- `verifiers.Rubric._call_individual_reward_func`: catches any exception of a reward function
  and scores 0.0 (the reason scoring happens once, before the reward functions: never rely on it);
- rollout state keys `error` (an exception verifiers caught during the model call) and
  `prompt_too_long` (the endpoint rejected the prompt's length; no error is set);
- `verifiers.EmptyModelResponseError`: raised by `get_model_response` for an empty answer;
- `verifiers.types.Response` / `ResponseMessage`: what `get_model_response` returns;
- `verifiers.Parser._content_to_text`: message content (a string or content parts) as text.
"""

from __future__ import annotations

from typing import Any

import verifiers as vf
from verifiers.legacy.envs.multiturn_env import MultiTurnMonitorRubric
from verifiers.types import Response, ResponseMessage

EmptyModelResponseError = vf.EmptyModelResponseError
ERROR_KEY = "error"
PROMPT_TOO_LONG_KEY = "prompt_too_long"
PRIVATE_NAMES = (
    "verifiers.legacy.envs.multiturn_env.MultiTurnMonitorRubric",
    "verifiers.Rubric.funcs", "verifiers.Rubric.weights", "verifiers.RubricGroup.rubrics",
    "verifiers.Rubric._call_individual_reward_func",
    "state['error']", "state['prompt_too_long']",
    "verifiers.EmptyModelResponseError",
    "verifiers.types.Response", "verifiers.types.ResponseMessage",
    "verifiers.Parser._content_to_text",
)

__all__ = ["MultiTurnMonitorRubric", "EmptyModelResponseError", "Response", "ResponseMessage",
           "ERROR_KEY", "PROMPT_TOO_LONG_KEY", "PRIVATE_NAMES", "content_to_text",
           "prompt_too_long", "synthetic_response"]


def content_to_text(content: Any) -> str:
    """A message's content as text (a string as is; content parts: their texts joined by
    spaces, as verifiers 0.3.1 does)."""
    return content if isinstance(content, str) else vf.Parser()._content_to_text(content)


def prompt_too_long(state: dict[str, Any]) -> bool:
    """Whether verifiers recorded that the endpoint rejected the rollout's prompt as too long."""
    return bool(state.get(PROMPT_TOO_LONG_KEY))


def synthetic_response(response_id: str, created: int, model: str, content: str) -> Response:
    """A `get_model_response` result that stands for an answer not produced by a chat call (an
    empty answer kept as such, a log-likelihood choice): `content`, finish reason "stop"."""
    return Response(id=response_id, created=created, model=model, usage=None,
                    message=ResponseMessage(content=content, finish_reason="stop",
                                            is_truncated=False))
