"""How many rollouts per second the pico-dsl-v1 rubric scores, next to a plain exact-match rubric.

Both rubrics score the same synthetic rollouts in the same run, through verifiers 0.3.1's real
`Rubric.score_group`: gold answers, one-line-wrong answers, prose before the block, fenced
blocks, answers without tags and empty texts, built from the packaged benchmark. The plain
rubric is what a minimal verifiers environment would use: `vf.XMLParser(["answer"])` and one
exact-match reward. Prints a table; nothing is asserted.

    uv run python benchmarks/bench_pico_dsl_v1_rubric.py [--rollouts 4800] [--repeats 5]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
from typing import Any

import verifiers as vf
from pico_dsl_v1 import load_environment
from pico_dsl_v1.env import rollout_state
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


def time_rubric(rubric: vf.Rubric, records: list[dict[str, Any]], total: int) -> float:
    """Seconds to score `total` fresh rollouts with `rubric.score_group`."""
    states = make_states(records, total)
    started = time.perf_counter()
    asyncio.run(rubric.score_group(states))
    return time.perf_counter() - started


def main() -> None:
    """Run both rubrics `repeats` times, alternating, and print median rollouts/s."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rollouts", type=int, default=4800)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    env = load_environment()
    records = env.get_eval_dataset().to_list()
    rubrics = {
        "pico-dsl-v1 rubric (15 metrics)": env.rubric,
        "plain exact-match rubric": plain_rubric(),
    }
    times: dict[str, list[float]] = {name: [] for name in rubrics}
    for _ in range(args.repeats):
        for name, rubric in rubrics.items():
            times[name].append(time_rubric(rubric, records, args.rollouts))
    print(f"{args.rollouts} rollouts x {args.repeats} repeats (median)")
    print(f"{'rubric':<34} {'rollouts/s':>12} {'us/rollout':>12}")
    for name, values in times.items():
        median = statistics.median(values)
        print(f"{name:<34} {args.rollouts / median:>12.0f} {median / args.rollouts * 1e6:>12.1f}")


if __name__ == "__main__":
    main()
