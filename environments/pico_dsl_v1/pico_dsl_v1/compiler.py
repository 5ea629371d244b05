"""Deterministic tape compiler: (text, slice, level, seed) -> one benchmark row.

Pure. Randomness comes only from a `random.Random` seeded by a string built from the inputs
(Python hashes str seeds with SHA-512, so the result is the same on every machine and run).
Each call tries a fixed sequence of attempts and returns the first row that passes every
row-level gate of validate.py, preferring tapes above the slice's soft quality floor.
"""

from __future__ import annotations

import random
from typing import Any

from .diagnostics import measure
from .errors import CompileError
from .oracle import CASE_OPERATIONS, OPERATIONS, target_lines
from .spec import (
    BRACKET_PAIRS,
    COMPOSITE_MIN_PHENOMENA,
    LEVEL_SPECS,
    LEVELS,
    LITERAL_POOL,
    PHENOMENA,
    SLICE_PHENOMENON,
    SLICES,
    SYMBOL_POOL,
    LevelSpec,
    quality_floor,
)
from .validate import below_soft_floor, row_problems

MAX_ATTEMPTS = 48
_CASE_OPS = tuple(op for op in OPERATIONS if op in CASE_OPERATIONS)
_OP_WEIGHTS = {"TAKE": 3.0, "DROP": 1.2, "REPEAT": 1.2, "UPPER": 2.0, "LOWER": 2.0, "SWAPCASE": 2.0}
# Operations a slice may add beyond the ones its phenomena require.
_EXTRA_OPS: dict[str, tuple[str, ...]] = {
    "copy_case": ("TAKE", *_CASE_OPS),
    "punctuation": ("TAKE", *_CASE_OPS),
    "deletion": ("TAKE", *_CASE_OPS),
    "repeat": ("TAKE", *_CASE_OPS),
    "noop_suffix": ("TAKE", *_CASE_OPS),
    "composite": OPERATIONS,
}


def _changing_case_ops(source: str) -> list[str]:
    """Case operations that would change at least one character of `source`."""
    return [op for op in _CASE_OPS if any(c.isalpha() and _case(op, c) != c for c in source)]


def _case(op: str, char: str) -> str:
    return {"UPPER": char.upper(), "LOWER": char.lower(), "SWAPCASE": char.swapcase()}[op]


def _choose_phenomena(slice_: str, spec: LevelSpec, rng: random.Random) -> set[str]:
    if slice_ != "composite":
        return {SLICE_PHENOMENON[slice_]}
    max_ops = spec.distinct_ops[1]
    for _ in range(20):
        size = COMPOSITE_MIN_PHENOMENA + (1 if rng.random() < 0.3 else 0)
        chosen = set(rng.sample(PHENOMENA, size))
        if len(chosen & {"case", "deletion", "repeat"}) <= max_ops:
            return chosen
    return {"punctuation", "noop_suffix", "case"}


def _choose_ops(
    slice_: str, phenomena: set[str], source: str, spec: LevelSpec, rng: random.Random
) -> list[str]:
    ops: list[str] = []
    if "case" in phenomena:
        candidates = _changing_case_ops(source)
        if not candidates:
            raise CompileError("no case operation changes this text")
        ops.append(rng.choice(candidates))
    if "deletion" in phenomena:
        ops.append("DROP")
    if "repeat" in phenomena:
        ops.append("REPEAT")
    if not any(op != "DROP" for op in ops):
        ops.append("TAKE")
    low, high = spec.distinct_ops
    target = rng.randint(max(low, len(ops)), max(high, len(ops)))
    extras = [op for op in _EXTRA_OPS[slice_] if op not in ops]
    # Extra case operations are fine outside composite: case is every slice's allowed extra.
    rng.shuffle(extras)
    while len(ops) < target and extras:
        ops.append(extras.pop())
    return ops


