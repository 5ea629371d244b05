"""The one completion prompt protocol of smolscript, its token budgets and the context check.

Every model, base or instruct, gets the same raw text: no chat template, no instructions, no
worked solution, reference, test input or expected value. A program prompt is the supplied
imports, the task as comment lines in the language (instruction, then input domain) and the
entry-point header; it ends right after the header's newline. Browser tasks carry their task
comment, fixture and base styles in their own prefix (built by `smolscript.web`), so their
prompt is the prefix itself (HTML ends with `<`).

Changing anything that alters a prompt's text requires a new `TEMPLATE_ID`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from smolscript.assemble import code_head
from smolscript.errors import PromptError, PromptTooLongError
from smolscript.languages import LANGUAGES

TEMPLATE_ID = "smolscript-completion-v1"

# The budget table's version (TOKEN_BUDGETS, MODERATE_ALLOWANCE, BUDGET_CAP): a results file
# records it, and any change to the three needs a new one.
BUDGETS_VERSION = "smolscript-budgets-v1"
# Generation budget in new tokens, by language (before the moderate allowance).
TOKEN_BUDGETS: dict[str, int] = {
    "python": 128, "javascript": 192, "html": 160, "css": 96, "cpp": 224, "c": 256,
    "lua": 160, "csharp": 256, "rust": 256,
}
MODERATE_ALLOWANCE = 32
BUDGET_CAP = 256

# Comment spelling of program task lines: (line opener, closer).
_BLOCK_CLOSERS = {"<!--": " -->", "/*": " */"}


def token_budget(language: str, difficulty: str, override: int | None = None) -> int:
    """New-token budget of a task: by language, +32 for moderate tasks, capped at 256.

    `override` (a positive int) replaces the budget for every task. Raises ValueError on an
    unknown language or a non-positive override.
    """
    if override is not None:
        if isinstance(override, bool) or not isinstance(override, int) or override <= 0:
            raise ValueError(f"max_tokens override must be a positive integer, got {override!r}")
        return override
    if language not in TOKEN_BUDGETS:
        raise ValueError(f"unknown language {language!r}; valid: {sorted(TOKEN_BUDGETS)}")
    extra = MODERATE_ALLOWANCE if difficulty == "moderate" else 0
    return min(TOKEN_BUDGETS[language] + extra, BUDGET_CAP)


def _comment_lines(language: str, texts: Sequence[str]) -> str:
    opener = LANGUAGES[language].comment
    closer = _BLOCK_CLOSERS.get(opener, "")
    lines = []
    for text in texts:
        for line in str(text).splitlines():
            line = line.rstrip()
            lines.append(f"{opener} {line}{closer}" if line else opener)
    return "".join(line + "\n" for line in lines)


def build_prompt(task: Mapping[str, Any]) -> str:
    """The raw completion prompt of a dataset row.

    Program tasks: imports block, `instruction` and `input_domain` as comment lines, then the
    `prefix` header. Browser tasks: their `prefix` (which already holds task comment, fixture
    and base styles). Raises PromptError when the prefix is missing or the prompt would end
    in spaces or tabs.
    """
    prefix = task.get("prefix")
    if not isinstance(prefix, str) or not prefix:
        raise PromptError(f"task {task.get('id')!r} has no prefix")
    if task.get("modality") == "browser":
        prompt = prefix
    else:
        comments = _comment_lines(str(task["language"]),
                                  [task.get("instruction") or "", task.get("input_domain") or ""])
        prompt = code_head(task) + comments + prefix
    if prompt.rstrip("\n") != prompt.rstrip():
        raise PromptError(f"task {task.get('id')!r}: prompt ends with spaces or tabs")
    if task.get("modality") != "browser" and not prompt.endswith("\n"):
        raise PromptError(f"task {task.get('id')!r}: program prompt must end with a newline")
    return prompt


TokenCounter = Callable[[str], int]


def make_token_counter(tokenizer: str) -> TokenCounter:
    """A prompt token counter from a spec string.

    - `"smollm2"`: the local SmolLM2 GGUF's own vocabulary (llama-cpp-python, vocab only);
    - `"gguf:/path/model.gguf"`: another GGUF's vocabulary;
    - `"hf:<name or path>"`: a Hugging Face tokenizer (transformers, local files);
    - `"bytes"`: UTF-8 byte count, an upper bound for any byte-level BPE tokenizer.
    Raises ValueError on an unknown spec.
    """
    if tokenizer == "bytes":
        return lambda text: len(text.encode("utf-8"))
    if tokenizer == "smollm2" or tokenizer.startswith("gguf:"):
        from llama_cpp import Llama  # lazy: optional dependency
        from smol_envs_core.server.serve import model_path  # the one GGUF locator

        path = model_path() if tokenizer == "smollm2" else Path(tokenizer[5:])
        vocab = Llama(model_path=str(path), vocab_only=True, verbose=False)
        return lambda text: len(vocab.tokenize(text.encode("utf-8"), add_bos=False, special=False))
    if tokenizer.startswith("hf:"):
        from transformers import AutoTokenizer  # lazy: optional dependency

        hf = AutoTokenizer.from_pretrained(tokenizer[3:])
        return lambda text: len(hf(text, add_special_tokens=False)["input_ids"])
    raise ValueError(f"unknown tokenizer {tokenizer!r}; valid: smollm2, gguf:PATH, hf:NAME, bytes")


def check_context(prompts: Sequence[tuple[str, str, int]], context_length: int,
                  count_tokens: TokenCounter) -> None:
    """Raise PromptTooLongError unless every (id, prompt, budget) fits `context_length`.

    A prompt fits when its token count plus its generation budget is at most the context
    length (one extra token is reserved for a BOS the server may add).
    """
    if context_length <= 0:
        raise ValueError(f"context_length must be positive, got {context_length}")
    too_long = []
    for task_id, prompt, budget in prompts:
        used = count_tokens(prompt) + 1
        if used + budget > context_length:
            too_long.append((task_id, used, budget))
    if too_long:
        raise PromptTooLongError(too_long, context_length)


def example_prompts(tasks: Sequence[Mapping[str, Any]]) -> dict[str, str]:
    """One example prompt per language (the first task of each, in dataset order).

    Keys are language ids, plus `javascript_dom` for JavaScript's browser DOM tasks.
    """
    examples: dict[str, str] = {}
    for task in tasks:
        key = task["language"] + ("_dom" if task["language"] == "javascript"
                                  and task.get("modality") == "browser" else "")
        examples.setdefault(key, build_prompt(task))
    return examples


def write_example_prompts(folder: str | Path, tasks: Sequence[Mapping[str, Any]]) -> list[Path]:
    """Write `example_prompts(tasks)` as `<key>.txt` files under `folder`; returns the paths."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for key, prompt in sorted(example_prompts(tasks).items()):
        path = folder / f"{key}.txt"
        path.write_text(prompt, encoding="utf-8")
        written.append(path)
    return written
