"""Mutants of a program task's own pipeline, and the inputs that tell them from the task.

A wrong program a model is likely to write is often the task's pipeline with one small slip: a
constant off by one (``n < -3`` for "less than -2", the first 7 characters for "the first 8"),
a comparison swapped (``>=`` for ``>``, ``<`` for ``>``, ``min`` for ``max``), a stage left
out, or the stages in another order. :func:`mutants` lists every such pipeline of a task (four
families, :data:`FAMILIES`); :func:`classify` says whether the task's hidden tests catch each
one (some hidden test's expected value differs from the mutant's), and, when they do not,
searches the input domain for an input that does (a mutant no input distinguishes is
equivalent to the task and not a wrong program). :func:`distinguishing_inputs` picks the few
extra hidden inputs that catch every non-equivalent mutant (the generator appends them).

Everything is computed with the grammar's Python oracle (``run_pipeline``), whose agreement
with the seven emitted references the static and execution validations check; the full
validation also executes the mutants in the scoring service. Pure code: a seeded
``random.Random`` per task, no files, clock or environment.
"""

from __future__ import annotations

import itertools
import random
import re
import string
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from smolscript_builder.domains import PROBES, WORD_POOL, Domain
from smolscript_builder.grammar import Stage, run_pipeline

FAMILIES: tuple[str, ...] = ("constant", "comparison", "drop", "reorder")
SEARCH_SAMPLES = 3000  # random domain inputs tried after the boundary inputs
MAX_EXTRA = 8  # at most this many inputs are added to a task's hidden tests
_INT = re.compile(r"-?\d+")
# Comparison swaps of a predicate or mapping name: the strictness swap, then the direction swap.
_SWAPS: dict[str, tuple[str, ...]] = {
    "gt": ("ge", "lt"), "ge": ("gt", "le"), "lt": ("le", "gt"), "le": ("lt", "ge"),
    "pos": ("nonneg", "neg"), "nonneg": ("pos", "nonpos"),
    "neg": ("nonpos", "pos"), "nonpos": ("neg", "nonneg"),
    "longer": ("atleast", "shorter"), "atleast": ("longer", "atmost"),
    "shorter": ("atmost", "longer"), "atmost": ("shorter", "atleast"),
    "max": ("min",), "min": ("max",),
}
_OP_SWAPS = {"max0": "min0", "min0": "max0"}


@dataclass(frozen=True)
class Mutant:
    """One mutant pipeline: its family (:data:`FAMILIES`), stages and a short description."""

    family: str
    stages: tuple[Stage, ...]
    description: str


@dataclass(frozen=True)
class Verdict:
    """How a task's hidden tests fare against one mutant.

    ``status``: "caught" (hidden test ``test_index`` tells it apart), "survived" (no hidden
    test does; ``witness`` is a domain input that does) or "equivalent" (no input among the
    ``searched`` domain inputs tells it apart: not a wrong program as far as known).
    """

    mutant: Mutant
    status: str
    test_index: int | None = None
    witness: Any = None
    searched: int = 0


def _key(stages: Sequence[Stage]) -> str:
    return ">".join(f"{s.op}:{s.arg}" if s.arg else s.op for s in stages)


def _well_typed(stages: Sequence[Stage], kind: str, out_type: str) -> bool:
    current = kind
    for stage in stages:
        if stage.spec.in_type != current:
            return False
        current = stage.spec.out_type
    return current == out_type


def _constant_args(arg: str) -> Iterator[tuple[str, str]]:
    """(mutated argument, what changed) for each integer in ``arg`` moved by -1 and +1."""
    parts = arg.split(":")
    for index, part in enumerate(parts):
        if _INT.fullmatch(part):
            for delta in (-1, 1):
                value = int(part) + delta
                changed = parts[:index] + [str(value)] + parts[index + 1:]
                yield ":".join(changed), f"{part} -> {value}"


def _swapped_args(arg: str) -> Iterator[tuple[str, str]]:
    name, sep, rest = arg.partition(":")
    for other in _SWAPS.get(name, ()):
        yield other + sep + rest, f"{name} -> {other}"


