"""smolscript's one scoring gate (`smolscript.gate`): at most `concurrency` scoring jobs in
flight toward the service, for the adapters' calls (`ScoringGate.score`) and for the evaluator,
which holds a slot for each task's whole scoring and starts none after a failure.

Jobs go to the in-process test double of the scoring client (`test_evaluate.InProcessPython`:
the real drivers and judge, the job's Python run unsandboxed), wrapped to count the jobs in
flight; the real service's bound is exercised by test_known_order.py and test_evaluate_service.py.
"""

from __future__ import annotations

import asyncio
import json

import pytest
from smolscript import data
from smolscript.evaluate import InfraStop
from smolscript.gate import ScoringGate

from tests.smolscript.test_evaluate import InProcessPython, N, edition, run  # noqa: F401

pytestmark = pytest.mark.unit


class Counting:
    """A scoring client that counts the jobs sent to the client it wraps, and those in flight."""

    def __init__(self, inner: InProcessPython):
        self.inner = inner
        self.sent = 0
        self.in_flight = 0
        self.most = 0

    async def __aenter__(self):
        return self

    async def __aexit__(self, *exc):
        return None

    async def run_program_job(self, job):
        self.sent += 1
        self.in_flight += 1
        self.most = max(self.most, self.in_flight)
        try:
            await asyncio.sleep(0)
            return await self.inner.run_program_job(job)
        finally:
            self.in_flight -= 1


def references() -> list[tuple[dict, dict, str]]:
    """(task, hidden tests, reference source) of every task of the written edition."""
    tasks = data.load_tasks("default")
    hidden = data.hidden_for(tasks, data.load_hidden("default"))
    refs = data.load_references("default")
    return [(t, hidden[t["id"]], refs[t["id"]]["reference_solution"]) for t in tasks]


@pytest.mark.parametrize("concurrency", [1, 2, 4])
def test_the_adapters_calls_are_bounded_by_the_gate(edition, concurrency):  # noqa: F811
    client = Counting(InProcessPython())
    gate = ScoringGate.on_client(client, concurrency)

    async def score_all():
        return await asyncio.gather(*(gate.score(task, hidden, code, "")
                                      for task, hidden, code in references()))

    verdicts = asyncio.run(score_all())
    assert [v["passed"] for v in verdicts] == [True] * N
    assert client.sent == N and client.most == concurrency


@pytest.mark.parametrize("concurrency", [1, 2])
def test_the_evaluator_holds_a_slot_per_task(edition, concurrency):  # noqa: F811
    tmp, preds = edition
    client = Counting(InProcessPython())
    doc = run(preds, tmp / "r.json", client, languages=["python"], concurrency=concurrency)
    assert doc["status"] == "complete"
    assert all(r["passed"] for r in doc["results"].values()) and len(doc["results"]) == N
    assert client.most == concurrency


def test_the_evaluator_sends_no_job_after_a_failure(edition):  # noqa: F811
    """At concurrency 1 the third job fails: the tasks waiting for the slot never send one."""
    tmp, preds = edition
    client = Counting(InProcessPython(fail_at=3))
    with pytest.raises(InfraStop):
        run(preds, tmp / "r.json", client, languages=["python"], concurrency=1)
    assert client.sent == client.inner.calls == 3
    assert len(json.loads((tmp / "r.json").read_text())["results"]) == 2


@pytest.mark.parametrize("concurrency", [0, -1])
def test_a_gate_needs_one_slot(concurrency):
    with pytest.raises(ValueError, match="concurrency must be >= 1"):
        ScoringGate.on_client(InProcessPython(), concurrency)
