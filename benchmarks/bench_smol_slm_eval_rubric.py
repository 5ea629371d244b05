"""Per-rollout overhead of smol-slm-eval's rubrics, beside their scoring backend's own time.

    uv run python benchmarks/bench_smol_slm_eval_rubric.py [--rollouts 400] [--repeats 3]

For each task kind, in one run: the backend's time, i.e. making each rollout's score record
(multiple choice: `mc.mc_record` on log-likelihoods the endpoint would have returned, the
endpoint's own time not counted; math_500: `math500.math_record`, i.e. math-verify; bfcl_v4 with
Tier 2: `bfcl.bfcl_record`, our AST checker), stored where the score-once rubric keeps it; then
the rubric's own overhead: `env.rubric.score_group` on those rollouts (the score-once
`TaskRubric` finds its record and only its reward functions, verifiers' num_turns monitor and
the group's bookkeeping run, in one `DirectCallGroup` pass). Completions: gold answers for half
the rollouts, wrong ones for the rest. Needs the task data (the archive cache, filled from
PyPI on first use). Prints a table and the load average before and after; nothing is asserted.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import time
from typing import Any

from smol_envs_core.adapters.policy import ScoreOnceRubric
from smol_slm_eval import bfcl, load_environment, math500
from smol_slm_eval.data import load_rows
from smol_slm_eval.mc import mc_record
from verifiers.types import State

RECORD = ScoreOnceRubric.record_key


def load() -> str:
    """The 1/5/15-minute load averages."""
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def state_for(record: dict[str, Any], index: int, text: str) -> State:
    """A finished single-turn rollout of `record` answering `text`, as verifiers leaves it."""
    state = State(input={"prompt": record["prompt"], "answer": record["answer"],
                         "info": record["info"], "example_id": index})
    state["completion"] = [{"role": "assistant", "content": text}]
    state["trajectory"] = []
    return state


def mc_case(n: int):
    """arc_easy rollouts carrying random 4-choice log-likelihoods (what the endpoint gives)."""
    env = load_environment(task="arc_easy", num_examples=n)
    rows = {r["id"]: r for r in load_rows("arc_easy")}
    rng = random.Random(0)
    records = env.get_eval_dataset().to_list()
    logliks = [[-rng.uniform(1, 30) for _ in rows[r["info"]["id"]]["choices"]] for r in records]

    def states() -> list[State]:
        out = []
        for k, record in enumerate(records):
            row = rows[record["info"]["id"]]
            state = state_for(record, k, "A")
            state["mc_record"] = mc_record(logliks[k], row["choices"], row["gold"])
            out.append(state)
        return out

    def backend(batch: list[State]) -> None:
        for k, state in enumerate(batch):
            row = rows[state["info"]["id"]]
            state[RECORD] = mc_record(logliks[k], row["choices"], row["gold"])

    return env, states, backend


def math_case(n: int):
    """math_500 rollouts: the gold answer boxed (even k) or a wrong number (odd k)."""
    env = load_environment(task="math_500", num_examples=n)
    records = env.get_eval_dataset().to_list()
    texts = [f"So the answer is $\\boxed{{{r['answer']}}}$." if k % 2 == 0
             else f"So the answer is $\\boxed{{{k + 0.5}}}$." for k, r in enumerate(records)]

    def states() -> list[State]:
        return [state_for(r, k, texts[k]) for k, r in enumerate(records)]

    def backend(batch: list[State]) -> None:
        for k, state in enumerate(batch):
            state[RECORD] = math500.math_record(texts[k], state["answer"])

    return env, states, backend


def bfcl_case(n: int):
    """bfcl_v4 (Tier 2) rollouts: BFCL's possible answer as calls (even k) or a wrong call."""
    env = load_environment(task="bfcl_v4", num_examples=n, enable_tier2_metric=True)
    rows = {r["id"]: r for r in load_rows("bfcl_v4")}
    records = env.get_eval_dataset().to_list()

    def text(k: int, row: dict) -> str:
        if row["category"] == "irrelevance" or k % 2:
            return json.dumps([{"name": "no_such_function", "arguments": {}}])
        return json.dumps(bfcl.gold_calls(row))

    texts = [text(k, rows[r["info"]["id"]]) for k, r in enumerate(records)]

    def states() -> list[State]:
        return [state_for(r, k, texts[k]) for k, r in enumerate(records)]

    def backend(batch: list[State]) -> None:
        for k, state in enumerate(batch):
            state[RECORD] = bfcl.bfcl_record(texts[k], rows[state["info"]["id"]], True)

    return env, states, backend


CASES = {"arc_easy (multiple choice)": mc_case, "math_500 (math-verify)": math_case,
         "bfcl_v4 (AST checker)": bfcl_case}


def main() -> None:
    """Time backend and rubric per task kind, interleaved, and print median per-rollout costs."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rollouts", type=int, default=400)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    print(f"load average before: {load()} ({os.cpu_count()} CPUs)")
    print(f"{'task':<28} {'rollouts':>8} {'backend us':>11} {'rubric overhead us':>19} "
          f"{'overhead share':>15}")
    for name, make in CASES.items():
        env, states, backend = make(args.rollouts)
        backend_times, rubric_times = [], []
        for _ in range(args.repeats):
            batch = states()
            started = time.perf_counter()
            backend(batch)
            backend_times.append(time.perf_counter() - started)
            started = time.perf_counter()
            asyncio.run(env.rubric.score_group(batch))
            rubric_times.append(time.perf_counter() - started)
        n = len(batch)
        backend_us = statistics.median(backend_times) / n * 1e6
        overhead_us = statistics.median(rubric_times) / n * 1e6
        share = overhead_us / (overhead_us + backend_us)
        print(f"{name:<28} {n:>8} {backend_us:>11.1f} {overhead_us:>19.1f} {share:>14.1%}")
    print(f"load average after: {load()}")


if __name__ == "__main__":
    main()
