"""One policy-gradient step of the CPU GRPO script moves probability the right way.

Needs torch and transformers (the optional `rl` group; not in the workspace venv, so CI skips
it). Fixed completions of one prompt: the gold answer gets a positive advantage, a junk answer a
negative one; after one step of `policy_gradient_step` the gold answer's log-probability must
rise and the junk answer's fall. A small randomly initialised Llama stands in for the policy (no
download, seconds on a CPU); the script's own step function is the code under test.
"""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from scripts.grpo_cpu_pico import (  # noqa: E402
    completion_logprobs,
    group_advantages,
    policy_gradient_step,
)


def test_one_step_raises_the_gold_answers_log_probability() -> None:
    torch.manual_seed(0)
    config = transformers.LlamaConfig(vocab_size=64, hidden_size=32, intermediate_size=64,
                                      num_hidden_layers=2, num_attention_heads=4,
                                      num_key_value_heads=4, max_position_embeddings=64)
    model = transformers.LlamaForCausalLM(config)
    prompt = torch.tensor([1, 5, 9, 13])
    gold, junk = torch.tensor([20, 21, 22, 23]), torch.tensor([40, 41, 42, 43])
    advantages = group_advantages([1.0, 0.0])
    assert advantages.tolist() == [0.5, -0.5]
    with torch.no_grad():
        before = completion_logprobs(model, prompt, [gold, junk])
    optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
    policy_gradient_step(model, optimizer, prompt, [gold, junk], advantages)
    with torch.no_grad():
        after = completion_logprobs(model, prompt, [gold, junk])
    assert after[0] > before[0], (before, after)
    assert after[1] < before[1], (before, after)
    # A zero advantage (all rewards equal) leaves the policy unchanged.
    frozen = [p.detach().clone() for p in model.parameters()]
    policy_gradient_step(model, torch.optim.SGD(model.parameters(), lr=0.5), prompt,
                         [gold, junk], group_advantages([1.0, 1.0]))
    assert all(torch.equal(a, b) for a, b in zip(frozen, model.parameters(), strict=True))
