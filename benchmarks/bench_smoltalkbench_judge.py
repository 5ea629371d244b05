"""Speed of SmolTalkBench's judge path: pure prompt/verdict work, the LC fit, and live judge calls.

    uv run python benchmarks/bench_smoltalkbench_judge.py [--base-url http://127.0.0.1:8765/v1]

Prints figures; with --base-url it also times N judge calls on the packaged fixture against that
OpenAI-compatible endpoint (the local SmolLM2 server by default, when it answers).
"""

from __future__ import annotations

import argparse
import asyncio
import math
import random
import time

from smoltalkbench import data, judge, report
from smoltalkbench.judge_client import JudgeClient, JudgeConfig


def bench_pure(rows, repeats: int = 200) -> None:
    start = time.perf_counter()
    for _ in range(repeats):
        for row in rows:
            _, label = judge.build_messages(row["instruction"], row["output"] * 2, row["output"])
            judge.parse_verdict([("M", math.log(0.3)), (" m", math.log(0.2)), ("The", -2.0)], label)
    per = (time.perf_counter() - start) / (repeats * len(rows))
    print(f"prompt build + verdict parse: {per * 1e6:.1f} us per sample")


def bench_lc(n: int = 1000) -> None:
    rng = random.Random(0)
    diffs = [rng.gauss(100, 300) for _ in range(n)]
    prefs = [min(1.0, max(0.0, 0.4 + d / 2000 + rng.gauss(0, 0.2))) for d in diffs]
    start = time.perf_counter()
    report.length_controlled_win_rate(prefs[:2], diffs[:2])
    print(f"first LC call (imports scipy): {time.perf_counter() - start:.2f} s")
    start = time.perf_counter()
    lc = report.length_controlled_win_rate(prefs, diffs)
    print(
        f"LC fit on {n} samples: {(time.perf_counter() - start) * 1e3:.1f} ms "
        f"(raw {100 * sum(prefs) / n:.1f}, LC {lc:.1f})"
    )


async def bench_live(rows, base_url: str, model: str, calls: int) -> None:
    # One call at a time: the local llama.cpp server computes requests one by one anyway.
    client = JudgeClient(
        JudgeConfig(model=model, base_url=base_url, api_key_var=None, max_concurrent=1)
    )
    messages = [judge.build_messages(r["instruction"], r["output"], r["output"])[0] for r in rows]
    start = time.perf_counter()
    replies = await asyncio.gather(
        *(client.top_logprobs(messages[i % len(messages)]) for i in range(calls))
    )
    elapsed = time.perf_counter() - start
    failed = sum(r.error is not None for r in replies)
    print(
        f"live judge: {calls} calls in {elapsed:.1f} s ({calls / elapsed:.2f} calls/s), "
        f"{failed} failed"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--base-url", help="judge endpoint to time (skipped when absent)")
    parser.add_argument("--model", default="SmolLM2-135M-Instruct")
    parser.add_argument("--calls", type=int, default=12)
    args = parser.parse_args()
    rows = list(data.load_rows("fixture"))
    bench_pure(rows)
    bench_lc()
    if args.base_url:
        asyncio.run(bench_live(rows, args.base_url, args.model, args.calls))


if __name__ == "__main__":
    main()