def _valid(stages: tuple[Stage, ...], kind: str) -> bool:
    """The pipeline runs on every probe of its input type (an argument like ``div:0`` or a
    negative take length does not)."""
    try:
        for probe in PROBES[kind]:
            run_pipeline(stages, probe)
    except (ArithmeticError, ValueError, KeyError, IndexError, TypeError):
        return False
    if any(s.op == "take" and int(s.arg) < 0 for s in stages):
        return False
    return True


def mutants(stages: tuple[Stage, ...], kind: str) -> list[Mutant]:
    """Every mutant of ``stages`` (input type ``kind``) in the four families, deduplicated,
    in a fixed order; a mutant is well typed, runs on the probes and differs from the task
    as a pipeline (it may still be equivalent as a function: see :func:`classify`)."""
    out_type = stages[-1].spec.out_type
    found: dict[str, Mutant] = {}

    def add(family: str, these: tuple[Stage, ...], description: str) -> None:
        key = _key(these)
        if (key != _key(stages) and key not in found and _well_typed(these, kind, out_type)
                and _valid(these, kind)):
            found[key] = Mutant(family, these, description)

    for index, stage in enumerate(stages):
        for arg, what in _constant_args(stage.arg):
            add("constant", _replace(stages, index, Stage(stage.op, arg)),
                f"stage {index + 1} constant {what}")
    for index, stage in enumerate(stages):
        for arg, what in _swapped_args(stage.arg):
            add("comparison", _replace(stages, index, Stage(stage.op, arg)),
                f"stage {index + 1} comparison {what}")
        if stage.op in _OP_SWAPS:
            add("comparison", _replace(stages, index, Stage(_OP_SWAPS[stage.op], stage.arg)),
                f"stage {index + 1} {stage.op} -> {_OP_SWAPS[stage.op]}")
    for index, stage in enumerate(stages):
        add("drop", stages[:index] + stages[index + 1:],
            f"stage {index + 1} ({_key((stage,))}) left out")
    for order in itertools.permutations(range(len(stages))):
        add("reorder", tuple(stages[i] for i in order),
            "stages in the order " + ", ".join(str(i + 1) for i in order))
    return list(found.values())


def _replace(stages: tuple[Stage, ...], index: int, stage: Stage) -> tuple[Stage, ...]:
    return stages[:index] + (stage,) + stages[index + 1:]


def _output(stages: tuple[Stage, ...], value: Any) -> Any:
    try:
        return run_pipeline(stages, value)[0]
    except (ArithmeticError, ValueError, IndexError, TypeError):
        return _Failure()


class _Failure:
    """The result of a mutant that raises: different from every value (it is caught)."""

    def __eq__(self, other: object) -> bool:
        return False

    __hash__ = None  # type: ignore[assignment]


def _constants(stages: Sequence[Stage]) -> list[int]:
    return sorted({int(p) for s in stages for p in s.arg.split(":") if _INT.fullmatch(p)})


def boundary_inputs(domain: Domain, stages: Sequence[Stage]) -> list[Any]:
    """Inputs of ``domain`` at each constant K of ``stages`` (K-1, K and K+1 as a value, a
    length or a word length), longer than each take length, and short orderings of boundary
    values (which tell reordered stages apart); all inside the domain, deduplicated."""
    ks = _constants(stages)
    out: list[Any] = []

    def add(value: Any) -> None:
        if value not in out:
            out.append(value)

    if domain.kind == "int":
        for value in sorted({k + d for k in ks for d in (-1, 0, 1)}):
            if domain.lo <= value <= domain.hi:
                add(value)
        return out
    if domain.kind == "list[int]":
        values = sorted({v for k in ks for v in (k - 1, k, k + 1)} | {-2, -1, 0, 1, 2, 3})
        values = [v for v in values if domain.lo <= v <= domain.hi]
        for value in values:
            add([value])
        for a, b in itertools.permutations(values, 2):
            add([a, b])
        for a, b, c in itertools.permutations(values[:6], 3):
            add([a, b, c])
        return out
    if domain.kind == "str":
        alphabet = "aB3 e!Zx9oQ,u7Ki? "
        lengths = sorted({k + d for k in ks for d in (-1, 0, 1, 2)} | {domain.max_len})
        for length in lengths:
            if 0 <= length <= domain.max_len:
                for shift in range(3):
                    add("".join(alphabet[(i + shift) % len(alphabet)] for i in range(length)))
        return out
    lengths = sorted({k + d for k in ks for d in (-1, 0, 1)} & set(range(1, 7)))
    words = [("oak" + "tree")[:n] for n in lengths] + [("bcdfgh")[:n] for n in lengths]
    for size in range(1, min(domain.max_len, 4) + 1):
        for combo in itertools.permutations(words, size) if len(words) >= size else ():
            add(list(combo))
    return out


