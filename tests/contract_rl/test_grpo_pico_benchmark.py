"""The GRPO benchmark's model-side pieces agree with plain transformers computations.

Needs torch and transformers (the optional `rl` group; CI skips it without them). A small
randomly initialised Llama stands in for SmolLM2 (seconds on a CPU). Checked:
- `greedy_batch` (the held-out eval: a shared system turn, user turns left-padded inside their
  segment with explicit positions) gives each prompt the tokens `generate` gives it alone;
- `reply_logprobs` (the GRPO update's log-probabilities over one shared prefill) equals a full
  forward pass per reply, with and without the system turn's gradient;
- `to_gguf_rows` (the GGUF export) is undone by transformers' own GGUF reader;
- `moving_average` (the curve).
"""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from benchmarks.gguf_export import to_gguf_rows  # noqa: E402
from benchmarks.grpo_pico_dsl_v1 import (  # noqa: E402
    greedy_batch,
    moving_average,
    reply_logprobs,
    system_cache,
)

SYSTEM = [1, 7, 9, 11, 13, 15]
USERS = [[20, 21, 22], [23, 24, 25, 26, 27, 28], [29, 30, 31, 32]]


def tiny_llama():
    torch.manual_seed(0)
    config = transformers.LlamaConfig(vocab_size=64, hidden_size=32, intermediate_size=64,
                                      num_hidden_layers=2, num_attention_heads=4,
                                      num_key_value_heads=2, max_position_embeddings=128)
    return transformers.LlamaForCausalLM(config).eval()


def test_batched_greedy_equals_one_prompt_at_a_time() -> None:
    model = tiny_llama()
    batched = greedy_batch(model, SYSTEM, USERS, 8, stop={63})
    for user, got in zip(USERS, batched, strict=True):
        ids = torch.tensor([SYSTEM + user])
        alone = model.generate(ids, attention_mask=torch.ones_like(ids), do_sample=False,
                               max_new_tokens=len(got), pad_token_id=0)[0, ids.shape[1]:]
        assert got == alone.tolist()


@pytest.mark.parametrize("grad", ["none", "user", "full"])
def test_reply_logprobs_equal_full_forward_passes(grad: str) -> None:
    model = tiny_llama()
    replies = [[40, 41, 42, 43], [44, 45], [46]]
    cached = system_cache(model, SYSTEM) if grad == "user" else None
    with torch.set_grad_enabled(grad != "none"):
        got = reply_logprobs(model, SYSTEM, USERS[1], replies, grad, cached)
    for reply, value in zip(replies, got, strict=True):
        ids = torch.tensor([SYSTEM + USERS[1] + reply])
        with torch.no_grad():
            logps = torch.log_softmax(model(ids).logits[0, -len(reply) - 1:-1], -1)
        expected = logps.gather(1, torch.tensor(reply)[:, None]).sum()
        assert float(value) == pytest.approx(float(expected), abs=1e-4)
    if grad != "none":
        got.sum().backward()
        assert model.model.layers[0].self_attn.q_proj.weight.grad.abs().sum() > 0


def test_gguf_row_order_is_undone_by_transformers_reader() -> None:
    from transformers.modeling_gguf_pytorch_utils import LlamaTensorProcessor

    processor = LlamaTensorProcessor(config={"num_attention_heads": 4, "num_key_value_heads": 2})
    q = torch.arange(8 * 4 * 3, dtype=torch.float32).reshape(32, 3).numpy()  # 4 heads of 8
    k = torch.arange(8 * 2 * 3, dtype=torch.float32).reshape(16, 3).numpy()  # 2 heads of 8
    back_q = processor.process(to_gguf_rows(q, 4), "blk.0.attn_q.weight").weights
    back_k = processor.process(to_gguf_rows(k, 2), "blk.0.attn_k.weight").weights
    assert (back_q == q).all() and (back_k == k).all()
    assert not (to_gguf_rows(q, 4) == q).all()


def test_moving_average_is_trailing() -> None:
    assert moving_average([1.0, 3.0, 5.0, 7.0], 2) == [1.0, 2.0, 4.0, 6.0]
    assert moving_average([2.0], 5) == [2.0]
    with pytest.raises(ValueError):
        moving_average([1.0], 0)
