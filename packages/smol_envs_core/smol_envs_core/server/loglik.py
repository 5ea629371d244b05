"""Correct prompt log-probabilities for the local server's `echo` completions, computed in-process.

llama-cpp-python 0.3.36 returns echoed prompt log-probabilities shifted by one position when the
model adds no BOS token (SmolLM2 adds none) and drops every token equal to the BOS id; its
`max_tokens=0` means "unlimited". The local server (`serve.py`) therefore hands every
`/v1/completions` request with `echo` and `logprobs` to `respond`, which computes them here from
the loaded model: token i's log-probability is log_softmax(logits after tokens < i)[token i].
The first token of a prompt without BOS has none (null, as vLLM answers).

Every prompt's numbers are those of a fresh evaluation from an empty KV cache, so that they never
depend on what the server evaluated before. A request's prompts that share a token prefix (a
multiple-choice question's choices after one context) are computed with the prefix evaluated
once: each prompt's own tokens are then evaluated on the cached prefix, and the logits are
bit-identical to a fresh evaluation of the whole prompt (measured on SmolLM2: 0.0 difference on
every row of 40 HellaSwag, 150 ARC-Easy and 80 ARC-Challenge questions). Only models with plain
attention share a prefix (`prefix_reuse_is_exact`), and one case is avoided: llama.cpp computes
a one-token step with other kernels than the same token inside a longer batch (0.26-0.8 logits
apart on about one in ten ARC questions, 0.12 nats on a log-likelihood once), so every prompt
keeps at least `MIN_OWN_TOKENS` tokens of its own. A prompt
longer than one llama.cpp batch (`n_batch`) is evaluated fresh on its own, since the batches
would then split at other places. Log-probabilities are read from per-row normalisers
(`normalisers`: the row's maximum and log-sum-exp, float64), bit-identical to a full
log-softmax matrix but without building one, and a shared prefix's rows are normalised
once. `benchmarks/bench_smol_slm_eval_loglik.py` measures the saving.

Decoding all of a question's choices in one llama.cpp batch after the shared prefix (issue 29)
was measured and left out, because it does not pay on this build (`--in-process` in the
benchmark). CPU throughput stops growing at about 16 tokens a decode (SmolLM2 Q4_1, 1 thread:
53 tokens/s at 1, 79 at 16, 84 at 128, 85 at 256; load 4.6): a token costs about the same in
any batch of 16 or more (compute, not weight reads, bounds it; Q4_1 seems to get no faster
matrix-matrix kernel on x86), and a HellaSwag choice already brings about 33 tokens a decode.
The one batch that matched `prompt_rows` bit for bit put each choice
in its own KV stream (kv_unified=False, prefix copied by `llama_memory_seq_cp`) and padded
every choice to the longest, because llama.cpp needs equal lengths to keep the sequences in one
micro-batch. It cost 1.17x this path's time per HellaSwag question at 1 thread, for the padding
(about 11% more tokens; 24 questions, load 2.9), and 0.84x at 2 threads under contention (9
questions, load 4-5, where every path ran 14-29x slower than at 1 thread). Two
easier versions differ by up to 1.0 in a logit: several sequences in one unified KV buffer (the
result depends on which cells a sequence's tokens land in), and unpadded lengths (split into
other micro-batches).

A request may name the first character of each prompt whose tokens it reads, in an optional
field `echo_logprobs_from` (an int for every prompt, or a list with one per prompt; an OpenAI
client sends it in `extra_body`, and servers that do not know it ignore it). Then only the rows
those tokens are read from are computed (`output_rows.READ_ROWS`: llama.cpp projects onto the
vocabulary only there) and normalised, and the echo gives the earlier tokens null
log-probabilities. A token is read when its text ends after that character
(`read_token_indices`, the rule of smol-slm-eval's client); its log-probability is the same
float, bit for bit, as without the field (`tests/core/server/test_read_rows.py`). Only models with
plain attention honour the field (`prefix_reuse_is_exact`): on Gemma 3 (sliding window) a row
computed among fewer output rows differed from the full computation's by up to 0.013 in a logit
(position 58 of an 88-token prompt among 2-5 output rows, whichever the others; among 8-20 it
agreed), so Gemma ignores it and computes every row. The cause is in ggml's CPU kernels, whose
path depends on how many rows a product has: Gemma's last layer multiplies the flagged rows only,
through Q5_0 weights (llamafile's tinyBLAS, whose tile shapes follow the row count), Q6_K and
repacked Q4_K ones (four rows at a time, the last `rows % 4` one by one: ggml-cpu repack.cpp);
padding the flagged rows to the same four-row split was tried and did not remove it. SmolLM2's
Q4_1 weights take none of those paths. A request without the field is answered
as before, every row computed.

Only `max_tokens=1` is served on this path (what log-likelihood clients send: one greedy token
after the echoed prompt); anything else gets HTTP 400 rather than wrong numbers.

The same hook serves the model's tokenizer as vLLM does (`POST /tokenize`, `POST /detokenize`,
`GET /tokenizer_info`), which lm-evaluation-harness's `tokenizer_backend=remote` uses to locate
continuation tokens; llama-cpp-python has no such routes.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from . import output_rows

TOKENIZER_ROUTES = {"/tokenize": "POST", "/detokenize": "POST", "/tokenizer_info": "GET"}


def handles(path: str, body: Any, method: str = "POST") -> bool:
    """True for a tokenizer route, or a completions request asking for echoed logprobs."""
    if path in TOKENIZER_ROUTES:
        return TOKENIZER_ROUTES[path] == method
    return (method == "POST" and path.rstrip("/").endswith("/completions")
            and "chat" not in path and isinstance(body, dict) and bool(body.get("echo"))
            and body.get("logprobs") not in (None, False))


def tokenizer_reply(llama: Any, path: str, body: Any) -> dict[str, Any]:
    """vLLM-style tokenizer answers: {"tokens", "count"}, {"prompt"} or the special tokens.

    Raises:
        ValueError: a malformed body.
    """
    if path == "/tokenizer_info":
        piece = lambda t: llama.detokenize([t], special=True).decode(errors="replace")  # noqa: E731
        return {"eos_token": piece(llama.token_eos()), "bos_token": piece(llama.token_bos()),
                "pad_token": None, "model_max_length": llama.n_ctx()}
    if not isinstance(body, dict):
        raise ValueError("expected a JSON object")
    if path == "/tokenize":
        if not isinstance(body.get("prompt"), str):
            raise ValueError("tokenize needs a string `prompt`")
        tokens = llama.tokenize(body["prompt"].encode("utf-8"),
                                add_bos=bool(body.get("add_special_tokens", True)), special=True)
        return {"tokens": tokens, "count": len(tokens), "max_model_len": llama.n_ctx()}
    tokens = body.get("tokens")
    if not isinstance(tokens, list) or not all(isinstance(t, int) for t in tokens):
        raise ValueError("detokenize needs a list of integer `tokens`")
    return {"prompt": llama.detokenize(tokens, special=True).decode("utf-8", errors="replace")}


# Rows normalised at a time: bounds the float64 temporaries (Gemma's 262k vocabulary: 16 MB).
NORM_CHUNK_ROWS = 8


def normalisers(logits: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per row of `logits` (n, n_vocab): its maximum m and z = log(sum(exp(l - m))), float64 (n,).

    log_softmax(l)[t] is then (float64(l[t]) - m) - z, the same float64 operations in the same
    order as normalising the whole row, so a log-probability read through `logprob_at` is
    bit-identical to one taken from a full log-softmax matrix; only the rows' exponentials are
    computed, never a (n, n_vocab) float64 result.
    """
    n = len(logits)
    m, z = np.empty(n), np.empty(n)
    for start in range(0, n, NORM_CHUNK_ROWS):
        block = np.asarray(logits[start:start + NORM_CHUNK_ROWS])
        top = np.max(block, axis=-1, keepdims=True)
        shifted = block.astype(np.float64) - top
        m[start:start + len(block)] = top[:, 0]
        z[start:start + len(block)] = np.log(np.sum(np.exp(shifted), axis=-1))
    return m, z


