"""A GRPO learning curve of SmolLM2-135M-Instruct on pico-dsl-v1's own train split and reward.

Not part of CI (hours on a 2-core CPU; needs torch and transformers: see the `rl` group in the
root pyproject). Four subcommands, each writing under `--out` (default
`.cache/grpo_pico_dsl_v1/run`):

    python benchmarks/grpo_pico_dsl_v1.py train [--sft-steps 12] [--steps 200] [--device cuda]
    python benchmarks/grpo_pico_dsl_v1.py eval --checkpoint start|sft|final|latest [--rows 48]
    python benchmarks/grpo_pico_dsl_v1.py plot [--png docs/pico_dsl_v1_grpo_curve.png]
    python benchmarks/grpo_pico_dsl_v1.py export-gguf --checkpoint final

`train`: the policy starts from the packaged SmolLM2-135M-Instruct GGUF, dequantized into a plain
float32 model (`scripts/grpo_cpu_pico.load_policy`). The rewards come from the environment's v1
taskset unchanged: `PicoTaskset` with `split="train"`, `reward="line_similarity"` (the opt-in
shaped reward `shaped_line_similarity`), scored by each task's own `score_reply`; exact match is
logged beside it. From this start the shaped reward is 0 on every sampled reply (README of
pico-dsl-v1), so no group has an advantage; a short supervised warm start comes first
(`--sft-steps` steps of `--sft-batch` gold answers of other train rows, cross-entropy on the
answer tokens), and the GRPO curve starts from its checkpoint (`sft`). Each GRPO step takes one
train task, samples `--group` replies at temperature 1.0, uses advantage = reward - group mean
(prime-rl's rule, as `scripts/grpo_cpu_pico.py`) and takes one AdamW step on
-mean(advantage * sum log p(reply) / length). The reply tokens include the end-of-turn token, so
stopping is learned too.

CPU economy (`--prompt-grad user`, the CPU default): every prompt starts with the same 392-token
system turn. Its keys and values are computed once per step under the current weights without
autograd, and the gradient flows through the user turn and the reply only. This leaves out the
gradient's path through the system turn's keys and values (an approximation, stated wherever the
curve is shown); it cuts a step's backward pass from about 480 + replies tokens to about
90 + replies. `--prompt-grad full` (the `--device cuda` default) back-propagates through the
whole prompt. Log-probabilities of the replies are exact either way: the cached keys and values
are those of the current weights.

`eval`: greedy replies of a checkpoint to a fixed, documented subset of the eval split (the
fixed 480-row benchmark, disjoint from the train split: `eval_rows("mixed", N)`, the first N in
its slice x level round-robin), generated in process with transformers, scored by the
environment's scorer (`scorer.score_reply`, classic declaration plus the shaped reward), written
as a vf-eval run folder (`results.jsonl` + `metadata.json`) so that `smol-envs report` and
`smol-envs compare` read it like any run.

`plot`: the train reward per step with its moving average, and the held-out points, as a PNG.

`export-gguf`: the checkpoint as a float16 GGUF with the packaged GGUF's metadata and tokenizer,
so the local llama.cpp server can serve it to `vf-eval`.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

DEFAULT_OUT = REPO / ".cache" / "grpo_pico_dsl_v1" / "run"
CHECKPOINTS = ("start", "sft", "final")
SFT_SEED = 1000  # the warm start's train rows come from seeds 1000, 1001, ...
GRPO_SEED = 0  # the GRPO steps' train rows from seeds 0, 1, ...


# --------------------------------------------------------------------------- helpers (pure)


def moving_average(values: Sequence[float], window: int) -> list[float]:
    """Trailing mean over the last `window` values (fewer at the start); same length as input.

    Raises:
        ValueError: window < 1.
    """
    if window < 1:
        raise ValueError(f"window must be >= 1, got {window}")
    out, total = [], 0.0
    for i, value in enumerate(values):
        total += value
        if i >= window:
            total -= values[i - window]
        out.append(total / min(i + 1, window))
    return out


def peak_rss_mb() -> float:
    """This process's peak resident memory so far, in MB (Linux reports kB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


# --------------------------------------------------------------------------- model side


def end_ids(tokenizer) -> set[int]:
    """Token ids that end an assistant turn (<|im_end|> and the tokenizer's eos)."""
    ids = {tokenizer.eos_token_id}
    im_end = tokenizer.convert_tokens_to_ids("<|im_end|>")
    if isinstance(im_end, int) and im_end >= 0:
        ids.add(im_end)
    return {i for i in ids if i is not None}