def _assign(source: str, ops: list[str], phenomena: set[str], rng: random.Random) -> list[str]:
    """Pick an operation for every source position; every op in `ops` appears at least once."""
    n = len(source)
    if n < len(ops):
        raise CompileError("text shorter than the number of operations")
    weights = [_OP_WEIGHTS[op] for op in ops]
    plan = rng.choices(ops, weights=weights, k=n)
    positions = list(range(n))
    rng.shuffle(positions)
    fixed: set[int] = set()
    if "case" in phenomena:
        case_op = next(op for op in ops if op in CASE_OPERATIONS)
        changing = [i for i in positions if _case(case_op, source[i]) != source[i]]
        if not changing:
            raise CompileError("no letter for the case operation to change")
        plan[changing[0]] = case_op
        fixed.add(changing[0])
    for op in ops:
        if op in plan:
            continue
        free = [i for i in positions if i not in fixed]
        if not free:
            raise CompileError("no free position for every operation")
        plan[free[0]] = op
        fixed.add(free[0])
    return plan


def _dictionary(ops: list[str], spec: LevelSpec, rng: random.Random) -> dict[str, list[str]]:
    """Symbols per operation: one each, plus aliases for the used ops up to the level's size."""
    symbols = rng.sample(SYMBOL_POOL, spec.dictionary_size)
    aliases: dict[str, list[str]] = {op: [symbols[i]] for i, op in enumerate(OPERATIONS)}
    order = list(ops)
    rng.shuffle(order)
    for k, symbol in enumerate(symbols[len(OPERATIONS) :]):
        aliases[order[k % len(order)]].append(symbol)
    return aliases


def _literal_count(slice_: str, phenomena: set[str], spec: LevelSpec, rng: random.Random) -> int:
    if slice_ == "punctuation":
        return rng.randint(spec.min_punctuation_literals, spec.max_literals)
    if "punctuation" in phenomena:
        return rng.randint(1, spec.max_literals)
    return 0


def _insert_literals(symbols: list[str], count: int, rng: random.Random) -> list[str]:
    """Insert `count` literal characters into the consuming symbols (brackets wrap a span)."""
    n = len(symbols)
    gaps: list[list[str]] = [[] for _ in range(n + 1)]
    remaining = count
    if remaining >= 2 and rng.random() < 0.5:
        start = rng.randint(0, n - 1)
        end = rng.randint(start + 1, n)
        opening, closing = rng.choice(BRACKET_PAIRS)
        gaps[start].append(opening)
        gaps[end].insert(0, closing)
        remaining -= 2
    for _ in range(remaining):
        char = rng.choice(LITERAL_POOL)
        gap = rng.randint(1, n - 1) if char == " " else rng.randint(0, n)
        gaps[gap].append(char)
    out: list[str] = []
    for i in range(n + 1):
        out.extend(gaps[i])
        if i < n:
            out.append(symbols[i])
    return out


def _attempt(text: str, slice_: str, level: str, rng: random.Random) -> tuple[str, dict[str, str]]:
    spec = LEVEL_SPECS[level]
    source = text[::-1]
    phenomena = _choose_phenomena(slice_, spec, rng)
    ops = _choose_ops(slice_, phenomena, source, spec, rng)
    plan = _assign(source, ops, phenomena, rng)
    aliases = _dictionary(ops, spec, rng)
    symbols = [rng.choice(aliases[op]) for op in plan]
    tape_chars = _insert_literals(symbols, _literal_count(slice_, phenomena, spec, rng), rng)
    if "noop_suffix" in phenomena:
        pool = [s for op in ops for s in aliases[op]]
        if rng.random() < 0.5:
            pool = [s for group in aliases.values() for s in group]
        tape_chars.extend(rng.choice(pool) for _ in range(rng.randint(*spec.noop_suffix)))
    dictionary = {s: op for op in OPERATIONS for s in aliases[op]}
    return "".join(tape_chars), dictionary


