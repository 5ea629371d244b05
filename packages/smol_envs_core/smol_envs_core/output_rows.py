"""Which prompt positions the local model server projects onto the vocabulary, request by request.

llama-cpp-python's server loads its model with `logits_all=True`, so every decode computes the
vocabulary projection (and copies the logits) at every prompt position, which only requests
that read log-probabilities need: echoed prompt log-probabilities (`loglik.py`) and generated
tokens' log-probabilities (`logprobs` / `top_logprobs`). An ordinary chat or completion request
reads only the last position's logits, from which the next token is sampled.

`selective_rows` patches `Llama.eval` so that, unless the request being served needs every row
(`ALL_ROWS`, a context variable set per request by the server's ASGI layer, `serve.py`), a
decode asks llama.cpp for the logits of each batch's last token only and copies that one row
into `llama.scores` at its position, where llama-cpp-python's stopping criteria read it. The
last row's logits are bit-identical either way (llama.cpp projects each output row on its own;
`tests/core/test_output_rows.py` checks both local models), so greedy replies do not change.
Anything that does not say otherwise (in-process use, `loglik.py`, a request the server could
not parse) keeps every row, as before.
"""

from __future__ import annotations

import contextvars
from typing import Any

# True: the decode computes logits at every position (llama-cpp-python's logits_all); False:
# only the last position of each batch.
ALL_ROWS: contextvars.ContextVar[bool] = contextvars.ContextVar("smol_all_rows", default=True)


def needs_all_rows(path: str, body: Any) -> bool:
    """Whether a POST to `path` with JSON `body` reads logits beyond the last prompt position.

    True for anything but a chat or completions request (and for a body that is not a JSON
    object); for those, True when it asks for log-probabilities: completions `logprobs` set
    (any value, 0 included, as llama-cpp-python reads it) or `echo`, chat `logprobs` true or
    `top_logprobs` set. Pure.
    """
    route = path.rstrip("/")
    if not isinstance(body, dict) or not route.endswith("/completions"):
        return True
    if route.endswith("/chat/completions"):
        return bool(body.get("logprobs")) or body.get("top_logprobs") is not None
    return body.get("logprobs") is not None or bool(body.get("echo"))


def selective_rows(llama_class: Any) -> None:
    """Patch `llama_class.eval` to compute only the last row's logits when `ALL_ROWS` is False
    (idempotent). A model loaded without logits_all is left to llama-cpp-python's own eval.

    The patched eval evaluates the same tokens in the same batches; it only clears the output
    flags of the other positions, then copies the last position's logits (n_vocab float32)
    into `scores[n_tokens - 1]`.
    """
    if getattr(llama_class.eval, "_smol_rows", False):
        return
    original = llama_class.eval

    def eval(self, tokens, *args, **kwargs):  # noqa: A001 - llama-cpp-python's name
        if ALL_ROWS.get() or not getattr(self, "_logits_all", False) or len(tokens) == 0:
            return original(self, tokens, *args, **kwargs)
        import llama_cpp
        import numpy as np

        self._logits_all = False  # the server's model lock makes this request the only user
        try:
            result = original(self, tokens, *args, **kwargs)
        finally:
            self._logits_all = True
        last = llama_cpp.llama_get_logits_ith(self._ctx.ctx, -1)
        self.scores[self.n_tokens - 1, :] = np.ctypeslib.as_array(last, shape=(self._n_vocab,))
        return result

    eval._smol_rows = True
    llama_class.eval = eval