class Prompts:
    """The chat prompt split as (system turn ids, user turn + assistant opener ids).

    The system turn is the same for every task (pico's SYSTEM_PROMPT), so its ids are computed
    once; `split(user)` checks that the full template's ids start with them.
    """

    def __init__(self, tokenizer, system: str):
        self.tokenizer = tokenizer
        self.system = system
        text = tokenizer.apply_chat_template([{"role": "system", "content": system}],
                                             tokenize=False)
        self.system_ids = tokenizer(text, add_special_tokens=False).input_ids

    def split(self, user: str) -> list[int]:
        """The ids after the system turn for a task with user text `user`.

        Raises:
            ValueError: the template's ids do not start with the system turn's ids.
        """
        messages = [{"role": "system", "content": self.system}, {"role": "user", "content": user}]
        text = self.tokenizer.apply_chat_template(messages, add_generation_prompt=True,
                                                  tokenize=False)
        ids = self.tokenizer(text, add_special_tokens=False).input_ids
        n = len(self.system_ids)
        if ids[:n] != self.system_ids:
            raise ValueError("the chat template's ids do not start with the system turn's")
        return ids[n:]


def _tensor(ids: Sequence[int], device):
    import torch

    return torch.tensor([list(ids)], dtype=torch.long, device=device)


def system_cache(model, system_ids: Sequence[int]):
    """The system turn's keys and values under the current weights, without autograd."""
    import torch

    device = next(model.parameters()).device
    with torch.no_grad():
        return model(_tensor(system_ids, device), use_cache=True).past_key_values


def prefix_cache(model, system_ids: Sequence[int], user_ids: Sequence[int], batch: int,
                 grad: str, cached=None):
    """(cache, last logits [batch, V]) after the prompt, the cache repeated `batch` times.

    grad "none": no autograd; "user": the system turn without autograd, the user turn with it;
    "full": autograd through the whole prompt. `cached`: the system turn's `system_cache`
    under the current weights (copied, not changed), used instead of recomputing it unless
    grad is "full".
    """
    import copy

    import torch

    device = next(model.parameters()).device
    if grad == "full":
        out = model(_tensor([*system_ids, *user_ids], device), use_cache=True)
    else:
        start = (copy.deepcopy(cached) if cached is not None
                 else system_cache(model, system_ids))
        with torch.set_grad_enabled(grad == "user"):
            out = model(_tensor(user_ids, device), past_key_values=start, use_cache=True)
    cache = out.past_key_values
    if batch > 1:
        cache.batch_repeat_interleave(batch)
    return cache, out.logits[:, -1].expand(batch, -1)


def sample_group(model, system_ids, user_ids, group: int, max_new_tokens: int, stop: set[int],
                 temperature: float = 1.0, generator=None, cached=None) -> list[list[int]]:
    """`group` replies sampled at `temperature` (each ends at its first stop token, kept, or at
    `max_new_tokens`), sharing one prompt prefill."""
    import torch

    device = next(model.parameters()).device
    stop_t = torch.tensor(sorted(stop), device=device)
    with torch.no_grad():
        cache, logits = prefix_cache(model, system_ids, user_ids, group, "none", cached)
        done = torch.zeros(group, dtype=torch.bool, device=device)
        steps = []
        for _ in range(max_new_tokens):
            probs = torch.softmax(logits.float() / temperature, dim=-1)
            token = torch.multinomial(probs, 1, generator=generator).squeeze(1)
            steps.append(torch.where(done, torch.full_like(token, -1), token))
            done = done | torch.isin(token, stop_t)
            if bool(done.all()):
                break
            out = model(token.unsqueeze(1), past_key_values=cache, use_cache=True)
            cache, logits = out.past_key_values, out.logits[:, -1]
    table = torch.stack(steps, 1).tolist()
    return [[t for t in row if t >= 0] for row in table]


def reply_logprobs(model, system_ids, user_ids, replies: Sequence[Sequence[int]], grad: str,
                   cached=None):
    """Sum of each reply's token log-probabilities given the prompt (tensor [len(replies)]),
    one prefill shared by the replies; autograd as `prefix_cache`'s `grad`."""
    import torch

    device = next(model.parameters()).device
    group = len(replies)
    longest = max(len(r) for r in replies)
    ids = torch.zeros(group, longest, dtype=torch.long, device=device)
    mask = torch.zeros(group, longest, dtype=torch.float32, device=device)
    for i, reply in enumerate(replies):
        ids[i, :len(reply)] = torch.tensor(reply, device=device)
        mask[i, :len(reply)] = 1.0
    cache, last = prefix_cache(model, system_ids, user_ids, group, grad, cached)
    prompt_len = len(system_ids) + len(user_ids)
    attention = torch.cat([torch.ones(group, prompt_len, device=device, dtype=torch.long),
                           mask.long()], 1)
    out = model(ids, past_key_values=cache, attention_mask=attention, use_cache=False)
    logits = torch.cat([last.unsqueeze(1), out.logits[:, :-1]], 1).float()
    logps = torch.log_softmax(logits, -1).gather(2, ids.unsqueeze(2)).squeeze(2)
    return (logps * mask).sum(1)