def build_row(text: str, tape: str, dictionary: dict[str, str], slice_: str, level: str) -> dict:
    """Assemble a row dict (without id/source) from its parts, computing targets and diagnostics."""
    return {
        "slice": slice_,
        "complexity_level": level,
        "input": text,
        "dictionary": dict(dictionary),
        "tape": tape,
        "target_lines": list(target_lines(text, tape, dictionary)),
        "diagnostics": measure(text, tape, dictionary),
    }


def compile_row(text: str, slice_: str, level: str, seed: int = 0) -> dict[str, Any]:
    """Compile `text` into a row of `slice_` x `level`.

    Args:
        text: the input S; must already fit the level's source-length band (see fit_text).
        slice_: one of spec.SLICES.
        level: one of spec.LEVELS.
        seed: integer seed; the same (text, slice_, level, seed) always gives the same row.

    Returns:
        A row dict (keys of build_row) that passes validate.row_problems.

    Raises:
        CompileError: the text does not fit, or no attempt produced a valid row.
        ValueError: unknown slice or level.
    """
    if slice_ not in SLICES:
        raise ValueError(f"unknown slice {slice_!r}; valid: {', '.join(SLICES)}")
    if level not in LEVELS:
        raise ValueError(f"unknown level {level!r}; valid: {', '.join(LEVELS)}")
    low, high = LEVEL_SPECS[level].source_length
    if not low <= len(text) <= high:
        raise CompileError(f"text length {len(text)} outside {level} band {low}-{high}")
    fallback: dict[str, Any] | None = None
    last_problem = "no attempt"
    for attempt in range(MAX_ATTEMPTS):
        rng = random.Random(f"pico-dsl-v1|{seed}|{slice_}|{level}|{attempt}|{text}")
        try:
            tape, dictionary = _attempt(text, slice_, level, rng)
        except CompileError as exc:
            last_problem = str(exc)
            continue
        row = build_row(text, tape, dictionary, slice_, level)
        problems = row_problems(row)
        if problems:
            last_problem = problems[0]
            continue
        if not below_soft_floor(row, quality_floor(slice_, level)):
            return row
        fallback = fallback or row
    if fallback is not None:
        return fallback
    raise CompileError(f"no valid {slice_}/{level} row for {text!r}: {last_problem}")


# Words a natural phrase rarely ends on; spans ending on one read as cut off.
DANGLING_WORDS = frozenset(
    "a an the of to and or but in on at by for with from into is are was were my your our "
    "their his her its this that as".split()
)


def fitting_spans(phrase: str, level: str) -> list[str]:
    """Every run of whole words of `phrase` that fits `level`'s source-length band.

    A run starts at the first word or right after a word ending in ",;:-" (a clause start);
    trailing ",;:-" is trimmed from it; runs ending on a dangling word ("the", "of", ...) are
    left out. Ordered by start word, then length, so the result is deterministic.
    """
    low, high = LEVEL_SPECS[level].source_length
    words = phrase.split(" ")
    starts = [0] + [i for i in range(1, len(words)) if words[i - 1][-1:] in (",", ";", ":", "-")]
    spans: list[str] = []
    for i in starts:
        for j in range(i + 1, len(words) + 1):
            span = " ".join(words[i:j]).rstrip(",;:-").strip()
            last = span.split(" ")[-1].lower() if span else ""
            if low <= len(span) <= high and last not in DANGLING_WORDS and span not in spans:
                spans.append(span)
    return spans


def fit_text(phrase: str, level: str) -> str | None:
    """The span of `fitting_spans` starting earliest in the phrase (longest among those)."""
    spans = fitting_spans(phrase, level)
    if not spans:
        return None
    words = phrase.split(" ")
    starts = {
        span: next(i for i in range(len(words)) if " ".join(words[i:]).startswith(span))
        for span in spans
    }
    return min(spans, key=lambda span: (starts[span], -len(span)))
