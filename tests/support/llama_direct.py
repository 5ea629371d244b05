"""The reference the local server's log-probabilities are checked against: a fresh llama.cpp
evaluation of the same tokens in this process (no cache reuse)."""

from __future__ import annotations

import numpy as np


def direct_logprobs(llama, text: str) -> tuple[list[int], list[float]]:
    """Tokens of `text` (BOS first, special tokens parsed) and log p(token i | tokens < i) for
    i >= 1, in nats, from one fresh `llama.eval` (the Llama must have logits_all=True)."""
    tokens = llama.tokenize(text.encode(), add_bos=True, special=True)
    llama.reset()
    llama.eval(tokens)
    logits = np.asarray(llama.scores[: len(tokens)], dtype=np.float64)
    logits -= logits.max(axis=1, keepdims=True)
    logp = logits - np.log(np.exp(logits).sum(axis=1, keepdims=True))
    return tokens, [float(logp[i - 1, tokens[i]]) for i in range(1, len(tokens))]