def grpo_loss(logps, lengths, advantages):
    """-mean(advantage * log p(reply) / length): the update of scripts/grpo_cpu_pico.py."""
    return -(advantages * logps / lengths).mean()


def sft_loss(model, system_ids, user_batch: Sequence[Sequence[int]],
             answer_batch: Sequence[Sequence[int]], grad: str = "user"):
    """Mean token cross-entropy of the answers given each prompt (the system turn's keys and
    values shared; with grad "user" they carry no gradient)."""
    import torch

    device = next(model.parameters()).device
    batch = len(user_batch)
    seqs = [[*u, *a] for u, a in zip(user_batch, answer_batch, strict=True)]
    longest = max(len(s) for s in seqs)
    ids = torch.zeros(batch, longest, dtype=torch.long, device=device)
    attention = torch.zeros(batch, longest, dtype=torch.long, device=device)
    target = torch.full((batch, longest), -100, dtype=torch.long, device=device)
    for i, (u, a) in enumerate(zip(user_batch, answer_batch, strict=True)):
        ids[i, :len(u) + len(a)] = torch.tensor([*u, *a], device=device)
        attention[i, :len(u) + len(a)] = 1
        # position p predicts token p + 1: answer token k sits at len(u) + k
        target[i, len(u) - 1:len(u) + len(a) - 1] = torch.tensor(a, device=device)
    with torch.set_grad_enabled(grad == "full"):
        cache = model(_tensor(system_ids, device), use_cache=True).past_key_values
    cache.batch_repeat_interleave(batch)
    full_mask = torch.cat([torch.ones(batch, len(system_ids), dtype=torch.long, device=device),
                           attention], 1)
    logits = model(ids, past_key_values=cache, attention_mask=full_mask).logits.float()
    return torch.nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]),
                                             target.reshape(-1), ignore_index=-100)


def greedy_batch(model, system_ids, user_batch: Sequence[Sequence[int]], max_new_tokens: int,
                 stop: set[int]) -> list[list[int]]:
    """Greedy replies to several prompts sharing the system turn (computed once): the user
    turns are left-padded inside their segment, with explicit positions, so each row sees
    exactly its own prompt. Each reply ends at its first stop token (kept)."""
    import torch

    device = next(model.parameters()).device
    batch = len(user_batch)
    n_sys = len(system_ids)
    longest = max(len(u) for u in user_batch)
    ids = torch.zeros(batch, longest, dtype=torch.long, device=device)
    seg = torch.zeros(batch, longest, dtype=torch.long, device=device)
    lengths = torch.tensor([len(u) for u in user_batch], device=device)
    for i, u in enumerate(user_batch):
        ids[i, longest - len(u):] = torch.tensor(u, device=device)
        seg[i, longest - len(u):] = 1
    pos = (n_sys + torch.cumsum(seg, 1) - 1).clamp(min=n_sys)
    mask = torch.cat([torch.ones(batch, n_sys, dtype=torch.long, device=device), seg], 1)
    stop_t = torch.tensor(sorted(stop), device=device)
    with torch.no_grad():
        cache = model(_tensor(system_ids, device), use_cache=True).past_key_values
        cache.batch_repeat_interleave(batch)
        out = model(ids, past_key_values=cache, attention_mask=mask, position_ids=pos,
                    use_cache=True, logits_to_keep=1)
        cache, logits = out.past_key_values, out.logits[:, -1]
        next_pos = n_sys + lengths
        done = torch.zeros(batch, dtype=torch.bool, device=device)
        steps = []
        for _ in range(max_new_tokens):
            token = logits.argmax(-1)
            steps.append(torch.where(done, torch.full_like(token, -1), token))
            done = done | torch.isin(token, stop_t)
            if bool(done.all()):
                break
            mask = torch.cat([mask, torch.ones(batch, 1, dtype=torch.long, device=device)], 1)
            out = model(token.unsqueeze(1), past_key_values=cache, attention_mask=mask,
                        position_ids=next_pos.unsqueeze(1), use_cache=True)
            cache, logits = out.past_key_values, out.logits[:, -1]
            next_pos = next_pos + 1
    table = torch.stack(steps, 1).tolist()
    return [[t for t in row if t >= 0] for row in table]


