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

A log-likelihood request reads a few positions of its prompt only (a continuation's tokens):
`loglik.py` names them in `READ_ROWS`, and the patched eval then asks llama.cpp for the logits
of those positions (and of each batch's last token, which llama-cpp-python always flags) and
copies those rows alone. llama.cpp computes the vocabulary projection, and the last layer's
work after attention, for the flagged positions only; the KV cache is the same either way.
"""

from __future__ import annotations

import contextvars
from typing import Any

# True: the decode computes logits at every position (llama-cpp-python's logits_all); False:
# only the last position of each batch.
ALL_ROWS: contextvars.ContextVar[bool] = contextvars.ContextVar("smol_all_rows", default=True)
# Positions (indices into `llama.scores`, counted from the start of the KV cache) whose logits
# the decode computes besides each batch's last; None: as ALL_ROWS says. Takes precedence.
READ_ROWS: contextvars.ContextVar[frozenset[int] | None] = contextvars.ContextVar(
    "smol_read_rows", default=None)


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
    """Patch `llama_class.eval` to compute logits only where the request reads them
    (idempotent): at the positions in `READ_ROWS` when it is set, else at every position when
    `ALL_ROWS` is True (llama-cpp-python's own eval), else at the last. A model loaded without
    logits_all is left to llama-cpp-python's own eval.

    The patched eval evaluates the same tokens in the same batches (`n_batch`); it only sets the
    output flags of the positions it keeps (each batch's last token among them, as
    llama-cpp-python does) and copies just those rows (n_vocab float32 each) into `scores`;
    the other rows of `scores` keep whatever they held.
    """
    if getattr(llama_class.eval, "_smol_rows", False):
        return
    original = llama_class.eval

    def eval(self, tokens, *args, **kwargs):  # noqa: A001 - llama-cpp-python's name
        read = READ_ROWS.get()
        if ((read is None and ALL_ROWS.get()) or not getattr(self, "_logits_all", False)
                or len(tokens) == 0):
            return original(self, tokens, *args, **kwargs)
        return _eval_rows(self, tokens, read or frozenset())

    eval._smol_rows = True
    llama_class.eval = eval


def _eval_rows(llama: Any, tokens: Any, read: frozenset[int]) -> None:
    """llama-cpp-python 0.3.36's `Llama.eval` loop, with output flags only at the positions in
    `read` and at each batch's last token, whose rows alone are copied into `llama.scores`."""
    import llama_cpp
    import numpy as np

    llama._ctx.kv_cache_seq_rm(-1, llama.n_tokens, -1)
    for start in range(0, len(tokens), llama.n_batch):
        batch = tokens[start:start + llama.n_batch]
        n_past = llama.n_tokens
        llama._batch.set_batch(batch=batch, n_past=n_past, logits_all=False)  # last flagged
        kept = [i for i in range(len(batch)) if n_past + i in read]
        for i in kept:
            llama._batch.batch.logits[i] = True
        llama._ctx.decode(llama._batch)
        llama.input_ids[n_past:n_past + len(batch)] = batch
        for i in {*kept, len(batch) - 1}:
            row = llama_cpp.llama_get_logits_ith(llama._ctx.ctx, i)
            llama.scores[n_past + i, :] = np.ctypeslib.as_array(row, shape=(llama._n_vocab,))
        llama.n_tokens += len(batch)
        llama._requires_eval = False
