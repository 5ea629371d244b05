"""Per-question cost of log-likelihood multiple choice: smol-slm-eval's client against a naive one.

Both score the same questions (HellaSwag by default, 4 choices each) against the same endpoint
in one run, alternating per question so that load on the machine affects both alike:
- smol-slm-eval: one `/v1/completions` request per question with the four prompts as a list
  (`continuation_logliks`);
- naive: one request per choice (four requests per question), each scored on its own.
Before each timed call an unrelated short prompt is sent (untimed), so that neither client
starts from the other's cached context. Prints seconds per question for each and their ratio,
and checks that both give the same log-likelihoods (exactly, on `smol-envs-serve`). On
`smol-envs-serve` a list's prompts evaluate their shared context once (`smol_envs_core.loglik`,
bit-identical to evaluating each alone), so the list costs less than four requests; the naive
client pays the context four times. Also prints the projected time of the whole validation split
at the list client's rate, and the load average.
Needs a server that passes the echo probe (`smol-envs-serve start`).

    uv run python benchmarks/bench_smol_slm_eval_loglik.py [--base-url URL] [--task T] [-n 40]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import time

from openai import AsyncOpenAI
from smol_slm_eval.data import load_rows
from smol_slm_eval.loglik_client import continuation_logliks, probe
from smol_slm_eval.prompts import mc_request


async def naive(client: AsyncOpenAI, model: str, context: str, continuations: list[str]
                ) -> list[float]:
    """One request per choice."""
    out = []
    for continuation in continuations:
        out += await continuation_logliks(client, model, context, [continuation])
    return out


async def main(base_url: str, model: str, task: str, n: int) -> None:
    client = AsyncOpenAI(base_url=base_url, api_key="EMPTY")
    await probe(client, model)
    every = load_rows(task)
    rows = [r for r in every if len(r["choices"]) == 4][:n]
    batched_s, naive_s, worst = [], [], 0.0
    async def flush() -> None:  # evict the server's cached prefix
        await client.completions.create(model=model, prompt="Unrelated.", max_tokens=1)

    for row in rows:
        context, continuations, _, _ = mc_request(task, row, "lm_eval")
        await flush()
        start = time.perf_counter()
        one = await continuation_logliks(client, model, context, continuations)
        batched_s.append(time.perf_counter() - start)
        await flush()
        start = time.perf_counter()
        four = await naive(client, model, context, continuations)
        naive_s.append(time.perf_counter() - start)
        worst = max(worst, max(abs(a - b) for a, b in zip(one, four, strict=True)))
    b, v = statistics.mean(batched_s), statistics.mean(naive_s)
    print(f"questions: {len(rows)} ({task}, 4 choices, lm_eval prompts), endpoint {base_url}, "
          f"load average at the end {os.getloadavg()[0]:.2f}")
    print(f"{'client':<28}{'requests/question':>18}{'s/question':>12}")
    print(f"{'smol-slm-eval (prompt list)':<28}{1:>18}{b:>12.3f}")
    print(f"{'naive (one per choice)':<28}{4:>18}{v:>12.3f}")
    print(f"ratio naive / smol-slm-eval: {v / b:.2f}; largest log-likelihood difference "
          f"{worst:.2e}")
    print(f"projected for all {len(every)} {task} questions at the list client's rate: "
          f"{len(every) * b / 60:.1f} min (naive: {len(every) * v / 60:.1f} min)")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--base-url", default="http://127.0.0.1:8765/v1")
    parser.add_argument("--model", default="SmolLM2-135M-Instruct")
    parser.add_argument("--task", default="hellaswag", help="a multiple-choice task of slm_eval")
    parser.add_argument("-n", type=int, default=40, help="questions")
    args = parser.parse_args()
    asyncio.run(main(args.base_url, args.model, args.task, args.n))
