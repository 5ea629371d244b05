"""Rows for the environment: the packaged fixed benchmark, or rows generated on the fly.

Edge module for the packaged file (read through importlib.resources, so it works from a wheel);
selection and generation are pure given their arguments.
"""

from __future__ import annotations

import json
import random
from importlib import resources
from typing import Any

from .compiler import compile_row, fitting_spans
from .errors import CompileError, ConfigError, DataError
from .phrases import BUILTIN_PHRASES, clean_phrase
from .prompt import format_question
from .spec import BENCHMARK_SIZE, LEVEL_SPECS, LEVELS, SLICES
from .tokenizer import load_tokenizer
from .validate import BenchmarkValidator, benchmark_problems

BENCHMARK_FILE = "pico_dsl_v1_benchmark.jsonl"
DATASET_MODES = ("fixed", "generated")
SLICE_CHOICES = ("mixed", *SLICES)
# Generated-mode difficulty -> complexity level.
DIFFICULTY_LEVELS: dict[str, str] = {"tiny": "L1", "easy": "L2", "medium": "L3", "hard": "L4"}
# Aliases named after the longest tape of the level: tape16 = tiny, ..., tape48 = hard.
TAPE_ALIASES: dict[str, str] = {
    f"tape{LEVEL_SPECS[level].tape_length[1]}": name for name, level in DIFFICULTY_LEVELS.items()
}
DIFFICULTY_CHOICES = (*DIFFICULTY_LEVELS, "mixed", *TAPE_ALIASES)
# Phrase length bands of each difficulty: tokens with a tokenizer, whitespace words without.
TOKEN_BANDS: dict[str, tuple[int, int]] = {
    "tiny": (1, 4),
    "easy": (2, 5),
    "medium": (3, 8),
    "hard": (5, 12),
}
WORD_BANDS: dict[str, tuple[int, int]] = {
    "tiny": (1, 2),
    "easy": (2, 3),
    "medium": (3, 5),
    "hard": (4, 8),
}
GENERATED_ROUNDS = 12
# Generated mode's default size: as many rows as the phrase list gives, up to the fixed
# benchmark's 480 (some slice x difficulty pairs give fewer, e.g. 149 for tiny copy_case).
GENERATED_DEFAULT_ROWS = 480


def load_benchmark_rows() -> list[dict[str, Any]]:
    """Read and fully re-validate the packaged 480-row benchmark.

    Raises:
        DataError: the file is missing from the package or any row fails validation.
    """
    resource = resources.files("pico_dsl_v1").joinpath("data", BENCHMARK_FILE)
    try:
        text = resource.read_text(encoding="utf-8")
    except (FileNotFoundError, OSError) as exc:
        raise DataError(f"packaged benchmark {BENCHMARK_FILE} is missing: {exc}") from exc
    rows = [json.loads(line) for line in text.splitlines() if line.strip()]
    problems = benchmark_problems(rows)
    if problems or len(rows) != BENCHMARK_SIZE:
        raise DataError(f"packaged benchmark is invalid ({len(rows)} rows): {problems[:5]}")
    return rows


def round_robin_cells(slice_: str) -> list[tuple[str, str]]:
    """Order of (slice, level) cells for round-robin selection.

    For "mixed", pass r visits every slice once, at level (slice index + r) mod 4, so every
    prefix of 6 cells covers all slices and levels stay as even as possible.
    """
    if slice_ != "mixed":
        return [(slice_, level) for level in LEVELS]
    return [
        (s, LEVELS[(i + r) % len(LEVELS)]) for r in range(len(LEVELS)) for i, s in enumerate(SLICES)
    ]


def select_rows(
    rows: list[dict[str, Any]], slice_: str, num_examples: int | None = None
) -> list[dict[str, Any]]:
    """Take `num_examples` rows (None: all of them) round-robin over the cells of `slice_`
    (file order within cells).

    Raises:
        ConfigError: unknown slice, or more rows asked for than the slice has.
    """
    if slice_ not in SLICE_CHOICES:
        raise ConfigError(f"unknown slice {slice_!r}; valid: {', '.join(SLICE_CHOICES)}")
    by_cell: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for row in rows:
        by_cell.setdefault((row["slice"], row["complexity_level"]), []).append(row)
    cells = round_robin_cells(slice_)
    available = sum(len(by_cell.get(cell, [])) for cell in cells)
    if num_examples is None:
        num_examples = available
    if not 1 <= num_examples <= available:
        raise ConfigError(
            f"num_examples must be 1-{available} for slice {slice_!r}, got {num_examples}"
        )
    picked: list[dict[str, Any]] = []
    depth = 0
    while len(picked) < num_examples:
        for cell in cells:
            bucket = by_cell.get(cell, [])
            if depth < len(bucket) and len(picked) < num_examples:
                picked.append(bucket[depth])
        depth += 1
    return picked