def logprob_at(logits: np.ndarray, m: np.ndarray, z: np.ndarray, row: int,
               tokens: np.ndarray) -> np.ndarray:
    """log_softmax of `logits[row]` at `tokens` (k,), float64, from `normalisers`' m and z."""
    return (logits[row, tokens].astype(np.float64) - m[row]) - z[row]


# Tokens every prompt evaluates itself after a shared prefix: a one-token step on a cached
# prefix runs llama.cpp's single-token kernels, whose logits differ from a batch's.
MIN_OWN_TOKENS = 2


@dataclass(frozen=True)
class Rows:
    """One prompt's logits at some of its positions, with their `normalisers`.

    positions (k,) int64 ascending: the prompt positions (token indices) held; logits (k,
    n_vocab) float32: the logits after each of those tokens; m, z (k,) float64.
    """

    positions: np.ndarray
    logits: np.ndarray
    m: np.ndarray
    z: np.ndarray

    def index(self, position: int) -> int:
        """Where `position`'s row is in `logits`. Raises KeyError: a position not held."""
        at = int(np.searchsorted(self.positions, position))
        if at == len(self.positions) or self.positions[at] != position:
            raise KeyError(f"the logits after token {position} were not computed")
        return at

    def logprobs(self, position: int, tokens: np.ndarray) -> np.ndarray:
        """log_softmax of the logits after token `position`, at `tokens` (k,), float64."""
        return logprob_at(self.logits, self.m, self.z, self.index(position), tokens)


