"""Per-question cost of log-likelihood multiple choice: smol-slm-eval's client against a naive one.

Both score the same questions (HellaSwag by default, 4 choices each) against the same endpoint
in one run, alternating per question so that load on the machine affects both alike:
- smol-slm-eval: one `/v1/completions` request per question with the four prompts as a list
  (`continuation_logliks`);
- naive: one request per choice (four requests per question), each scored on its own.
Before each timed call an unrelated short prompt is sent (untimed), so that neither client
starts from the other's cached context. Prints seconds per question for each and their ratio,
and checks that both give the same log-likelihoods (exactly, on `smol-envs-serve`). On
`smol-envs-serve` a list's prompts evaluate their shared context once
(`smol_envs_core.server.loglik`, bit-identical to evaluating each alone), so the list costs less
than four requests; the naive
client pays the context four times. Also prints the projected time of the whole validation split
at the list client's rate, and the load average.
Needs a server that passes the echo probe (`smol-envs-serve start`).

`--in-process` times the server's evaluation paths without HTTP, on the same questions in one
process (the order of the paths rotating per question): each prompt fresh and alone (what the naive
client costs the server), `loglik.prompt_rows` (the server's: the shared prefix once, then each
choice's own tokens in its own llama.cpp decode), and an experiment, `SequenceStreams`: all choices'
own tokens in ONE decode, one KV stream per choice (issue 29; not faster on this build, see the
`smol_envs_core.server.loglik` docstring). Prints seconds per question, the ratio to the naive path,
and the largest difference of a continuation's log-likelihood from the naive path's, with the load
average. Needs no server. With 2 threads on 2 cores that other work keeps busy, every
path is many times slower than with 1 (llama.cpp's threads wait for each other at every
operation): compare paths within one run, never across runs.

    uv run python benchmarks/bench_smol_slm_eval_loglik.py [--base-url URL] [--task T] [-n 40]
    uv run python benchmarks/bench_smol_slm_eval_loglik.py --in-process [--threads 2] [-n 40]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import time
from typing import Any

import numpy as np
from openai import AsyncOpenAI
from smol_envs_core.server import loglik
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


# --- in-process: the server's evaluation paths without HTTP ------------------------------------


class SequenceStreams:
    """An experiment, not the server's path: a question's choices decoded in ONE llama.cpp batch.

    A second context on the same model with `n_seq_max` sequences, each in its own KV stream
    (kv_unified=False, `n_batch` cells per stream). `rows` evaluates the shared prefix once in
    sequence 0, copies it to sequences 1..k-1 (`llama_memory_seq_cp`), then decodes every
    choice's own tokens in one batch, each padded to the longest with its last token (logits
    off for the padding) so that llama.cpp puts all sequences in one micro-batch. Measured
    bit-identical to `loglik.prompt_rows`; the two ways that are not were a unified KV buffer
    (logits up to 1.0 apart, depending on the cells a sequence's tokens land in) and unpadded
    lengths (split into several micro-batches: up to 0.97 apart).

    Raises:
        RuntimeError: llama_decode fails (`rows`).
    """

    def __init__(self, llama: Any, n_seq_max: int = 8) -> None:
        import ctypes

        import llama_cpp
        from llama_cpp import _internals

        params = llama_cpp.llama_context_default_params()
        ctypes.pointer(params)[0] = llama.context_params
        params.n_seq_max, params.kv_unified = n_seq_max, False
        params.n_ctx = llama.n_batch * n_seq_max
        self.llama, self.n_seq_max, self.lib = llama, n_seq_max, llama_cpp
        self.ctx = _internals.LlamaContext(model=llama._model, params=params, verbose=False)
        self.memory = llama_cpp.llama_get_memory(self.ctx.ctx)
        self.batch = llama_cpp.llama_batch_init(llama.n_batch, 0, 1)

    def _decode(self, entries: list[tuple[int, int, int, bool]]) -> np.ndarray:
        """Decode (token, position, sequence, wants logits) entries; logits (n_out, n_vocab)."""
        batch = self.batch
        for j, (token, pos, seq, logits) in enumerate(entries):
            batch.token[j], batch.pos[j], batch.n_seq_id[j] = token, pos, 1
            batch.seq_id[j][0], batch.logits[j] = seq, logits
        batch.n_tokens = len(entries)
        if self.lib.llama_decode(self.ctx.ctx, batch) != 0:
            raise RuntimeError("llama_decode failed")
        n_out = sum(e[3] for e in entries)
        return np.array(np.ctypeslib.as_array(self.lib.llama_get_logits(self.ctx.ctx),
                                              shape=(n_out, self.llama.n_vocab())))

    def rows(self, token_lists: list[list[int]]) -> list[tuple[np.ndarray, tuple]]:
        """As `loglik.prompt_rows`; falls back to it where the batch would not fit."""
        shared = (loglik.shared_prefix(token_lists, self.llama.n_batch)
                  if loglik.prefix_reuse_is_exact(self.llama) else 0)
        width = max(map(len, token_lists)) - shared
        if not shared or len(token_lists) > self.n_seq_max or \
                width * len(token_lists) > self.llama.n_batch:
            return loglik.prompt_rows(self.llama, token_lists)
        self.lib.llama_memory_clear(self.memory, True)
        prefix = self._decode([(t, p, 0, True) for p, t in enumerate(token_lists[0][:shared])])
        prefix_m, prefix_z = loglik.normalisers(prefix)
        for seq in range(1, len(token_lists)):
            self.lib.llama_memory_seq_cp(self.memory, 0, seq, -1, -1)
        entries = []
        for seq, tokens in enumerate(token_lists):
            own = tokens[shared:]
            entries += [(t, shared + i, seq, True) for i, t in enumerate(own)]
            entries += [(own[-1], shared + i, seq, False) for i in range(len(own), width)]
        own_logits, out, start = self._decode(entries), [], 0
        for tokens in token_lists:
            own = own_logits[start:start + len(tokens) - shared]
            start += len(tokens) - shared
            own_m, own_z = loglik.normalisers(own)
            out.append((np.concatenate([prefix, own]),
                        (np.concatenate([prefix_m, own_m]), np.concatenate([prefix_z, own_z]))))
        return out


def continuation_sum(rows: tuple[np.ndarray, tuple], tokens: list[int], start: int) -> float:
    """Summed log-probability of tokens[start:] from a prompt's (logits, (m, z)) rows."""
    logits, (m, z) = rows
    return float(sum(loglik.logprob_at(logits, m, z, i - 1, np.array([tokens[i]]))[0]
                     for i in range(start, len(tokens))))


def in_process(task: str, n: int, threads: int) -> None:
    """Time the evaluation paths on the same questions in this process, rotating their order."""
    from llama_cpp import Llama
    from smol_envs_core.server.serve import N_CTX, model_path

    llama = Llama(model_path=str(model_path()), n_ctx=N_CTX, n_threads=threads,
                  n_threads_batch=threads, logits_all=True, verbose=False)
    streams = SequenceStreams(llama)
    paths = {
        "fresh, one prompt at a time": lambda lists: [loglik.prompt_rows(llama, [t])[0]
                                                      for t in lists],
        "prompt_rows (the server's)": lambda lists: loglik.prompt_rows(llama, lists),
        "one batch, k KV streams": streams.rows,
    }
    rows = [r for r in load_rows(task) if len(r["choices"]) == 4][:n]
    seconds = {name: 0.0 for name in paths}
    worst = {name: 0.0 for name in paths}
    load_start = os.getloadavg()[0]
    for q, row in enumerate(rows):
        context, continuations, _, _ = mc_request(task, row, "lm_eval")
        lists = [loglik.prompt_tokens(llama, context + c) for c in continuations]
        start = len(loglik.prompt_tokens(llama, context))
        sums = {}
        names = list(paths)
        for name in names[q % 3:] + names[:q % 3]:
            begin = time.perf_counter()
            evaluated = paths[name](lists)
            seconds[name] += time.perf_counter() - begin
            sums[name] = [continuation_sum(r, t, start)
                          for r, t in zip(evaluated, lists, strict=True)]
        for name in paths:
            worst[name] = max(worst[name], *(abs(a - b) for a, b in zip(
                sums[name], sums[names[0]], strict=True)))
    naive = seconds[names[0]]
    print(f"in process: {len(rows)} {task} questions, {threads} thread(s), load average "
          f"{load_start:.2f} at the start, {os.getloadavg()[0]:.2f} at the end")
    print(f"{'path':<30}{'s/question':>12}{'naive/path':>12}{'max |dloglik|':>15}")
    for name in paths:
        print(f"{name:<30}{seconds[name] / len(rows):>12.3f}{naive / seconds[name]:>12.2f}"
              f"{worst[name]:>15.2e}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--base-url", default="http://127.0.0.1:8765/v1")
    parser.add_argument("--model", default="SmolLM2-135M-Instruct")
    parser.add_argument("--task", default="hellaswag", help="a multiple-choice task of slm_eval")
    parser.add_argument("-n", type=int, default=40, help="questions")
    parser.add_argument("--in-process", action="store_true",
                        help="time the server's evaluation paths in this process (no server)")
    parser.add_argument("--threads", type=int, default=2, help="llama.cpp threads, --in-process")
    args = parser.parse_args()
    if args.in_process:
        in_process(args.task, args.n, args.threads)
    else:
        asyncio.run(main(args.base_url, args.model, args.task, args.n))
