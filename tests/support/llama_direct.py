"""The reference the local server's log-probabilities are checked against: a fresh llama.cpp
evaluation of the same tokens in this process (no cache reuse)."""

from __future__ import annotations

import numpy as np

from tests.support.model_server import beside_other_workers


def direct_llama(model_path, threads: int = 2, **settings):
    """A llama-cpp-python `Llama` of the GGUF at `model_path` (str or Path) with `threads`
    threads (prompt and generation), logits for every row (`logits_all`: `scores` is
    (n_ctx, n_vocab) float32), quiet, and `settings` (n_ctx, ...).

    Beside other xdist workers it is an instance of a subclass whose decodes govern their
    thread count as the server's do (`serve.governed_threads`; the count never changes a
    logit), so a worker's direct copy does not stall on a core the other worker keeps busy.
    Patches already made to `Llama.eval` (such as `output_rows.selective_rows`) are kept. The
    governor samples the load in a daemon thread for the rest of the test process.

    Raises:
        ValueError: llama-cpp-python's, when the file is missing or cannot be loaded.
    """
    from llama_cpp import Llama

    cls = Llama
    if beside_other_workers():
        from smol_envs_core.server import cpushare, serve

        class GovernedLlama(Llama):
            pass

        serve.governed_threads(GovernedLlama, cpushare.ThreadGovernor(threads).start())
        cls = GovernedLlama
    return cls(model_path=str(model_path), n_threads=threads, n_threads_batch=threads,
               logits_all=True, verbose=False, **settings)


def direct_logits(llama, tokens: list[int]) -> np.ndarray:
    """Logits (len(tokens), n_vocab), float32, after each token, from one fresh `llama.eval`
    of `tokens` (the Llama must have logits_all=True); a copy, not a view of `llama.scores`."""
    llama.reset()
    llama.eval(tokens)
    return np.array(llama.scores[: len(tokens)])


def direct_logprobs(llama, text: str) -> tuple[list[int], list[float]]:
    """Tokens of `text` (BOS first, special tokens parsed) and log p(token i | tokens < i) for
    i >= 1, in nats, from one fresh `llama.eval` (the Llama must have logits_all=True)."""
    tokens = llama.tokenize(text.encode(), add_bos=True, special=True)
    logits = direct_logits(llama, tokens).astype(np.float64)
    logits -= logits.max(axis=1, keepdims=True)
    logp = logits - np.log(np.exp(logits).sum(axis=1, keepdims=True))
    return tokens, [float(logp[i - 1, tokens[i]]) for i in range(1, len(tokens))]