def _prefill(llama: Any, tokens: list[int], cached: int = 0,
             read: np.ndarray | None = None) -> np.ndarray:
    """`llama.scores[:len(tokens)]` after evaluating `tokens`, keeping the first `cached`
    tokens' KV; with `read` (positions), only those rows (and each batch's last) are computed
    and the others keep stale values (`output_rows.READ_ROWS`); without, every row.

    `cached=0` empties the KV cache first (`eval` drops the cache from `n_tokens` on), so the
    result is a function of `tokens` alone. With `cached > 0` the caller guarantees that the
    cache holds exactly `tokens[:cached]`, and only the rest is evaluated; the returned rows
    before `cached` are then whatever the cache's evaluation left in `llama.scores`.

    Raises:
        ValueError: a model without logits_all, or more tokens than the context holds.
    """
    if not getattr(llama, "_logits_all", False):
        raise ValueError("the model was loaded without logits_all; prompt logprobs need it")
    if len(tokens) > llama.n_ctx():
        raise ValueError(f"prompt of {len(tokens)} tokens exceeds the context of {llama.n_ctx()}")
    llama.n_tokens = cached
    every = output_rows.ALL_ROWS.set(True)
    only = output_rows.READ_ROWS.set(None if read is None else frozenset(map(int, read)))
    try:
        llama.eval(tokens[cached:])
    finally:
        output_rows.READ_ROWS.reset(only)
        output_rows.ALL_ROWS.reset(every)
    return llama.scores[: len(tokens)]


def _rows(scores: np.ndarray, positions: np.ndarray, offset: int = 0) -> Rows:
    """`Rows` of `scores[positions - offset]` (copied), normalised."""
    logits = np.array(scores[positions - offset])
    return Rows(positions, logits, *normalisers(logits))


def shared_prefix(token_lists: list[list[int]], n_batch: int) -> int:
    """How many leading tokens `token_lists` can share in one evaluation (0: none). Pure.

    The longest common prefix, less enough that every list keeps `MIN_OWN_TOKENS` of its own;
    0 for a single list or when any list is longer than `n_batch`.
    """
    if len(token_lists) < 2 or max(map(len, token_lists)) > n_batch:
        return 0
    first, shortest = token_lists[0], min(map(len, token_lists))
    common = 0
    while common < shortest and all(t[common] == first[common] for t in token_lists):
        common += 1
    return max(0, min(common, shortest - MIN_OWN_TOKENS))


def prompt_logits(llama: Any, token_lists: list[list[int]]) -> list[np.ndarray]:
    """Each token list's logits (len, n_vocab) float32, as a fresh evaluation of it alone gives.

    Lists sharing a prefix (`shared_prefix`) evaluate it once and then their own tokens on it.

    Raises:
        ValueError: as `_prefill`.
    """
    return [logits for logits, _ in prompt_rows(llama, token_lists)]


def prompt_rows(llama: Any, token_lists: list[list[int]]
                ) -> list[tuple[np.ndarray, tuple[np.ndarray, np.ndarray]]]:
    """Each token list's logits at every position (as `prompt_logits`) with their rows'
    `normalisers` (m, z): `read_rows` with every position read.

    Raises:
        ValueError: as `_prefill`.
    """
    return [(rows.logits, (rows.m, rows.z)) for rows in read_rows(llama, token_lists)]