def decode_reply(tokenizer, tokens: Sequence[int]) -> str:
    """The reply text as a server would return it: special tokens (end of turn) left out."""
    return tokenizer.decode(list(tokens), skip_special_tokens=True)


def train_only_top(model, layers: int) -> int:
    """Freeze every parameter except the top `layers` decoder layers and the final norm (0:
    train everything). The frozen embeddings are tied to the output layer, which stays fixed
    too; the backward pass then stops at the lowest trained layer. Returns the trained count."""
    if layers <= 0:
        return sum(p.numel() for p in model.parameters())
    blocks = model.model.layers
    for parameter in model.parameters():
        parameter.requires_grad_(False)
    for block in blocks[len(blocks) - layers:]:
        for parameter in block.parameters():
            parameter.requires_grad_(True)
    for parameter in model.model.norm.parameters():
        parameter.requires_grad_(True)
    return sum(p.numel() for p in model.parameters() if p.requires_grad)


def checkpoint_dir(out: Path, name: str) -> Path:
    """Where checkpoint `name` lives under a run folder."""
    return out / "checkpoints" / name


def load_checkpoint(out: Path, name: str, device: str):
    """(model, tokenizer) of checkpoint `name` ("start": the dequantized packaged model)."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from scripts.grpo_cpu_pico import PLAIN_DIR, load_policy

    if name == "start":
        load_policy()  # makes the plain copy on first use
        path = PLAIN_DIR
    else:
        path = checkpoint_dir(out, name)
    model = AutoModelForCausalLM.from_pretrained(path, dtype=torch.float32).to(device)
    return model, AutoTokenizer.from_pretrained(path)


# --------------------------------------------------------------------------- train


def answer_text(target_lines: Sequence[str]) -> str:
    """The gold reply: the four lines in one <answer> block (what the benchmark asks for)."""
    return "<answer>\n" + "\n".join(target_lines) + "\n</answer>"


def train_tasks(num: int, seed: int, difficulty: str | None):
    """The v1 taskset's train split with the opt-in shaped reward: `num` PicoTasks."""
    from pico_dsl_v1.taskset import PicoTaskset, PicoTasksetConfig

    config = PicoTasksetConfig(split="train", num_train=num, seed=seed, difficulty=difficulty,
                               reward="line_similarity")
    return PicoTaskset(config).load()


def log_line(path: Path, record: dict[str, Any]) -> None:
    """Append one JSON record to a log file and flush it (a partial run stays readable)."""
    with path.open("a") as f:
        f.write(json.dumps(record) + "\n")


