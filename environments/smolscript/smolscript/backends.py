"""In-process generation backends of `smolscript evaluate --model`: one small interface, two
implementations.

A backend turns a batch of raw prompts into continuations under the card's decoding protocol
(`DECODING`: greedy, seed 0, no beam search, no repetition penalty, no chat template: the
prompt is passed as raw text): `generate(prompts, max_new_tokens, stop)` returns one
`Generation` per prompt (text, new-token count, whether the token limit cut it). It never
truncates a prompt: the caller checks `count_tokens(prompt) + budget <= context_length` first
(`smolscript.generate`). A backend that runs out of memory raises `OutOfMemory`, which the
caller answers by halving the batch.

- `LlamaCppBackend` (a GGUF file, llama-cpp-python): sequences run one at a time through
  llama-cpp-python's own completion call, each from an empty KV cache (the KV cache is used
  within the sequence), with the local model server's context size, batch sizes and logits
  setting, so that its greedy outputs are the server's (`smol_envs_core.server.serve` also starts
  every generation from an empty cache). `--batch-size` is then the unit of checkpointing
  and progress, not of parallel decoding.
- `TransformersBackend` (a Hugging Face folder; torch and transformers, optional): real
  batches, left-padded, `generate(do_sample=False, num_beams=1)`, on CUDA when present (bf16)
  else CPU (float32).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any, Protocol

from smolscript.errors import ModelError
from smolscript.models import ModelRef

# The local model server's context (smol_envs_core.server.serve.N_CTX): the same default here, so
# that both paths accept and refuse the same prompts.
DEFAULT_N_CTX = 2048
DECODING: dict[str, Any] = {"strategy": "greedy", "seed": 0, "num_beams": 1, "temperature": 0.0,
                            "repeat_penalty": 1.0, "chat_template": None, "stop": "end of text"}


@dataclass(frozen=True)
class Generation:
    """One continuation: its text (special tokens not rendered, the end-of-text token not
    included), the number of new tokens it took, and whether its token limit cut it."""

    text: str
    new_tokens: int
    hit_limit: bool


class OutOfMemory(Exception):
    """The backend ran out of (device) memory on this batch; a smaller batch may fit."""


class Backend(Protocol):
    """What the evaluator needs from a generation backend."""

    context_length: int

    def describe(self) -> dict[str, Any]:
        """What produced the continuations (library and version, device, dtype, context,
        how batches run); part of a run's identity."""
        ...

    def count_tokens(self, prompt: str) -> int:
        """Tokens the prompt takes in the model's context (BOS included when the model adds
        one), exactly as `generate` will feed it."""
        ...

    def generate(self, prompts: Sequence[str], max_new_tokens: Sequence[int],
                 stop: Sequence[str] = ()) -> list[Generation]:
        """Greedy continuations, one per prompt, each of at most its `max_new_tokens`; a
        continuation ends at the model's end-of-text token or before the first `stop` string.

        Raises OutOfMemory when the batch does not fit in memory."""
        ...


def _version(package: str) -> str:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return "unknown"


def _cut_at_stop(text: str, stop: Sequence[str]) -> tuple[str, bool]:
    """`text` before the first of the stop strings, and whether one was found. Pure."""
    cuts = [text.index(s) for s in stop if s and s in text]
    return (text[:min(cuts)], True) if cuts else (text, False)


class LlamaCppBackend:
    """A GGUF model through llama-cpp-python, one sequence at a time (see the module doc).

    Args:
        path: the GGUF file.
        context_length: tokens of context (default 2048, the local server's).
        threads: CPU threads (default: llama-cpp-python's, half the cores; the thread count
            does not change the outputs, and on a busy machine fewer threads are faster).
    Raises ModelError when llama-cpp-python is missing or cannot load the file.
    """

    def __init__(self, path: Path, context_length: int | None = None,
                 threads: int | None = None):
        try:
            from llama_cpp import Llama
        except ImportError as exc:
            raise ModelError("a GGUF model needs llama-cpp-python (`pip install "
                             "'smolscript[gguf]'`, or `uv sync` in the workspace)") from exc
        self.context_length = context_length or DEFAULT_N_CTX
        try:
            # n_batch, n_ubatch and logits_all as llama-cpp-python's server sets them.
            self.llm = Llama(model_path=str(path), n_ctx=self.context_length, n_batch=512,
                             n_ubatch=512, logits_all=True, seed=0,
                             n_threads=threads, verbose=False)
        except (ValueError, RuntimeError) as exc:
            raise ModelError(f"llama.cpp cannot load {path}: {exc}") from exc

    def describe(self) -> dict[str, Any]:
        """llama.cpp's part of the run identity."""
        return {"backend": "llama.cpp",
                "library": f"llama-cpp-python {_version('llama-cpp-python')}", "device": "cpu",
                "context_length": self.context_length,
                "batching": "sequential: one sequence at a time, each from an empty KV cache"}

    def count_tokens(self, prompt: str) -> int:
        """Prompt tokens as llama-cpp-python's completion tokenizes them (special tokens parsed,
        BOS when the model adds one)."""
        return len(self.llm.tokenize(prompt.encode("utf-8"), add_bos=True, special=True))

    def generate(self, prompts: Sequence[str], max_new_tokens: Sequence[int],
                 stop: Sequence[str] = ()) -> list[Generation]:
        """One greedy completion per prompt, in order (see `Backend.generate`)."""
        out = []
        for prompt, limit in zip(prompts, max_new_tokens, strict=True):
            self.llm.reset()  # an empty KV cache: the output never depends on the last prompt
            reply = self.llm.create_completion(
                prompt, max_tokens=limit, temperature=0.0, repeat_penalty=1.0,
                frequency_penalty=0.0, presence_penalty=0.0, seed=0, stop=list(stop) or None)
            choice = reply["choices"][0]
            out.append(Generation(choice["text"], int(reply["usage"]["completion_tokens"]),
                                  choice["finish_reason"] == "length"))
        return out


