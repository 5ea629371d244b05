"""Batch planning, out-of-memory backoff and run statistics of `smolscript evaluate --model`
(smolscript.generate), on literals. The backend here is a test double whose memory holds at
most `capacity` prompts: a real out-of-memory error needs a GPU (the real backends are run in
test_evaluate_model.py)."""

from __future__ import annotations

import pytest
from smol_envs_core.errors import InfrastructureError
from smolscript.backends import Generation, OutOfMemory, _cut_at_stop
from smolscript.generate import BatchRunner, Job, plan_batches, totals

pytestmark = pytest.mark.unit


def job(i: int, budget: int, length: int) -> Job:
    return Job(f"t{i}", f"prompt {i}", budget, length, i)


class SmallMemory:
    """Generates `x<prompt>` for each prompt; a batch of more than `capacity` prompts raises
    OutOfMemory, as a GPU backend does."""

    def __init__(self, capacity: int):
        self.capacity = capacity
        self.calls: list[list[str]] = []

    def generate(self, prompts, max_new_tokens, stop=()):
        self.calls.append(list(prompts))
        if len(prompts) > self.capacity:
            raise OutOfMemory(f"CUDA out of memory ({len(prompts)} prompts)")
        return [Generation("x" + p, n, True) for p, n in zip(prompts, max_new_tokens,
                                                                strict=True)]


def test_batches_never_mix_budgets_and_go_largest_and_longest_first():
    jobs = [job(0, 128, 10), job(1, 256, 5), job(2, 128, 30), job(3, 128, 20), job(4, 256, 9),
            job(5, 160, 1), job(6, 128, 20)]
    plan = plan_batches(jobs, 2)
    assert [[j.id for j in b] for b in plan] == [["t4", "t1"], ["t5"], ["t2", "t3"],
                                                 ["t6", "t0"]]
    assert all(len({j.budget for j in b}) == 1 for b in plan)
    # the plan depends on the selection alone: the same jobs in another order, the same plan
    assert plan_batches(list(reversed(jobs)), 2) == plan
    with pytest.raises(ValueError, match="batch_size"):
        plan_batches(jobs, 0)


def test_out_of_memory_halves_the_batch_and_retries_the_same_prompts():
    backend = SmallMemory(capacity=3)
    runner = BatchRunner(backend, batch_size=8)
    batch = [job(i, 128, 10) for i in range(8)]
    parts = list(runner.run(batch))
    # 8 fails, 4 fails, then parts of 2 (the halved size stays for the rest of the run)
    assert [len(c) for c in backend.calls] == [8, 4, 2, 2, 2, 2]
    assert [[j.id for j in part] for part, _, _ in parts] == [["t0", "t1"], ["t2", "t3"],
                                                              ["t4", "t5"], ["t6", "t7"]]
    assert [g.text for _, made, _ in parts for g in made] == [f"xprompt {i}" for i in range(8)]
    assert runner.oom_retries == 2 and runner.batch_size == 2
    assert [(e["from"], e["to"], e["first_id"]) for e in runner.oom_events] == [(8, 4, "t0"),
                                                                                (4, 2, "t0")]
    assert list(runner.run([job(9, 128, 1)]))[0][0][0].id == "t9"  # later batches: size 2


def test_out_of_memory_at_batch_size_one_stops_the_run():
    runner = BatchRunner(SmallMemory(capacity=0), batch_size=2)
    with pytest.raises(InfrastructureError, match="out of memory at batch size 1 on task t0"):
        list(runner.run([job(0, 128, 1), job(1, 128, 1)]))
    assert runner.oom_retries == 1


def test_a_backend_failure_is_a_generation_error():
    class Broken:
        def generate(self, prompts, max_new_tokens, stop=()):
            raise RuntimeError("llama_decode returned -1")

    with pytest.raises(InfrastructureError, match="in-process model.*llama_decode"):
        list(BatchRunner(Broken(), 4).run([job(0, 128, 1)]))


def test_totals_sum_every_session():
    generations = {"a": {"status": "generated", "new_tokens": 128, "hit_limit": True},
                   "b": {"status": "generated", "new_tokens": 40, "hit_limit": False},
                   "c": {"status": "prompt_too_long", "new_tokens": 0, "hit_limit": False}}
    sessions = [{"oom_retries": 1, "final_batch_size": 32, "wall_s": 2.0, "new_tokens": 128},
                {"oom_retries": 0, "final_batch_size": 64, "wall_s": 2.0, "new_tokens": 40}]
    assert totals(generations, sessions) == {
        "completions": 2, "hit_limit": 1, "prompt_too_long": 1, "new_tokens": 168,
        "oom_retries": 1, "final_batch_size": 64, "wall_s": 4.0, "tokens_per_s": 42.0}
    assert totals({}, [])["tokens_per_s"] is None


@pytest.mark.parametrize(("text", "stop", "expected"), [
    ("abc\ndef", ["\n"], ("abc", True)),
    ("abc", ["x"], ("abc", False)),
    ("a#b\nc", ["\n", "#"], ("a", True)),  # the earliest stop wins, not the first listed
    ("abc", [""], ("abc", False)),  # an empty stop string stops nothing
])
def test_stop_strings_cut_at_the_first_occurrence(text, stop, expected):
    assert _cut_at_stop(text, stop) == expected
