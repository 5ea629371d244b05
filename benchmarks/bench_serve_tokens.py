"""Single-stream generation speed of each local model server (`smol-envs-serve`), in tokens/s.

For every model of the registry (SmolLM2-135M-Instruct, Gemma 3 270M base) the benchmark starts
our server on the model's port (or reuses ours already running there) with `--threads`, sends
the same short prompt as a greedy `/v1/completions` request for N tokens, one request at a
time, alternating the models round by round so that load on the machine affects them alike,
and prints per model the median over rounds of completion tokens / wall seconds (the prompt is
a few tokens, so this is generation speed), with the 1-minute load average before and after.
Servers it started are stopped at the end.

    uv run python benchmarks/bench_serve_tokens.py [-n 128] [--rounds 5] [--threads 2]

Needs the optional group `gemma` for Gemma (`uv sync --group gemma`).
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import time

import httpx
from smol_envs_core import models, procman, serve

PROMPT = "def fibonacci(n):\n"


def cpu_name() -> str:
    """The CPU model from /proc/cpuinfo (or the platform's processor string)."""
    try:
        with open("/proc/cpuinfo") as handle:
            for line in handle:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def one_run(base_url: str, model: str, n: int) -> tuple[int, float]:
    """(completion tokens, wall seconds) of one greedy completion of up to `n` tokens."""
    start = time.perf_counter()
    reply = httpx.post(f"{base_url}/completions", timeout=600, json={
        "model": model, "prompt": PROMPT, "max_tokens": n, "temperature": 0})
    reply.raise_for_status()
    return reply.json()["usage"]["completion_tokens"], time.perf_counter() - start


def main(argv: list[str] | None = None) -> None:
    """Command line entry: start or reuse the servers, time them, print the table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("-n", type=int, default=128, help="tokens per completion")
    parser.add_argument("--rounds", type=int, default=5, help="timed completions per model")
    parser.add_argument("--threads", type=int, default=min(2, os.cpu_count() or 1),
                        help="llama.cpp threads of servers started here")
    args = parser.parse_args(argv)

    started = {}
    urls = {}
    try:
        for key, model in models.MODELS.items():
            port = model.port()
            started[key] = serve.start_with_owner(serve.DEFAULT_HOST, port, args.threads, model)
            urls[key] = serve.base_url(serve.DEFAULT_HOST, port)
            one_run(urls[key], model.served_name, 8)  # warm-up, untimed
        load_before = os.getloadavg()[0]
        rates: dict[str, list[float]] = {key: [] for key in models.MODELS}
        tokens: dict[str, list[int]] = {key: [] for key in models.MODELS}
        for _ in range(args.rounds):
            for key, model in models.MODELS.items():
                count, seconds = one_run(urls[key], model.served_name, args.n)
                rates[key].append(count / seconds)
                tokens[key].append(count)
        load_after = os.getloadavg()[0]
    finally:
        for key, was_started in started.items():
            if was_started:
                procman.stop(serve.state_dir(models.get(key).port()))

    print(f"{cpu_name()}, {os.cpu_count()} cores; load average (1 min) {load_before:.2f} "
          f"before, {load_after:.2f} after; prompt {PROMPT!r}, greedy, up to {args.n} tokens, "
          f"{args.rounds} rounds, threads {args.threads}"
          + ("" if all(started.values()) else " (reused servers keep their own threads)"))
    for key, model in models.MODELS.items():
        values = rates[key]
        print(f"{model.display:32s} {statistics.median(values):7.1f} tokens/s median "
              f"(min {min(values):.1f}, max {max(values):.1f}; "
              f"{statistics.mean(tokens[key]):.0f} tokens per completion)")


if __name__ == "__main__":
    main()
