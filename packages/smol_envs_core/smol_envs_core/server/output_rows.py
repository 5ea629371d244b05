"""Which prompt positions the local model server projects onto the vocabulary, request by request.

llama-cpp-python's server loads its model with `logits_all=True`, so every decode computes the
vocabulary projection (and copies the logits) at every prompt position, which only echoed
prompt log-probabilities need (`loglik.py` answers those). Every other request reads the
logits of the last prompt position and of the generated tokens only: sampling reads the last
position, and llama-cpp-python 0.3.36 reads a generated token's log-probabilities
(`logprobs`, `top_logprobs`) from rows `len(prompt) - 1` on (`token_offset` in
`Llama._create_completion`); the earlier rows it log-softmaxes along are discarded.

`selective_rows` patches `Llama.eval` so that, unless the request being served needs every row
(`ALL_ROWS`, a context variable set per request by the server's ASGI layer, `serve.py`), a
decode asks llama.cpp for the logits of each batch's last token only and copies that one row
into `llama.scores` at its position. The last row's logits are bit-identical either way
(llama.cpp projects each output row on its own; `tests/core/server/test_output_rows.py` checks both
local models, greedy text and generated-token log-probabilities included), so replies do not
change. Anything that does not say otherwise (in-process use, `loglik.py`, a request the server
could not parse) keeps every row, as before.
"""

from __future__ import annotations

import contextvars
from typing import Any

# True: the decode computes logits at every position (llama-cpp-python's logits_all); False:
# only the last position of each batch.
ALL_ROWS: contextvars.ContextVar[bool] = contextvars.ContextVar("smol_all_rows", default=True)


def needs_all_rows(path: str, body: Any) -> bool:
    """Whether a POST to `path` with JSON `body` reads logits at prompt positions before the
    last one: True for a completions request with `echo` (prompt log-probabilities), and for
    anything but a chat or completions request or a body that is not a JSON object (left to
    llama-cpp-python's own way); False otherwise, `logprobs` and `top_logprobs` included. Pure.
    """
    route = path.rstrip("/")
    if not isinstance(body, dict) or not route.endswith("/completions"):
        return True
    return not route.endswith("/chat/completions") and bool(body.get("echo"))


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
