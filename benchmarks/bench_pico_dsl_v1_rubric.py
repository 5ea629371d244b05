"""How many rollouts per second the pico-dsl-v1 rubric scores, next to a plain exact-match rubric.

Both rubrics score the same synthetic rollouts in the same run, through verifiers 0.3.1's real
`Rubric.score_group`: gold answers, one-line-wrong answers, prose before the block, fenced
blocks, answers without tags and empty texts, built from the packaged benchmark. The plain
rubric is what a minimal verifiers environment would use: `vf.XMLParser(["answer"])` and one
exact-match reward. Where the time goes, in the same run: the pure scoring floor (parse and
score each text, no rubric), the environment's rubric (`DirectCallGroup`: one pass over its
members), the same member rubrics through verifiers' `RubricGroup` (this repository before
the one-pass group) and through verifiers' own path throughout (`Rubric.score_group`, before
`DirectCallRubric`). Prints a table and the load average before and after (the machine may be
shared: figures are only comparable within one run); nothing is asserted.

    uv run python benchmarks/bench_pico_dsl_v1_rubric.py [--rollouts 4800] [--repeats 5]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import statistics
import time
from collections.abc import Callable
from typing import Any

import verifiers as vf
from pico_dsl_v1 import load_environment
from pico_dsl_v1.env import rollout_state
from pico_dsl_v1.metrics import score_answer
from pico_dsl_v1.parse import parse_answer
from smol_envs_core.text import completion_text
from verifiers.types import State


def completions(answer: str) -> list[str]:
    """Six kinds of model text for one gold answer."""
    lines = answer.split("\n")
    wrong = "\n".join([*lines[:2], lines[2][:-1] + "#", lines[3]])
    return [
        f"<answer>\n{answer}\n</answer>",
        f"<answer>\n{wrong}\n</answer>",
        f"Let me think. Line 2 is the reverse.\n<answer>\n{answer}\n</answer>",
        f"<answer>\n```\n{answer}\n```\n</answer>",
        answer,
        "",
    ]


def make_states(records: list[dict[str, Any]], total: int) -> list[State]:
    """`total` fresh rollout states cycling over records and completion kinds."""
    states = []
    for k in range(total):
        record = records[k % len(records)]
        text = completions(record["answer"])[(k // len(records)) % 6]
        state = rollout_state(record, k, text)
        states.append(state)
    return states


def plain_rubric() -> vf.Rubric:
    """One exact-match reward over an XMLParser-extracted <answer> field."""
    parser = vf.XMLParser(["answer"], answer_field="answer")

    def exact_match(completion: Any, answer: str) -> float:
        parsed = parser.parse_answer(completion)
        return float(parsed is not None and parsed.strip() == answer)

    return vf.Rubric(funcs=[exact_match], weights=[1.0], parser=parser)


def pure_scoring(states: list[State]) -> None:
    """The floor: parse and score each text, no rubric, no verifiers."""
    for state in states:
        score_answer(parse_answer(completion_text(state["completion"])),
                     state["info"]["target_lines"])


def verifiers_group(group: vf.RubricGroup, own_members: bool) -> Callable[[list], Any]:
    """`group`'s members scored through verifiers' RubricGroup code (and, with `own_members`,
    every member through verifiers' own `Rubric.score_group` too), after the score-once step."""

    async def run(states: list[State]) -> None:
        for member in group.rubrics:
            if hasattr(member, "ensure_group_scored"):
                await member.ensure_group_scored(states)
        if not own_members:
            await vf.RubricGroup.score_group(group, states)
            return
        originals = [m.score_group for m in group.rubrics]
        try:
            for member in group.rubrics:
                member.score_group = (
                    lambda s, m=member: vf.Rubric.score_group(m, s))  # type: ignore[method-assign]
            await vf.RubricGroup.score_group(group, states)
        finally:
            for member, original in zip(group.rubrics, originals, strict=True):
                member.score_group = original  # type: ignore[method-assign]

    return run


def time_scorer(score: Callable[[list], Any], records: list[dict[str, Any]], total: int) -> float:
    """Seconds to score `total` fresh rollouts with `score(states)` (sync or async)."""
    states = make_states(records, total)
    gc.collect()  # the previous scorer's garbage is not this one's cost
    started = time.perf_counter()
    result = score(states)
    if asyncio.iscoroutine(result):
        asyncio.run(result)
    return time.perf_counter() - started


def load() -> str:
    """The 1/5/15-minute load averages."""
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def main() -> None:
    """Time each scorer `repeats` times, interleaved, and print median rollouts/s."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rollouts", type=int, default=4800)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--skip-slow", action="store_true",
                        help="leave out verifiers' own path throughout (the slowest row)")
    args = parser.parse_args()
    env = load_environment()
    records = env.get_eval_dataset().to_list()
    scorers: dict[str, Callable[[list], Any]] = {
        "pure scoring floor (no rubric)": pure_scoring,
        "pico-dsl-v1 rubric (15 metrics)": env.rubric.score_group,
        "plain exact-match rubric": plain_rubric().score_group,
        "before: verifiers' RubricGroup": verifiers_group(env.rubric, own_members=False),
    }
    if not args.skip_slow:
        scorers["before: verifiers' path throughout"] = verifiers_group(env.rubric, True)
    print(f"load average before: {load()} ({os.cpu_count()} CPUs)")
    times: dict[str, list[float]] = {name: [] for name in scorers}
    for _ in range(args.repeats):
        for name, score in scorers.items():
            times[name].append(time_scorer(score, records, args.rollouts))
    medians = {name: statistics.median(values) for name, values in times.items()}
    plain = medians["plain exact-match rubric"]
    print(f"{args.rollouts} rollouts x {args.repeats} repeats (median), through score_group")
    print(f"{'scorer':<36} {'rollouts/s':>11} {'us/rollout':>11} {'vs plain':>9}")
    for name, median in medians.items():
        print(f"{name:<36} {args.rollouts / median:>11.0f} "
              f"{median / args.rollouts * 1e6:>11.1f} {median / plain:>8.2f}x")
    print(f"load average after: {load()}")


if __name__ == "__main__":
    main()
