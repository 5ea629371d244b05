"""smolscript's one scoring function: what it decides without the scoring service, which both
adapters used to decide differently (prompt too long, assembly rejection, service URL)."""

from __future__ import annotations

import asyncio
import socket

import pytest
from smolscript import data
from smolscript.errors import ScoringInfraError
from smolscript.gate import ScoringGate
from smolscript.scorer import DECLARATION, score_reply

pytestmark = pytest.mark.integration  # connects to a closed port


def down_gate() -> ScoringGate:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return ScoringGate(f"http://127.0.0.1:{sock.getsockname()[1]}", 1)


def first_python_task() -> tuple[dict, dict]:
    task = data.load_tasks("default", ["python"])[0]
    return task, data.hidden_for([task], data.load_hidden("default"))[task["id"]]


@pytest.mark.parametrize("reply, prompt_too_long, failure", [
    ("    return 1\n", True, "prompt_too_long"),  # the endpoint refused the prompt
    ("```python\nx\n```\n```python\ny\n```", False, "rejected"),  # two fences: no code
])
def test_decided_without_the_service(reply: str, prompt_too_long: bool, failure: str) -> None:
    task, hidden = first_python_task()
    score = asyncio.run(score_reply(reply, task, hidden, down_gate(),
                                    prompt_too_long=prompt_too_long))
    assert score.reward == 0.0 and score.failure == failure
    assert set(score.metrics) == set(DECLARATION.names)


def test_a_service_failure_raises_naming_the_service() -> None:
    task, hidden = first_python_task()
    gate = down_gate()
    with pytest.raises(ScoringInfraError, match="scoring service"):
        asyncio.run(score_reply("    return 1\n", task, hidden, gate))