def cmd_train(args) -> int:
    """The warm start, then the GRPO steps; logs and checkpoints under args.out."""
    import torch

    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    out: Path = args.out
    out.mkdir(parents=True, exist_ok=True)
    (out / "config.json").write_text(json.dumps(
        {k: str(v) if isinstance(v, Path) else v for k, v in vars(args).items()
         if k != "func"}, indent=2))
    from pico_dsl_v1.prompt import SYSTEM_PROMPT

    model, tokenizer = load_checkpoint(out, "start", args.device)
    prompts = Prompts(tokenizer, SYSTEM_PROMPT)
    stop = end_ids(tokenizer)
    im_end = tokenizer.convert_tokens_to_ids("<|im_end|>")
    load = os.getloadavg
    trained = train_only_top(model, args.train_layers)
    print(f"training {trained} of {sum(p.numel() for p in model.parameters())} parameters",
          flush=True)

    sft_dir = checkpoint_dir(out, "sft")
    sft_log = out / "sft_log.jsonl"
    if args.sft_steps and not (sft_dir / "config.json").exists():
        sft_log.unlink(missing_ok=True)
        need = args.sft_steps * args.sft_batch
        tasks = train_tasks(need, SFT_SEED, args.sft_difficulty)
        optimizer = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad],
                                      lr=args.sft_lr)
        model.train()
        for step in range(args.sft_steps):
            started = time.perf_counter()
            chunk = tasks[step * args.sft_batch:(step + 1) * args.sft_batch]
            users = [prompts.split(t.data.prompt) for t in chunk]
            answers = [tokenizer(answer_text(t.data.target_lines),
                                 add_special_tokens=False).input_ids + [im_end] for t in chunk]
            loss = sft_loss(model, prompts.system_ids, users, answers, args.prompt_grad)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            record = {"step": step + 1, "loss": loss.item(),
                      "seconds": time.perf_counter() - started, "peak_rss_mb": peak_rss_mb(),
                      "load_average": load()[0]}
            log_line(sft_log, record)
            print(f"sft {step + 1:3d} loss {record['loss']:.3f} {record['seconds']:.1f}s",
                  flush=True)
        model.save_pretrained(sft_dir)
        tokenizer.save_pretrained(sft_dir)
    elif args.sft_steps:
        model, tokenizer = load_checkpoint(out, "sft", args.device)
        train_only_top(model, args.train_layers)

    if args.steps == 0:
        return 0
    grpo_log = out / "grpo_log.jsonl"
    done_steps = 0
    latest = checkpoint_dir(out, "latest")
    if args.resume and (latest / "config.json").exists() and grpo_log.exists():
        done_steps = sum(1 for _ in grpo_log.open())
        model, tokenizer = load_checkpoint(out, "latest", args.device)
        train_only_top(model, args.train_layers)
        print(f"resuming after step {done_steps}", flush=True)
    else:
        grpo_log.unlink(missing_ok=True)
    tasks = train_tasks(args.steps, GRPO_SEED, args.difficulty)
    optimizer = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=args.lr)
    generator = torch.Generator(device=args.device).manual_seed(args.seed)
    for index in range(done_steps, args.steps):
        started = time.perf_counter()
        task = tasks[index]
        user = prompts.split(task.data.prompt)
        model.eval()
        cached = system_cache(model, prompts.system_ids)  # this step's weights
        replies = sample_group(model, prompts.system_ids, user, args.group,
                               args.max_new_tokens, stop, args.temperature, generator, cached)
        sampled = time.perf_counter()
        replies = [r if r else [im_end] for r in replies]
        scores = [task.score_reply(decode_reply(tokenizer, r)) for r in replies]
        rewards = [s.reward for s in scores]
        mean = sum(rewards) / len(rewards)
        advantages = torch.tensor([r - mean for r in rewards], device=args.device)
        loss_value = 0.0
        if bool(advantages.abs().max() > 0):
            model.train()
            logps = reply_logprobs(model, prompts.system_ids, user, replies, args.prompt_grad,
                                   cached)
            lengths = torch.tensor([float(len(r)) for r in replies], device=args.device)
            loss = grpo_loss(logps, lengths, advantages)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            loss_value = loss.item()
        record = {
            "step": index + 1, "task": task.data.row_id, "level": task.data.complexity_level,
            "slice": task.data.slice_name, "reward": mean,
            "rewards": rewards,
            "exact_match": sum(s.metrics["exact_match"] for s in scores) / len(scores),
            "format_valid": sum(s.metrics["format_valid"] for s in scores) / len(scores),
            "nonzero": sum(1 for r in rewards if r > 0), "loss": loss_value,
            "reply_tokens": sum(len(r) for r in replies) / len(replies),
            "sample_seconds": sampled - started, "seconds": time.perf_counter() - started,
            "peak_rss_mb": peak_rss_mb(), "load_average": load()[0],
            "sample": decode_reply(tokenizer, replies[0]),
        }
        log_line(grpo_log, record)
        print(f"grpo {index + 1:4d} reward {mean:.3f} nonzero {record['nonzero']}/{args.group} "
              f"exact {record['exact_match']:.2f} {record['seconds']:.1f}s "
              f"(load {record['load_average']:.1f})", flush=True)
        if (index + 1) % args.checkpoint_every == 0 or index + 1 == args.steps:
            model.save_pretrained(latest)
            tokenizer.save_pretrained(latest)
    final = checkpoint_dir(out, "final")
    model.save_pretrained(final)
    tokenizer.save_pretrained(final)
    return 0


# --------------------------------------------------------------------------- eval