def resolve_difficulty(difficulty: str | None) -> str:
    """Map a difficulty or tape-length alias to tiny/easy/medium/hard/mixed (None -> mixed)."""
    if difficulty is None:
        return "mixed"
    if difficulty not in DIFFICULTY_CHOICES:
        raise ConfigError(
            f"unknown difficulty {difficulty!r}; valid: {', '.join(DIFFICULTY_CHOICES)}"
        )
    return TAPE_ALIASES.get(difficulty, difficulty)


def _length(text: str, encoding: Any | None) -> int:
    return len(encoding.encode(text)) if encoding is not None else len(text.split())


def generate_rows(
    num_examples: int | None, seed: int, difficulty: str | None, tokenizer: str,
    slice_: str = "mixed",
) -> list[dict[str, Any]]:
    """Build `num_examples` validated rows from the built-in phrases, deterministically
    (None: as many as the phrases give, up to GENERATED_DEFAULT_ROWS).

    Each difficulty fixes the complexity level (tiny=L1 ... hard=L4, mixed cycles all) and a
    phrase-length band (TOKEN_BANDS in tokens of the tokenizer, WORD_BANDS in words when there
    is none). Rows pass the same oracle and validator as the fixed benchmark (inputs may repeat
    across rows, tapes may not). Each row's info records the token count and tokenizer label.

    Raises:
        ConfigError: bad arguments, or the phrase list cannot give that many rows.
    """
    name = resolve_difficulty(difficulty)
    levels = LEVELS if name == "mixed" else (DIFFICULTY_LEVELS[name],)
    slices = SLICES if slice_ == "mixed" else (slice_,)
    if slice_ not in SLICE_CHOICES:
        raise ConfigError(f"unknown slice {slice_!r}; valid: {', '.join(SLICE_CHOICES)}")
    at_most = num_examples is None
    num_examples = GENERATED_DEFAULT_ROWS if num_examples is None else num_examples
    if num_examples < 1:
        raise ConfigError(f"num_examples must be >= 1, got {num_examples}")
    encoding, label = load_tokenizer(tokenizer)
    bands = TOKEN_BANDS if encoding is not None else WORD_BANDS
    level_names = {level: d for d, level in DIFFICULTY_LEVELS.items()}
    cells = [(s, lv) for s in slices for lv in levels]
    per_cell = -(-num_examples // len(cells))
    validator = BenchmarkValidator(per_cell, slices, levels, unique_inputs=False)
    rng = random.Random(f"pico-dsl-v1-generated|{seed}")
    phrases = [p for p in (clean_phrase(raw)[0] for raw in BUILTIN_PHRASES) if p]
    for round_ in range(GENERATED_ROUNDS):
        rng.shuffle(phrases)
        for k, phrase in enumerate(phrases):
            open_cells = [c for c in cells if not validator.is_full(*c)]
            if not open_cells or len(validator.rows) >= num_examples:
                break
            slice_name, level = open_cells[(k + round_) % len(open_cells)]
            low, high = bands[level_names[level]]
            spans = [t for t in fitting_spans(phrase, level) if low <= _length(t, encoding) <= high]
            if not spans:
                continue
            text = rng.choice(spans)
            try:
                row = compile_row(text, slice_name, level, seed=seed * 1000 + round_)
            except CompileError:
                continue
            row["id"] = f"gen-{seed}-{len(validator.rows):04d}"
            row["token_count"] = _length(text, encoding) if encoding is not None else None
            row["tokenizer"] = label
            validator.offer(row)
    if at_most and validator.rows:
        num_examples = min(num_examples, len(validator.rows))
    if len(validator.rows) < num_examples:
        raise ConfigError(
            f"generated mode built only {len(validator.rows)} rows for difficulty {name!r}; "
            f"ask for num_examples <= {len(validator.rows)}"
        )
    return select_rows(validator.rows, slice_, num_examples)


def to_record(row: dict[str, Any]) -> dict[str, Any]:
    """A verifiers dataset record: question (user message), answer (four lines), info."""
    info = {k: row[k] for k in ("id", "slice", "complexity_level", "input", "tape", "target_lines")}
    info["dictionary"] = json.dumps(row["dictionary"])
    info["diagnostics"] = json.dumps(row["diagnostics"])
    info["token_count"] = row.get("token_count")
    info["tokenizer"] = row.get("tokenizer")
    return {
        "question": format_question(row["input"], row["dictionary"], row["tape"]),
        "answer": "\n".join(row["target_lines"]),
        "info": info,
    }