def read_rows(llama: Any, token_lists: list[list[int]],
              reads: Sequence[Collection[int]] | None = None) -> list[Rows]:
    """Each token list's logits at the positions `reads` names for it (every position when
    `reads` is None), bit-identical to those of a fresh evaluation of the list alone (with
    `reads`, measured so on plain attention only: `prefix_reuse_is_exact`, module doc).

    Lists sharing a prefix (`shared_prefix`, models with plain attention only) evaluate it once
    and then their own tokens on it; the prefix's rows are computed and normalised once for all
    the lists (the log-softmax, not the model, is the larger cost of a multiple-choice question
    on the CPU). With `reads`, llama.cpp computes only the rows read (and each batch's last).
    Positions outside a list are ignored.

    Raises:
        ValueError: as `_prefill`.
    """
    wanted = [np.arange(len(tokens)) if reads is None else
              np.unique(np.fromiter((p for p in read if 0 <= p < len(tokens)), dtype=np.int64))
              for tokens, read in zip(token_lists, reads or [None] * len(token_lists),
                                      strict=True)]
    only = (lambda positions: None) if reads is None else (lambda positions: positions)
    shared = shared_prefix(token_lists, llama.n_batch) if prefix_reuse_is_exact(llama) else 0
    if not shared:
        return [_rows(_prefill(llama, tokens, read=only(want)), want)
                for tokens, want in zip(token_lists, wanted, strict=True)]
    prefix_want = np.unique(np.concatenate([want[want < shared] for want in wanted]))
    prefix = _rows(_prefill(llama, token_lists[0][:shared], read=only(prefix_want)), prefix_want)
    out = []
    for tokens, want in zip(token_lists, wanted, strict=True):
        own_want = want[want >= shared]
        own = _rows(_prefill(llama, tokens, cached=shared, read=only(own_want))[shared:],
                    own_want, offset=shared)
        keep = np.isin(prefix.positions, want)
        out.append(Rows(*(np.concatenate([part[keep], mine]) for part, mine in (
            (prefix.positions, own.positions), (prefix.logits, own.logits),
            (prefix.m, own.m), (prefix.z, own.z)))))
    return out


def prefix_reuse_is_exact(llama: Any) -> bool:
    """Whether `prompt_logits` may share a prefix, and the server honour
    `echo_logprobs_from` (rows read only), for this model: plain attention only.

    Gemma 3 (sliding-window attention, n_swa 512) gives other logits from the prefix's last row
    on (up to 1.2 apart, measured on a 3-choice question; cause not found), so a model with a
    sliding window, or a recurrent or hybrid one, evaluates every prompt fresh.
    """
    import llama_cpp

    if getattr(llama, "_is_recurrent", False) or getattr(llama, "_is_hybrid", False):
        return False
    return llama_cpp.llama_model_n_swa(llama._model.model) == 0


def _top(row: np.ndarray, k: int) -> np.ndarray:
    """Indices of the k largest entries of `row`, largest first (ties: lower index first)."""
    if k == 1:
        return np.array([int(np.argmax(row))])
    best = np.argpartition(-row, k - 1)[:k]
    return best[np.lexsort((best, -row[best]))]


def prompt_tokens(llama: Any, prompt: str) -> list[int]:
    """The tokens `prompt` is scored on (BOS added where the model uses one, specials parsed).

    Raises:
        ValueError: an empty prompt.
    """
    if not prompt:
        raise ValueError("an empty prompt has no tokens to score")
    return llama.tokenize(prompt.encode("utf-8"), add_bos=True, special=True)


class EchoLayout(NamedTuple):
    """A prompt's tokens as its echo lists them: `tokens` (BOS included where the model adds
    one), `lead` (1 when that BOS has no text and is not echoed, else 0), and per token its
    `texts` (decoded, invalid UTF-8 replaced) and `offsets` (characters into the prompt)."""

    tokens: list[int]
    lead: int
    texts: list[str]
    offsets: list[int]


