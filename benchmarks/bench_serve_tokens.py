"""Single-stream speed of each local model server (`smol-envs-serve`), in tokens/s, with the
machine idle and with busy programs beside it, for fixed and governed thread counts.

For every model of the registry (SmolLM2-135M-Instruct, Gemma 3 270M base; `--models` picks)
and every thread policy (`--policies`: `fixed`, the default server; `governed`, started with
`--governed-threads`, where each decode uses the cores other programs leave free), the
benchmark starts our server on a port of its own (`--port`, then the next ones) with
`--threads`, and for each `--busy` level starts that many busy-loop processes (`while True:
pass`) and times, one request at a time:
- generation: the same short prompt as a greedy `/v1/completions` request for `-n` tokens
  (completion tokens / wall seconds);
- prompt processing: a prompt of about 400 tokens with `max_tokens` 1 (prompt tokens / wall s).
Prints per model, policy and busy level the median over `--rounds`, and the 1-minute load
average at each row. Servers it started are stopped at the end; a busy level's processes are
killed before the next one.

    uv run python benchmarks/bench_serve_tokens.py [-n 64] [--rounds 3] [--threads 2]
        [--busy 0,1] [--policies fixed,governed] [--models smollm2-135m] [--port 8931]

Needs the optional group `gemma` for Gemma (`uv sync --group gemma`).
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys
import time

import httpx
from smol_envs_core import procman
from smol_envs_core.server import models, serve

PROMPT = "def fibonacci(n):\n"
LONG_PROMPT = "The quick brown fox jumps over the lazy dog. " * 40
BUSY_LOOP = "while True: pass"


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


def one_run(base_url: str, model: str, prompt: str, n: int) -> tuple[int, int, float]:
    """(prompt tokens, completion tokens, wall seconds) of one greedy completion of up to `n`
    tokens."""
    start = time.perf_counter()
    reply = httpx.post(f"{base_url}/completions", timeout=600, json={
        "model": model, "prompt": prompt, "max_tokens": n, "temperature": 0})
    reply.raise_for_status()
    usage = reply.json()["usage"]
    return usage["prompt_tokens"], usage["completion_tokens"], time.perf_counter() - start


def measure(url: str, model: str, n: int, rounds: int) -> tuple[float, float]:
    """Median (generation tokens/s, prompt tokens/s) over `rounds` requests of each kind."""
    generation, prompt = [], []
    for _ in range(rounds):
        _, done, seconds = one_run(url, model, PROMPT, n)
        generation.append(done / seconds)
        read, _, seconds = one_run(url, model, LONG_PROMPT, 1)
        prompt.append(read / seconds)
    return statistics.median(generation), statistics.median(prompt)


def main(argv: list[str] | None = None) -> None:
    """Command line entry: start the servers, time them idle and busy, print the table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("-n", type=int, default=64, help="tokens per generation")
    parser.add_argument("--rounds", type=int, default=3, help="timed requests of each kind")
    parser.add_argument("--threads", type=int, default=min(2, os.cpu_count() or 1),
                        help="llama.cpp threads (the ceiling, for `governed`)")
    parser.add_argument("--busy", default="0,1", help="busy-loop processes beside the server")
    parser.add_argument("--policies", default="fixed,governed")
    parser.add_argument("--models", default=",".join(models.MODELS))
    parser.add_argument("--port", type=int, default=8931, help="first port of the servers")
    args = parser.parse_args(argv)
    busy_levels = [int(x) for x in args.busy.split(",")]
    policies = args.policies.split(",")
    keys = args.models.split(",")

    print(f"{cpu_name()}, {os.cpu_count()} cores; greedy {PROMPT!r} for up to {args.n} tokens "
          f"and a {len(LONG_PROMPT)}-character prompt for 1 token, median of {args.rounds}; "
          f"--threads {args.threads}")
    print("| model | threads | busy processes | generation tokens/s | prompt tokens/s "
          "| load average (1 min) |")
    print("|---|---|---|---|---|---|")
    port = args.port
    for key in keys:
        model = models.get(key)
        for policy in policies:
            started = serve.start_with_owner(serve.DEFAULT_HOST, port, args.threads, model,
                                             governed=policy == "governed")
            url = serve.base_url(serve.DEFAULT_HOST, port)
            if not started:  # its own threads and policy, not the ones this row would name
                raise SystemExit(f"a server of ours already runs on port {port}; stop it "
                                 f"(`smol-envs-serve stop --port {port} --model {key}`) or "
                                 "pass another --port")
            try:
                one_run(url, model.served_name, PROMPT, 8)  # warm-up, untimed
                for busy in busy_levels:
                    hogs = [subprocess.Popen([sys.executable, "-c", BUSY_LOOP])
                            for _ in range(busy)]
                    try:
                        time.sleep(1.0)
                        generation, prompt = measure(url, model.served_name, args.n,
                                                     args.rounds)
                    finally:
                        for hog in hogs:
                            hog.kill()
                            hog.wait()
                    print(f"| {model.display} | {policy} {args.threads} | {busy} | "
                          f"{generation:.1f} | {prompt:.1f} | {os.getloadavg()[0]:.2f} |",
                          flush=True)
            finally:
                if started:
                    procman.stop(serve.state_dir(port))
            port += 1


if __name__ == "__main__":
    main()