def cmd_eval(args) -> int:
    """Greedy replies of one checkpoint to the eval subset, scored by the environment's scorer,
    saved as a vf-eval run folder under args.out/evals/<checkpoint>."""
    import torch
    from pico_dsl_v1.prompt import SYSTEM_PROMPT
    from pico_dsl_v1.report import dataset_version
    from pico_dsl_v1.scorer import BEHAVIOUR_VERSION, SHAPED, SHAPED_DECLARATION, score_reply
    from pico_dsl_v1.splits import eval_rows, prompt_key

    torch.set_num_threads(args.threads)
    started = time.time()
    model, tokenizer = load_checkpoint(args.out, args.checkpoint, args.device)
    model.eval()
    prompts = Prompts(tokenizer, SYSTEM_PROMPT)
    stop = end_ids(tokenizer)
    rows = eval_rows("mixed", args.rows)
    order = sorted(range(len(rows)), key=lambda i: len(prompt_key(rows[i])))
    replies: dict[int, str] = {}
    for at in range(0, len(order), args.batch):
        chunk = order[at:at + args.batch]
        users = [prompts.split(prompt_key(rows[i])) for i in chunk]
        for i, tokens in zip(chunk, greedy_batch(model, prompts.system_ids, users,
                                                 args.max_new_tokens, stop), strict=True):
            replies[i] = decode_reply(tokenizer, tokens)
        print(f"eval {args.checkpoint}: {len(replies)}/{len(rows)} rows "
              f"({time.time() - started:.0f}s)", flush=True)
    folder = args.out / "evals" / args.checkpoint
    folder.mkdir(parents=True, exist_ok=True)
    sha = dataset_version({})
    lines, totals = [], {}
    for i, row in enumerate(rows):
        score = score_reply(replies[i], row["target_lines"], SHAPED_DECLARATION)
        metrics = dict(score.metrics)
        totals = {k: totals.get(k, 0.0) + v for k, v in metrics.items()}
        info = {"id": row["id"], "slice": row["slice"],
                "complexity_level": row["complexity_level"], "input": row["input"],
                "tape": row["tape"], "target_lines": list(row["target_lines"]),
                "behaviour_version": BEHAVIOUR_VERSION}
        lines.append({
            "example_id": i,
            "prompt": [{"role": "system", "content": SYSTEM_PROMPT},
                       {"role": "user", "content": prompt_key(row)}],
            "completion": [{"role": "assistant", "content": replies[i]}],
            "answer": "\n".join(row["target_lines"]), "info": info,
            "reward": metrics["exact_match"], "error": None, **metrics,
        })
    with (folder / "results.jsonl").open("w") as f:
        for line in lines:
            f.write(json.dumps(line) + "\n")
    metadata = {
        "env_id": "pico-dsl-v1", "env_args": {"num_examples": args.rows},
        "model": f"SmolLM2-135M-Instruct {args.checkpoint} ({args.out.name})",
        "base_url": "in-process transformers greedy (benchmarks/grpo_pico_dsl_v1.py eval)",
        "num_examples": len(rows), "rollouts_per_example": 1,
        "sampling_args": {"max_tokens": args.max_new_tokens, "temperature": 0.0},
        "time": time.time() - started,
        "avg_reward": totals["exact_match"] / len(rows),
        "avg_metrics": {k: v / len(rows) for k, v in totals.items()},
        "behaviour_version": BEHAVIOUR_VERSION, "dataset": sha,
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "grpo_eval": {"checkpoint": args.checkpoint, "rows": len(rows),
                      "subset": f"first {len(rows)} of the fixed 480 rows (eval_rows('mixed'))",
                      "load_average_end": list(os.getloadavg()),
                      "shaped_reward": SHAPED},
    }
    (folder / "metadata.json").write_text(json.dumps(metadata, indent=2))
    print(json.dumps(metadata["avg_metrics"], indent=1))
    return 0


# --------------------------------------------------------------------------- plot


def read_log(path: Path) -> list[dict[str, Any]]:
    """The records of a JSON-lines log (missing file: none)."""
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def held_out_points(out: Path) -> dict[str, float]:
    """{checkpoint: mean shaped reward} of the eval runs present under out/evals."""
    found = {}
    for name in CHECKPOINTS:
        meta = out / "evals" / name / "metadata.json"
        if meta.exists():
            found[name] = json.loads(meta.read_text())["avg_metrics"]["shaped_line_similarity"]
    return found


def cmd_plot(args) -> int:
    """The curve PNG: train shaped reward per step, its moving average, held-out points."""
    from smol_envs_core.report.charts import figure

    log = read_log(args.out / "grpo_log.jsonl")
    if not log:
        raise SystemExit(f"no GRPO steps logged under {args.out}")
    steps = [r["step"] for r in log]
    rewards = [r["reward"] for r in log]
    average = moving_average(rewards, args.window)
    held = held_out_points(args.out)
    with figure(args.png, (8.0, 4.5)) as ax:
        ax.plot(steps, rewards, ".", color="0.6", markersize=3,
                label="train: mean shaped reward of the step's group")
        ax.plot(steps, average, "-", color="C0", label=f"train: moving average ({args.window})")
        x_for = {"sft": 0, "final": steps[-1]}
        for name, value in held.items():
            if name in x_for:
                ax.plot([x_for[name]], [value], "s", color="C3", markersize=7)
                ax.annotate(f"held-out {name}: {value:.3f}", (x_for[name], value),
                            textcoords="offset points", xytext=(4, 6), fontsize=8)
        ax.set_xlabel("GRPO step (one train task, a group of sampled replies)")
        ax.set_ylabel("shaped_line_similarity")
        ax.set_title("pico-dsl-v1: GRPO of SmolLM2-135M-Instruct on its train split")
        ax.grid(alpha=0.3)
        ax.legend(loc="upper left", fontsize=8)
    print(args.png)
    return 0