def echo_layout(llama: Any, prompt: str) -> EchoLayout:
    """The `EchoLayout` of `prompt`. Raises ValueError: an empty prompt."""
    tokens = prompt_tokens(llama, prompt)
    raw = prompt.encode("utf-8")
    bos = llama.token_bos()
    lead = 1 if tokens and tokens[0] == bos and llama.detokenize([bos]) == b"" else 0
    texts, offsets, offset_bytes = [], [], 0
    for token in tokens:
        piece = llama.detokenize([token], special=True)
        texts.append(piece.decode("utf-8", errors="replace"))
        offsets.append(len(raw[:offset_bytes].decode("utf-8", errors="ignore")))
        offset_bytes += len(piece) if len(texts) > lead else 0
    return EchoLayout(tokens, lead, texts, offsets)


def read_token_indices(layout: EchoLayout, read_from: int | None) -> list[int]:
    """Indices of the prompt tokens whose log-probabilities the echo reports: every echoed one
    when `read_from` is None, else those whose text ends after character `read_from`
    (offset + max(1, length) > read_from, so a token straddling it counts). Pure."""
    echoed = range(layout.lead, len(layout.tokens))
    if read_from is None:
        return list(echoed)
    return [i for i in echoed
            if layout.offsets[i] + max(1, len(layout.texts[i])) > read_from]


def rows_read(layout: EchoLayout, read: list[int]) -> list[int]:
    """The positions whose logits give the log-probabilities of tokens `read` and of the
    generated token: each token's predecessor, and the prompt's last position. Pure."""
    return sorted({i - 1 for i in read if i > 0} | {len(layout.tokens) - 1})


def read_from_field(body: dict[str, Any], n_prompts: int) -> list[int | None]:
    """Each prompt's `echo_logprobs_from` (None: absent, every token read).

    Raises:
        ValueError: not a non-negative integer, nor a list of `n_prompts` of them.
    """
    value = body.get("echo_logprobs_from")
    if value is None:
        return [None] * n_prompts
    values = value if isinstance(value, list) else [value] * n_prompts
    if len(values) != n_prompts or not all(
            isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in values):
        raise ValueError("echo_logprobs_from must be a character offset (an integer >= 0) or "
                         f"a list of {n_prompts}, one per prompt; got {value!r}")
    return values


def prompt_logprobs(llama: Any, prompt: str, top_k: int = 1, rows: Rows | None = None,
                    read_from: int | None = None, layout: EchoLayout | None = None
                    ) -> dict[str, Any]:
    """Echo log-probabilities of `prompt` plus one greedy token, in OpenAI completions shape.

    Returns a dict with `text` (prompt + generated token text) and `logprobs` = {tokens,
    text_offset (characters into `text`), token_logprobs (natural log; None for a first token
    with nothing before it, and for a token before `read_from`: `read_token_indices`),
    top_logprobs (top_k alternatives per position, None likewise)}; the last entry of each list
    is the generated token. `rows` are the prompt's logits at (at least) the positions
    `rows_read` names, with their normalisers, when the caller computed them already
    (`read_rows`), and `layout` its `echo_layout`; otherwise computed here.

    Raises:
        ValueError: empty prompt, prompt longer than the context, or a model without logits_all.
    """
    layout = layout or echo_layout(llama, prompt)
    tokens, lead = layout.tokens, layout.lead
    read = set(read_token_indices(layout, read_from))
    if rows is None:
        (rows,) = read_rows(llama, [tokens], None if read_from is None
                            else [rows_read(layout, sorted(read))])
    last = rows.logits[rows.index(len(tokens) - 1)]
    generated = int(np.argmax(last))  # the order of a row's logits is its log-softmax's
    all_tokens = [*tokens, generated]
    read.add(len(tokens))
    pieces = [llama.detokenize([t], special=True) for t in all_tokens]
    out: dict[str, list] = {"tokens": [], "text_offset": [], "token_logprobs": [],
                            "top_logprobs": []}
    offset_bytes = 0
    full = prompt.encode("utf-8") + pieces[-1]
    for i in range(lead, len(all_tokens)):
        piece = pieces[i]
        out["tokens"].append(piece.decode("utf-8", errors="replace"))
        out["text_offset"].append(len(full[:offset_bytes].decode("utf-8", errors="ignore")))
        offset_bytes += len(piece)
        if i == 0 or i not in read:
            out["token_logprobs"].append(None)
            out["top_logprobs"].append(None)
            continue
        best = _top(rows.logits[rows.index(i - 1)], max(1, top_k))
        values = rows.logprobs(i - 1, np.array([all_tokens[i], *best]))
        out["token_logprobs"].append(float(values[0]))
        top = {pieces_text(llama, int(t)): float(v) for t, v in zip(best, values[1:], strict=True)}
        top.setdefault(out["tokens"][-1], float(values[0]))
        out["top_logprobs"].append(top)
    return {"text": full.decode("utf-8", errors="replace"), "logprobs": out,
            "prompt_tokens": len(tokens) - lead}