def _random_word(rng: random.Random) -> str:
    if rng.random() < 0.5:
        return rng.choice(WORD_POOL)
    return "".join(rng.choice(string.ascii_lowercase) for _ in range(rng.randint(1, 6)))


def search_inputs(domain: Domain, stages: Sequence[Stage], seed: str) -> list[Any]:
    """The inputs tried when looking for a distinguishing input: boundary inputs, then (int
    domains) every integer of the domain, else :data:`SEARCH_SAMPLES` seeded random inputs."""
    out = boundary_inputs(domain, stages)
    if domain.kind == "int":
        return out + [x for x in range(domain.lo, domain.hi + 1) if x not in out]
    rng = random.Random(seed)
    for _ in range(SEARCH_SAMPLES):
        if domain.kind == "list[str]":
            out.append([_random_word(rng) for _ in range(rng.randint(0, domain.max_len))])
        else:
            out.append(domain.sample(rng))
    return out


def classify(stages: tuple[Stage, ...], domain: Domain, tests: Sequence[Any],
             seed: str, search: bool = True) -> list[Verdict]:
    """Verdicts of every mutant of ``stages`` against the hidden-test inputs ``tests``.

    A mutant no hidden test catches is searched for a witness among ``search_inputs`` (only
    inputs whose reference run stays in bounds); ``search=False`` marks it survived without
    a witness (cheaper, when only the catch share is wanted and equivalence is known)."""
    expected = [_output(stages, x) for x in tests]
    verdicts = []
    candidates: list[Any] | None = None
    for mutant in mutants(stages, domain.kind):
        hit = next((i for i, x in enumerate(tests) if _output(mutant.stages, x) != expected[i]),
                   None)
        if hit is not None:
            verdicts.append(Verdict(mutant, "caught", test_index=hit))
            continue
        if not search:
            verdicts.append(Verdict(mutant, "survived"))
            continue
        if candidates is None:
            candidates = search_inputs(domain, stages, seed)
        witness = next((x for x in candidates
                        if _output(mutant.stages, x) != _output(stages, x)), _NONE)
        if witness is _NONE:
            verdicts.append(Verdict(mutant, "equivalent", searched=len(candidates)))
        else:
            verdicts.append(Verdict(mutant, "survived", witness=witness))
    return verdicts


_NONE = object()


def distinguishing_inputs(stages: tuple[Stage, ...], domain: Domain, tests: Sequence[Any],
                          seed: str, in_bounds: Any) -> list[Any]:
    """Extra hidden inputs (at most :data:`MAX_EXTRA`, greedy) that catch every mutant of
    ``stages`` that ``tests`` miss and some domain input catches. ``in_bounds(stages, x)``
    says whether an input keeps the reference's values in bounds (others are never chosen).
    Raises ValueError when more than :data:`MAX_EXTRA` would be needed."""
    missed = [v.mutant for v in classify(stages, domain, tests, seed, search=False)
              if v.status == "survived"]
    if not missed:
        return []
    candidates = [x for x in search_inputs(domain, stages, seed)
                  if x not in tests and in_bounds(stages, x)]
    reference = [_output(stages, x) for x in candidates]
    catches = [{i for i, m in enumerate(missed) if _output(m.stages, x) != reference[j]}
               for j, x in enumerate(candidates)]
    left = set().union(*catches) if catches else set()  # the non-equivalent ones
    chosen: list[Any] = []
    while left:
        best = max(range(len(candidates)), key=lambda j: (len(catches[j] & left), -j))
        chosen.append(candidates[best])
        left -= catches[best]
    if len(chosen) > MAX_EXTRA:
        raise ValueError(f"{_key(stages)}: {len(chosen)} extra inputs needed")
    return chosen
