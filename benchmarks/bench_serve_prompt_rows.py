"""Prompt processing of the local models with logits at every position (llama-cpp-python's
`logits_all`, what every server request paid before) and at the last position only (what a
request without log-probabilities pays now: `smol_envs_core.server.output_rows`), in one run.

For each model (`--models`), a Llama loaded as the server loads it (n_ctx 2048, logits_all,
`--threads` for prompts and generation) evaluates the same prompt of about `--tokens` tokens
from an empty cache, `--rounds` times in each mode, alternating; prints prompt tokens/s (median)
per mode, the ratio, whether the last position's logits were bit-identical, and the 1-minute
load average before and after each model.

    uv run python benchmarks/bench_serve_prompt_rows.py [--models smollm2-135m,gemma-3-270m]
        [--threads 1] [--tokens 400] [--rounds 5]
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

import numpy as np
from smol_envs_core.server import models, output_rows
from smol_envs_core.server.serve import N_CTX

SENTENCE = "The quick brown fox jumps over the lazy dog. "


def evaluate(llama, tokens: list[int], all_rows: bool) -> tuple[float, np.ndarray]:
    """(seconds, last row's logits) of one fresh evaluation of `tokens` in the given mode."""
    llama.reset()
    token = output_rows.ALL_ROWS.set(all_rows)
    try:
        start = time.perf_counter()
        llama.eval(tokens)
        seconds = time.perf_counter() - start
    finally:
        output_rows.ALL_ROWS.reset(token)
    return seconds, np.array(llama.scores[len(tokens) - 1])


def main(argv: list[str] | None = None) -> None:
    """Command line entry: print one line per model."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--models", default="smollm2-135m,gemma-3-270m")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--tokens", type=int, default=400)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args(argv)
    from llama_cpp import Llama

    output_rows.selective_rows(Llama)
    print(f"{os.cpu_count()} CPUs, {args.threads} thread(s), medians of {args.rounds} rounds")
    for key in args.models.split(","):
        before = os.getloadavg()[0]
        llama = Llama(model_path=str(models.get(key).locate()), n_ctx=N_CTX,
                      n_threads=args.threads, n_threads_batch=args.threads, logits_all=True,
                      verbose=False)
        tokens = llama.tokenize((SENTENCE * (args.tokens // 10 + 1)).encode(), add_bos=True)
        tokens = tokens[:args.tokens]
        timings: dict[bool, list[float]] = {True: [], False: []}
        last: dict[bool, np.ndarray] = {}
        evaluate(llama, tokens, False)  # warm-up
        for _ in range(args.rounds):
            for mode in (True, False):
                seconds, last[mode] = evaluate(llama, tokens, mode)
                timings[mode].append(seconds)
        rate = {mode: len(tokens) / statistics.median(t) for mode, t in timings.items()}
        print(f"{key}: {len(tokens)} prompt tokens; every row {rate[True]:.1f} tokens/s, last "
              f"row {rate[False]:.1f} tokens/s, ratio {rate[False] / rate[True]:.2f}x; last "
              f"row bit-identical: {np.array_equal(last[True], last[False])}; load "
              f"{before:.1f} -> {os.getloadavg()[0]:.1f}", flush=True)
        del llama


if __name__ == "__main__":
    main()