def pieces_text(llama: Any, token: int) -> str:
    """The text of one token (invalid UTF-8 fragments replaced)."""
    return llama.detokenize([token], special=True).decode("utf-8", errors="replace")


def completion_response(llama: Any, body: dict[str, Any], model: str) -> dict[str, Any]:
    """The OpenAI completions reply for an echo+logprobs request (one or many prompts); with
    `echo_logprobs_from` (`read_from_field`) and a model with plain attention, only the rows its
    prompts' read tokens need are computed.

    Raises:
        ValueError: max_tokens other than 1, a prompt of token ids, a bad prompt or a bad
            `echo_logprobs_from`.
    """
    if body.get("max_tokens", 16) != 1:
        raise ValueError("echo with logprobs is served for max_tokens=1 only (0 means "
                         f"unlimited on llama-cpp-python); got {body.get('max_tokens', 16)}")
    prompts = body.get("prompt", "")
    prompts = [prompts] if isinstance(prompts, str) else prompts
    if not prompts or not all(isinstance(p, str) for p in prompts):
        raise ValueError("prompt must be a string or a non-empty list of strings")
    top_k = int(body.get("logprobs") or 1)
    starts = read_from_field(body, len(prompts))
    if not prefix_reuse_is_exact(llama):
        starts = [None] * len(prompts)  # read rows are not bit-identical there (module doc)
    layouts = [echo_layout(llama, p) for p in prompts]
    reads = None if all(start is None for start in starts) else [
        range(len(layout.tokens)) if start is None
        else rows_read(layout, read_token_indices(layout, start))
        for layout, start in zip(layouts, starts, strict=True)]
    evaluated = read_rows(llama, [layout.tokens for layout in layouts], reads)
    choices, used = [], 0
    for index, (prompt, rows, start, layout) in enumerate(
            zip(prompts, evaluated, starts, layouts, strict=True)):
        result = prompt_logprobs(llama, prompt, top_k, rows=rows, read_from=start,
                                 layout=layout)
        used += result["prompt_tokens"]
        choices.append({"text": result["text"], "index": index, "logprobs": result["logprobs"],
                        "finish_reason": "length"})
    return {"id": f"cmpl-{uuid.uuid4().hex}", "object": "text_completion",
            "created": int(time.time()), "model": model, "choices": choices,
            "usage": {"prompt_tokens": used, "completion_tokens": len(prompts),
                      "total_tokens": used + len(prompts)}}


async def respond(path: str, body: Any, send: Any) -> None:
    """Answer one request `handles` accepted over ASGI `send`, holding the server's model lock."""
    from llama_cpp.server import app as server_app
    from starlette.concurrency import run_in_threadpool

    lock = server_app.get_llama_proxy()
    proxy = await lock.__anext__()
    try:
        model = body.get("model") if isinstance(body, dict) else None
        llama = proxy(model)
        if path in TOKENIZER_ROUTES:
            status, reply = 200, await run_in_threadpool(tokenizer_reply, llama, path, body)
        else:
            status, reply = 200, await run_in_threadpool(completion_response, llama, body,
                                                         model or "local")
    except ValueError as exc:
        status, reply = 400, {"error": {"message": str(exc), "type": "invalid_request_error"}}
    finally:
        await lock.aclose()
    await send_json(send, status, reply)


async def send_json(send, status: int, reply: dict) -> None:
    """Send `reply` as one JSON response with `status` over ASGI `send`."""
    raw = json.dumps(reply).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"),
                            (b"content-length", str(len(raw)).encode())]})
    await send({"type": "http.response.body", "body": raw})