class TransformersBackend:
    """A Hugging Face model folder through transformers, in real left-padded batches.

    Args:
        path: the model folder (config.json, weights, tokenizer files).
        context_length: tokens of context (default: the model's `max_position_embeddings`).
        device: "cuda", "cpu", ... (default: CUDA when available, else CPU).
    Raises ModelError when torch or transformers is missing or the folder cannot be loaded.
    """

    def __init__(self, path: Path, context_length: int | None = None, device: str | None = None):
        try:
            import torch
            from transformers import AutoModelForCausalLM, AutoTokenizer
        except ImportError as exc:
            raise ModelError("a transformers model folder needs torch and transformers "
                             "(`pip install 'smolscript[transformers]'`)") from exc
        self.torch = torch
        self.device = device or ("cuda" if torch.cuda.is_available() else "cpu")
        cuda = self.device.startswith("cuda")
        self.dtype = torch.bfloat16 if cuda and torch.cuda.is_bf16_supported() else torch.float32
        try:
            self.tokenizer = AutoTokenizer.from_pretrained(str(path))
            self.model = AutoModelForCausalLM.from_pretrained(str(path), dtype=self.dtype)
        except (OSError, ValueError) as exc:
            raise ModelError(f"transformers cannot load {path}: {exc}") from exc
        self.model.to(self.device).eval()
        self.tokenizer.padding_side = "left"
        eos = self.model.generation_config.eos_token_id
        eos = eos if isinstance(eos, list) else [eos] if eos is not None else []
        self.eos_ids = sorted({*eos, *([self.tokenizer.eos_token_id]
                                       if self.tokenizer.eos_token_id is not None else [])})
        self.pad_id = (self.tokenizer.pad_token_id if self.tokenizer.pad_token_id is not None
                       else self.eos_ids[0] if self.eos_ids else 0)
        self.context_length = (context_length
                               or getattr(self.model.config, "max_position_embeddings", None)
                               or DEFAULT_N_CTX)

    def describe(self) -> dict[str, Any]:
        """transformers' part of the run identity."""
        return {"backend": "transformers",
                "library": f"transformers {_version('transformers')}, torch {_version('torch')}",
                "device": self.device, "dtype": str(self.dtype).removeprefix("torch."),
                "context_length": self.context_length,
                "batching": "batched: left-padded prompts decoded together"}

    def count_tokens(self, prompt: str) -> int:
        """Prompt tokens with the tokenizer's special tokens (BOS when it adds one)."""
        return len(self.tokenizer(prompt)["input_ids"])

    def generate(self, prompts: Sequence[str], max_new_tokens: Sequence[int],
                 stop: Sequence[str] = ()) -> list[Generation]:
        """Greedy continuations of the whole batch at once (see `Backend.generate`); each row
        is cut at its own limit, its first end-of-text token and its first stop string."""
        torch = self.torch
        limits = list(max_new_tokens)
        torch.manual_seed(0)
        batch = self.tokenizer(list(prompts), return_tensors="pt", padding=True).to(self.device)
        try:
            with torch.inference_mode():
                output = self.model.generate(
                    **batch, max_new_tokens=max(limits), do_sample=False, num_beams=1,
                    temperature=None, top_p=None, top_k=None, repetition_penalty=1.0,
                    eos_token_id=self.eos_ids or None, pad_token_id=self.pad_id)
        except torch.cuda.OutOfMemoryError as exc:
            torch.cuda.empty_cache()
            raise OutOfMemory(str(exc).splitlines()[0]) from exc
        except RuntimeError as exc:
            if "out of memory" in str(exc) or "can't allocate memory" in str(exc):
                raise OutOfMemory(str(exc).splitlines()[0]) from exc
            raise
        new = output[:, batch["input_ids"].shape[1]:].tolist()
        results = []
        for row, limit in zip(new, limits, strict=True):
            tokens = row[:limit]
            ended = next((i for i, token in enumerate(tokens) if token in self.eos_ids), None)
            if ended is not None:
                tokens = tokens[:ended]
            text, stopped = _cut_at_stop(
                self.tokenizer.decode(tokens, skip_special_tokens=True), stop)
            results.append(Generation(text, len(tokens),
                                      ended is None and not stopped and len(tokens) == limit))
        return results


def open_backend(ref: ModelRef, context_length: int | None = None, threads: int | None = None,
                 device: str | None = None) -> Backend:
    """The backend for a resolved model: llama.cpp for a GGUF file, transformers for a model
    folder or a Hub snapshot. Raises ModelError (missing library, unloadable model, `device`
    given for a GGUF file)."""
    if ref.kind == "gguf":
        if device not in (None, "cpu"):
            raise ModelError(f"--device {device}: the llama.cpp backend here runs on the CPU")
        return LlamaCppBackend(ref.path, context_length, threads)
    if threads:
        import torch

        torch.set_num_threads(threads)
    return TransformersBackend(ref.path, context_length, device)