# --------------------------------------------------------------------------- held-out figures

HELD_OUT_METRICS = ("exact_match", "format_valid", "line_1_exact", "line_2_exact",
                    "line_3_exact", "line_4_exact", "line_1_similarity", "line_2_similarity",
                    "line_3_similarity", "line_4_similarity", "avg_line_similarity",
                    "shaped_line_similarity")


def held_out_table(runs: dict[str, Path]) -> str:
    """Markdown: one row per metric, one column per run, each cell the mean x100 with its 95%
    interval and N (`statistics.describe`: Wilson for 0/1 outcomes, Student's t otherwise)."""
    from smol_envs_core.report.build import read_run
    from smol_envs_core.report.statistics import describe, fmt

    read = {name: read_run(path) for name, path in runs.items()}
    header = "| metric (x100) | " + " | ".join(read) + " |"
    lines = [header, "| :--- |" + " ---: |" * len(read)]
    methods = set()
    for metric in HELD_OUT_METRICS:
        cells = []
        for results in read.values():
            e = describe([row.metric(metric) for row in results.rows])
            methods.add(e.method)
            cells.append(f"{fmt(e.value)} [{fmt(e.low)}, {fmt(e.high)}] N={e.n}")
        lines.append(f"| {metric} | " + " | ".join(cells) + " |")
    lines.append("")
    lines.append("95% intervals: " + ", ".join(sorted(methods))
                 + " (Wilson for 0/1 outcomes, Student's t for graded scores).")
    return "\n".join(lines)


def cmd_table(args) -> int:
    """Print the held-out table of the eval runs present under args.out/evals."""
    runs = {name: args.out / "evals" / name for name in (*CHECKPOINTS, "latest")
            if (args.out / "evals" / name / "results.jsonl").exists()}
    if not runs:
        raise SystemExit(f"no eval runs under {args.out / 'evals'}")
    print(held_out_table(runs))
    return 0


def extended_hook(results):
    """pico-dsl-v1's compare hook with the shaped reward and the per-line metrics added as
    measures (the same statistics: McNemar and Newcombe for 0/1, paired bootstrap otherwise)."""
    from dataclasses import replace

    from pico_dsl_v1.report import compare_hook
    from smol_envs_core.report.compare import Breakdown, Measure, Outcome

    view = compare_hook(results)
    by_key = {str(row.info.get("id")): row for row in results.rows}
    outcomes = tuple(
        Outcome(key=o.key, values={**o.values, **{m: by_key[o.key].metric(m)
                                                   for m in HELD_OUT_METRICS}},
                stratum=o.stratum, groups=o.groups, gold=o.gold)
        for o in view.outcomes)
    shaped = Measure("shaped_line_similarity x100", "shaped_line_similarity")
    extra = tuple(Measure(f"{m} x100", m) for m in HELD_OUT_METRICS
                  if m not in ("exact_match", "format_valid", "avg_line_similarity"))
    return replace(view, outcomes=outcomes, measures=(*view.measures, *extra),
                   breakdowns=(*view.breakdowns, Breakdown("level", shaped)))


def cmd_compare(args) -> int:
    """`smol-envs compare` of two eval runs, with the shaped reward and per-line measures."""
    from smol_envs_core.report.build import read_run
    from smol_envs_core.report.compare import compare_results
    from smol_envs_core.report.markdown import comparison_markdown

    a = read_run(args.out / "evals" / args.a)
    b = read_run(args.out / "evals" / args.b)
    print(comparison_markdown(compare_results(a, b, extended_hook)))
    return 0


# --------------------------------------------------------------------------- GGUF export


def cmd_export_gguf(args) -> int:
    """Write the checkpoint as a float16 GGUF (see `gguf_export.write_gguf`)."""
    from benchmarks.gguf_export import write_gguf

    path = args.gguf or (args.out / "gguf" / f"SmolLM2-135M-Instruct-{args.checkpoint}.F16.gguf")
    write_gguf(checkpoint_dir(args.out, args.checkpoint) if args.checkpoint != "start"
               else None, path, args.template)
    print(path)
    return 0


