"""The reference the local server's log-probabilities are checked against: a fresh llama.cpp
evaluation of the same tokens in this process (no cache reuse)."""

from __future__ import annotations

import numpy as np


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
