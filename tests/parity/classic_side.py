"""The classic side of the parity test: the same corpus through `load_environment`'s real
rubric (verifiers 0.3.1), one rollout state per case, scored by the environment's rubric group
(`env.rubric.score_group`, as vf-eval does after generation)."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import openai
import verifiers as vf
from smol_envs_core.errors import InfrastructureError
from verifiers.types import State

from tests.parity.corpus import ENDPOINT_FAILURE


def endpoint_error() -> Exception:
    """What verifiers records in `state["error"]` when the endpoint answered HTTP 500."""
    request = httpx.Request("POST", "http://scripted.test/v1/chat/completions")
    error = vf.ModelError("model call failed")
    error.__cause__ = openai.InternalServerError(
        "scripted failure", response=httpx.Response(500, request=request), body=None)
    return error


def state_for(record: dict[str, Any], index: int, reply: str | None, chat: bool = True) -> State:
    """A finished single-turn rollout of `record` answered by `reply` (None: the endpoint
    failed), as verifiers 0.3.1 leaves it before scoring."""
    state = State(input={"prompt": record["prompt"], "answer": record.get("answer", ""),
                         "info": record["info"], "example_id": index})
    state["prompt"] = record["prompt"]
    text = reply or ""
    state["completion"] = [{"role": "assistant", "content": text}] if chat else text
    state["trajectory"] = []
    if reply is None:
        state["error"] = endpoint_error()
    return state


def observe(env: vf.Environment, case: str, state: State, names: tuple[str, ...]
            ) -> dict[str, Any]:
    """Score one state alone through the env's rubric; what parity compares of it."""
    try:
        asyncio.run(env.rubric.score_group([state]))
    except InfrastructureError:
        return {"ok": False}
    if case == ENDPOINT_FAILURE:
        raise AssertionError("an endpoint failure was scored")
    return {"ok": True, "reward": state["reward"],
            "scores": {name: state["metrics"][name] for name in names},
            "behaviour_version": state["info"].get("behaviour_version")}