# --------------------------------------------------------------------------- command line


def parser() -> argparse.ArgumentParser:
    """The command line (see the module docstring)."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    sub = p.add_subparsers(dest="command", required=True)

    def common(q, threads=1):
        q.add_argument("--out", type=Path, default=DEFAULT_OUT, help="run folder")
        q.add_argument("--device", default="cpu", help="cpu or cuda")
        q.add_argument("--threads", type=int, default=threads, help="torch CPU threads")

    t = sub.add_parser("train", help="warm start, then GRPO")
    common(t)
    t.add_argument("--steps", type=int, default=200, help="GRPO steps (one train task each)")
    t.add_argument("--group", type=int, default=None, help="replies per task (cpu 8, cuda 32)")
    t.add_argument("--max-new-tokens", type=int, default=48, help="sampling budget per reply")
    t.add_argument("--temperature", type=float, default=1.0)
    t.add_argument("--lr", type=float, default=3e-5, help="GRPO AdamW learning rate")
    t.add_argument("--difficulty", default="tiny", help="GRPO train rows' difficulty")
    t.add_argument("--sft-steps", type=int, default=12, help="warm-start steps (0: none)")
    t.add_argument("--sft-batch", type=int, default=8, help="gold answers per warm-start step")
    t.add_argument("--sft-lr", type=float, default=3e-4, help="warm-start AdamW learning rate")
    t.add_argument("--sft-difficulty", default="tiny", help="warm-start rows' difficulty")
    t.add_argument("--prompt-grad", choices=["user", "full"], default=None,
                   help="autograd through the user turn only (cpu default) or the full prompt "
                        "(cuda default)")
    t.add_argument("--train-layers", type=int, default=None,
                   help="train only the top N decoder layers and the final norm (cpu default "
                        "8 of 30; cuda default 0 = all parameters)")
    t.add_argument("--checkpoint-every", type=int, default=2)
    t.add_argument("--resume", action="store_true", help="continue after the logged steps")
    t.add_argument("--seed", type=int, default=0)
    t.set_defaults(func=cmd_train)

    e = sub.add_parser("eval", help="held-out greedy eval of one checkpoint")
    common(e)
    e.add_argument("--checkpoint", choices=[*CHECKPOINTS, "latest"], required=True)
    e.add_argument("--rows", type=int, default=48, help="first N of the 480 eval rows")
    e.add_argument("--batch", type=int, default=48)
    e.add_argument("--max-new-tokens", type=int, default=96)
    e.set_defaults(func=cmd_eval)

    pl = sub.add_parser("plot", help="the curve PNG")
    pl.add_argument("--out", type=Path, default=DEFAULT_OUT)
    pl.add_argument("--png", type=Path, default=REPO / "docs" / "pico_dsl_v1_grpo_curve.png")
    pl.add_argument("--window", type=int, default=20)
    pl.set_defaults(func=cmd_plot)

    tb = sub.add_parser("table", help="the held-out table of the eval runs")
    tb.add_argument("--out", type=Path, default=DEFAULT_OUT)
    tb.set_defaults(func=cmd_table)

    c = sub.add_parser("compare", help="paired comparison of two eval runs")
    c.add_argument("--out", type=Path, default=DEFAULT_OUT)
    c.add_argument("a", choices=[*CHECKPOINTS, "latest"])
    c.add_argument("b", choices=[*CHECKPOINTS, "latest"])
    c.set_defaults(func=cmd_compare)

    g = sub.add_parser("export-gguf", help="a checkpoint as a float16 GGUF")
    g.add_argument("--out", type=Path, default=DEFAULT_OUT)
    g.add_argument("--checkpoint", choices=[*CHECKPOINTS, "latest"], default="final")
    g.add_argument("--gguf", type=Path, default=None, help="output file")
    g.add_argument("--template", type=Path, default=None,
                   help="the packaged GGUF (default: the one in the workspace venv)")
    g.set_defaults(func=cmd_export_gguf)
    return p


def main(argv: list[str] | None = None) -> int:
    """Parse, fill the device-dependent defaults, run the subcommand."""
    args = parser().parse_args(argv)
    if args.command == "train":
        cuda = args.device.startswith("cuda")
        args.group = args.group or (32 if cuda else 8)
        args.prompt_grad = args.prompt_grad or ("full" if cuda else "user")
        if args.train_layers is None:
            args.train_layers = 0 if cuda else 8
    return args.func(args)


if __name__ == "__main__":
    raise SystemExit(main())
