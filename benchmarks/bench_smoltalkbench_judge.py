"""Speed of SmolTalkBench's judge path: pure prompt/verdict work, the LC fit, and judge calls.

    uv run python benchmarks/bench_smoltalkbench_judge.py [--base-url http://127.0.0.1:8765/v1]
    uv run python benchmarks/bench_smoltalkbench_judge.py --stub [--samples 1000]
        [--concurrency 64] [--fail-every 0]

Prints figures; with --base-url it also times N judge calls on the packaged fixture against that
OpenAI-compatible endpoint (the local SmolLM2 server by default, when it answers). With --stub
it starts a loopback stub judge (`stub_judge.py`, its own process, answering at once with valid
log-probabilities) and scores `--samples` rollouts through the environment's real rubric
(`env.rubric.score_group`, judge_max_concurrent = --concurrency): wall time, samples/s, this
process's CPU time per sample (our own work: prompt, HTTP client, verdict, rubric) and where it
goes. `--fail-every N` makes the stub answer 503 to every N-th request (retried with backoff,
which must not hold a concurrency slot). The load average is printed before and after.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import math
import os
import random
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

from smoltalkbench import data, judge, report
from smoltalkbench.judge_client import JudgeClient, JudgeConfig

HERE = Path(__file__).resolve().parent


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


def load() -> str:
    """The 1/5/15-minute load averages."""
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


@contextlib.contextmanager
def stub_judge(port: int, fail_every: int) -> Iterator[str]:
    """The stub judge (`stub_judge.py`) in its own uvicorn process; yields its base URL."""
    if not port:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
    env = {**os.environ, "STUB_JUDGE_FAIL_EVERY": str(fail_every)}
    process = subprocess.Popen(
        [sys.executable, "-m", "uvicorn", "stub_judge:app", "--app-dir", str(HERE),
         "--host", "127.0.0.1", "--port", str(port), "--log-level", "warning",
         "--no-access-log"], env=env)
    try:
        deadline = time.monotonic() + 60
        while True:
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 1):
                break
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"the stub judge did not start on port {port}")
            time.sleep(0.1)
        yield f"http://127.0.0.1:{port}/v1"
    finally:
        process.terminate()
        process.wait(30)


def rollout_states(env, samples: int) -> list:
    """`samples` finished rollouts over the fixture's rows (reply = a rewording of the
    reference), shaped as verifiers 0.3.1 leaves them."""
    from verifiers.types import State

    rows = env.get_eval_dataset().to_list()
    states = []
    for k in range(samples):
        row = rows[k % len(rows)]
        state = State(input={"prompt": row["prompt"], "answer": row["answer"],
                             "info": row["info"], "example_id": k})
        state["completion"] = [{"role": "assistant", "content": f"({k}) " + row["answer"]}]
        state["trajectory"] = []
        states.append(state)
    return states


def bench_stub(samples: int, concurrency: int, port: int, fail_every: int) -> None:
    """Score `samples` rollouts through the real rubric against the stub judge."""
    from smoltalkbench import load_environment

    with stub_judge(port, fail_every) as url:
        env = load_environment(dataset="fixture", judge_base_url=url, judge_api_key_var="",
                               judge_model="stub-judge", judge_max_concurrent=concurrency,
                               judge_max_retries=3)
        judged = next(r for r in env.rubric.rubrics if hasattr(r, "client"))
        judged.client.config = dataclasses.replace(judged.client.config, backoff_s=0.2)
        warm = rollout_states(env, concurrency)
        asyncio.run(env.rubric.score_group(warm))  # connections, imports
        states = rollout_states(env, samples)
        print(f"load average before: {load()} ({os.cpu_count()} CPUs)")
        cpu, wall = time.process_time(), time.perf_counter()
        asyncio.run(env.rubric.score_group(states))
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        # The rubric's own overhead: the same rollouts again, their judgements already made
        # (the score-once rubric finds them), so nothing but the rubric runs.
        for state in states:
            state.pop("metrics", None)
        rubric_only = time.perf_counter()
        asyncio.run(env.rubric.score_group(states))
        rubric_only = time.perf_counter() - rubric_only
        print(f"load average after: {load()}")
    pure = time.perf_counter()
    for state in states:
        messages, label = judge.build_messages(state["prompt"][-1]["content"],
                                               state["completion"][0]["content"], state["answer"])
        judge.parse_verdict([("M", -0.4), ("m", -1.2), ("The", -3.0)], label)
    pure = time.perf_counter() - pure
    errors = sum(s["metrics"]["judge_error"] for s in states)
    print(f"judge path, stub judge, {samples} samples at concurrency {concurrency}"
          f"{f', every {fail_every}th request 503 (retried)' if fail_every else ''}:")
    print(f"  wall {wall:.2f} s ({samples / wall:.0f} samples/s, {wall / samples * 1e3:.2f} ms "
          f"per sample); judge errors {errors:.0f}; mean reward "
          f"{sum(s['reward'] for s in states) / samples:.3f}")
    print(f"  this process's CPU: {cpu / samples * 1e3:.2f} ms per sample, of which prompt "
          f"build + verdict parse {pure / samples * 1e3:.3f} ms; the rest is the HTTP client "
          f"(openai/httpx) and the rubric")
    print(f"  rubric overhead (judgements already made, nothing but the rubric): "
          f"{rubric_only / samples * 1e6:.1f} us per sample")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--base-url", help="judge endpoint to time (skipped when absent)")
    parser.add_argument("--model", default="SmolLM2-135M-Instruct")
    parser.add_argument("--calls", type=int, default=12)
    parser.add_argument("--stub", action="store_true", help="time the rubric on a stub judge")
    parser.add_argument("--samples", type=int, default=1000)
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--port", type=int, default=0, help="stub judge port (0: a free one)")
    parser.add_argument("--fail-every", type=int, default=0)
    args = parser.parse_args()
    if args.stub:
        bench_stub(args.samples, args.concurrency, args.port, args.fail_every)
        return
    rows = list(data.load_rows("fixture"))
    bench_pure(rows)
    bench_lc()
    if args.base_url:
        asyncio.run(bench_live(rows, args.base_url, args.model, args.calls))


if __name__ == "__main__":
    main()
