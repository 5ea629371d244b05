"""The program-task generator: sample pipelines, reject equivalents, pick hidden tests.

Flow: :func:`generate_pool` draws pipelines per difficulty from the grammar with a seeded RNG,
keeps only those whose behavioural fingerprint (oracle outputs on the fixed probe set of their
input type) is new, whose values stay far inside 32 bits, and whose output varies; it then
chooses hidden tests (edge cases + samples), a near-miss mutant with inputs that expose it, and
the deliberately wrong negative control. :func:`program_records` turns a pool entry into the
public/reference/hidden records of one language.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections import Counter
from dataclasses import dataclass
from typing import Any

from smolscript.languages import get_language
from smolscript.types import RETURN_TYPES, canonical_output, encode_stdin

from smolscript_builder.domains import DOMAINS, PROBES, Domain
from smolscript_builder.emit import emit_source
from smolscript_builder.grammar import OPS, Stage, emit_pipeline, run_pipeline
from smolscript_builder.mutants import distinguishing_inputs

# 0.2 (dataset 0.5.0): hidden tests also catch every non-equivalent mutant (mutants.py).
GENERATOR_VERSION = "smolscript-gen-0.2"
VALUE_BOUND = 10**6  # every intermediate int stays within +-VALUE_BOUND (far inside int32)
HIDDEN_TESTS = 12
STAGE_COUNTS = {"easy": (1, 1, 2), "medium": (2, 2, 3), "moderate": (3, 4)}
# Relative draw weights; frequency and combination draws are rejected more often, so they
# are drawn more to give every family a fair share of the pool.
FAMILY_WEIGHTS = {
    "easy": {"arithmetic": 18, "strings": 20, "collections": 24, "frequency": 22,
             "combinations": 16},
    "medium": {"arithmetic": 15, "strings": 18, "collections": 22, "frequency": 22,
               "combinations": 23},
    "moderate": {"arithmetic": 12, "strings": 16, "collections": 22, "frequency": 22,
                 "combinations": 28},
}
FAMILY_INPUTS = {
    "arithmetic": ("int",),
    "strings": ("str",),
    "collections": ("list[int]", "list[int]", "list[str]"),
    "frequency": ("list[int]", "str", "list[str]"),
    "combinations": ("int", "str", "list[int]", "list[str]"),
}
MAX_PER_STRUCTURE = 1  # variants must change operations, not only constants


class GenerationError(RuntimeError):
    """The grammar could not supply the requested number of distinct tasks."""


@dataclass(frozen=True)
class NearMiss:
    """A plausible wrong pipeline and the hidden-test indices that expose it."""

    stages: tuple[Stage, ...]
    description: str
    test_indices: tuple[int, ...]


@dataclass(frozen=True)
class TaskDef:
    """One language-neutral program task (translated into every language that uses it)."""

    key: str
    difficulty: str
    domain: Domain
    stages: tuple[Stage, ...]
    family: str
    category: str
    fingerprint: str
    tests: tuple[Any, ...]  # hidden-test inputs (single argument each)
    near_miss: NearMiss | None

    @property
    def out_type(self) -> str:
        """The return type."""
        return self.stages[-1].spec.out_type

    @property
    def signature(self) -> dict[str, Any]:
        """The language-neutral signature."""
        return {
            "params": [{"name": self.domain.param, "type": self.domain.kind}],
            "returns": self.out_type,
        }

    def instruction(self) -> str:
        """The task comment: the pipeline in words."""
        phrases = [stage.spec.phrase(stage.arg) for stage in self.stages]
        text = f"Start from {self.domain.param}: " + "; then ".join(phrases) + "."
        ending = " Return true or false." if self.out_type == "bool" else " Return the final value."
        return text + ending


def stage_key(stages: tuple[Stage, ...]) -> str:
    """Canonical text of a pipeline, e.g. ``filter:gt:5>sum``."""
    return ">".join(f"{s.op}:{s.arg}" if s.arg else s.op for s in stages)


def structure_key(kind: str, stages: tuple[Stage, ...]) -> str:
    """The operation structure: input type, ops and the kinds (not constants) of their
    arguments, e.g. ``list[int]|filter:gt>map:add>sum``; ``take:3``/``wjoin:-`` give ``K``."""

    def kind_of(arg: str) -> str:
        return arg.split(":")[0] if arg[:1].isalpha() else "K"

    return kind + "|" + ">".join(f"{s.op}:{kind_of(s.arg)}" if s.arg else s.op for s in stages)


def family_of(stages: tuple[Stage, ...]) -> str:
    """frequency if any frequency op, combinations if ops of 2+ families, else that family."""
    families = {stage.spec.family for stage in stages}
    if "frequency" in families:
        return "frequency"
    return "combinations" if len(families) > 1 else families.pop()


def fingerprint(kind: str, stages: tuple[Stage, ...]) -> str:
    """SHA256 of the oracle outputs on the fixed probe set of input type ``kind``."""
    outputs = [run_pipeline(stages, probe)[0] for probe in PROBES[kind]]
    return hashlib.sha256(json.dumps([kind, outputs]).encode()).hexdigest()


def _ints(value: Any) -> list[int]:
    if isinstance(value, bool) or isinstance(value, str):
        return []
    if isinstance(value, int):
        return [value]
    return [x for x in value if isinstance(x, int)]


def _in_bounds(stages: tuple[Stage, ...], value: Any) -> bool:
    _, trace = run_pipeline(stages, value)
    return all(abs(x) <= VALUE_BOUND for step in trace for x in _ints(step))


def _sample_stages(rng: random.Random, family: str, kind: str, count: int) -> tuple[Stage, ...]:
    allowed = {
        "arithmetic": {"arithmetic"},
        "strings": {"strings"},
        "collections": {"collections"},
        "frequency": {"frequency", "arithmetic", "strings", "collections"},
        "combinations": {"arithmetic", "strings", "collections"},
    }[family]
    stages: list[Stage] = []
    current = kind
    for index in range(count):
        last = index == count - 1
        options = sorted(
            name
            for name, op in OPS.items()
            if op.in_type == current
            and op.family in allowed
            and (op.out_type in RETURN_TYPES if last else op.out_type != "bool")
            and not (stages and stages[-1].op == name)
        )
        if not options:
            break
        name = rng.choice(options)
        stages.append(Stage(name, rng.choice(OPS[name].args)))
        current = OPS[name].out_type
    return tuple(stages)


def _near_miss(
    stages: tuple[Stage, ...], tests: list[Any], domain: Domain, rng: random.Random
) -> tuple[NearMiss | None, list[Any]]:
    """Find a near-miss (a dropped type-preserving stage, else a weakened predicate) and the
    hidden inputs that distinguish it; may append up to 2 distinguishing inputs to ``tests``."""
    candidates: list[tuple[tuple[Stage, ...], str]] = []
    for index, stage in enumerate(stages):
        spec = stage.spec
        if len(stages) > 1 and spec.in_type == spec.out_type:
            mutant = stages[:index] + stages[index + 1 :]
            candidates.append((mutant, f"stage {index + 1} ({stage_key((stage,))}) left out"))
    for index, stage in enumerate(stages):
        near = stage.spec.near(stage.arg)
        if near:
            mutant = stages[:index] + (Stage(stage.op, near),) + stages[index + 1 :]
            candidates.append((mutant, f"stage {index + 1} predicate {stage.arg} -> {near}"))
    for mutant, description in candidates:
        if (
            mutant[0].spec.in_type != domain.kind
            or mutant[-1].spec.out_type != stages[-1].spec.out_type
        ):
            continue
        pool = list(tests)
        differs = [
            i
            for i, x in enumerate(pool)
            if run_pipeline(mutant, x)[0] != run_pipeline(stages, x)[0]
        ]
        extra: list[Any] = []
        if not differs:
            for _ in range(400):
                x = domain.sample(rng)
                if x in pool or x in extra or not (_in_bounds(stages, x) and _in_bounds(mutant, x)):
                    continue
                if run_pipeline(mutant, x)[0] != run_pipeline(stages, x)[0]:
                    extra.append(x)
                    if len(extra) == 2:
                        break
            differs = list(range(len(pool), len(pool) + len(extra)))
        if differs and all(_in_bounds(mutant, x) for x in pool + extra):
            return NearMiss(mutant, description, tuple(differs)), extra
    return None, []


def _hidden_inputs(stages: tuple[Stage, ...], domain: Domain, rng: random.Random) -> list[Any]:
    tests: list[Any] = []
    for x in domain.edge_cases() + [domain.sample(rng) for _ in range(60)]:
        if x not in tests and _in_bounds(stages, x):
            tests.append(x)
        if len(tests) == HIDDEN_TESTS:
            break
    return tests


def _has_redundant_stage(stages: tuple[Stage, ...], kind: str, outputs: list[Any]) -> bool:
    """True when leaving out some type-preserving stage changes no probe output."""
    for index, stage in enumerate(stages):
        if len(stages) > 1 and stage.spec.in_type == stage.spec.out_type:
            rest = stages[:index] + stages[index + 1 :]
            if [run_pipeline(rest, p)[0] for p in PROBES[kind]] == outputs:
                return True
    return False


def _varied(outputs: list[Any]) -> bool:
    """Enough different outputs: 3+ distinct values, or both booleans at least twice."""
    if isinstance(outputs[0], bool):
        trues = sum(1 for o in outputs if o)
        return min(trues, len(outputs) - trues) >= max(2, len(outputs) // 8)
    return len({json.dumps(o) for o in outputs}) >= 3


def generate_pool(sizes: dict[str, int], seed: int = 0) -> list[TaskDef]:
    """Draw ``sizes[difficulty]`` distinct task definitions per difficulty (deterministic).

    Raises GenerationError when the grammar runs out of new behaviours.
    """
    seen: set[str] = set()
    pool: list[TaskDef] = []
    structures: Counter[str] = Counter()  # shared by all difficulties
    for difficulty, size in sizes.items():
        rng = random.Random(f"smolscript:{seed}:{difficulty}")
        families = sorted(FAMILY_WEIGHTS[difficulty])
        weights = [FAMILY_WEIGHTS[difficulty][f] for f in families]
        made, attempts = 0, 0
        while made < size:
            attempts += 1
            if attempts > 200 * size:
                raise GenerationError(
                    f"only {made} of {size} {difficulty} tasks after {attempts} draws"
                )
            family = rng.choices(families, weights)[0]
            kind = rng.choice(FAMILY_INPUTS[family])
            lengths = STAGE_COUNTS[difficulty]
            if family == "combinations":  # crossing families takes at least two stages
                lengths = tuple(n for n in lengths if n >= 2)
            stages = _sample_stages(rng, family, kind, rng.choice(lengths))
            if not stages or stages[-1].spec.out_type not in RETURN_TYPES:
                continue
            if len(stages) not in STAGE_COUNTS[difficulty] or family_of(stages) != family:
                continue
            structure = structure_key(kind, stages)
            if structures[structure] >= MAX_PER_STRUCTURE:
                continue
            domain = DOMAINS[difficulty][kind]
            probe_outputs = [run_pipeline(stages, p)[0] for p in PROBES[kind]]
            if not _varied(probe_outputs) or probe_outputs == PROBES[kind]:
                continue
            if _has_redundant_stage(stages, kind, probe_outputs):
                continue
            print_ = fingerprint(kind, stages)
            if print_ in seen:
                continue
            tests = _hidden_inputs(stages, domain, rng)
            if len(tests) < HIDDEN_TESTS or not _varied(
                [run_pipeline(stages, x)[0] for x in tests]
            ):
                continue
            near, extra = _near_miss(stages, tests, domain, rng)
            seen.add(print_)
            structures[structure] += 1
            key = f"{difficulty}|{kind}|{stage_key(stages)}"
            # A seed of its own: the draws above (and so the pool) stay those of 0.4.0.
            extra += distinguishing_inputs(
                stages, domain, tests + extra, f"smolscript-mutants:{seed}:{key}", _in_bounds
            )
            pool.append(
                TaskDef(
                    key=key,
                    difficulty=difficulty,
                    domain=domain,
                    stages=stages,
                    family=family,
                    category=stages[-1].spec.category,
                    fingerprint=print_,
                    tests=tuple(tests + extra),
                    near_miss=near,
                )
            )
            made += 1
    return pool


def parse_stage(text: str) -> Stage:
    """Inverse of ``stage_key`` for one stage (``filter:gt:5`` -> Stage('filter', 'gt:5'))."""
    op, _, arg = text.partition(":")
    if op not in OPS:
        raise KeyError(f"unknown operation {op!r}")
    return Stage(op, arg)


def task_id(language: str, task: TaskDef) -> str:
    """Stable id: language plus a hash of the language-neutral key (same in every edition)."""
    return f"{language}-{hashlib.sha256(task.key.encode()).hexdigest()[:10]}"


def program_records(language: str, task: TaskDef) -> tuple[dict, dict, dict]:
    """(public row, reference row, hidden-test row) of ``task`` in ``language`` (pure)."""
    spec = get_language(language)
    signature = task.signature
    param, out_type = task.domain.param, task.out_type
    identifier = task_id(language, task)
    reference = emit_source(language, emit_pipeline(task.stages, param, out_type), signature)
    negative = emit_source(
        language, emit_pipeline(task.stages, param, out_type, negative=True), signature
    )
    near = task.near_miss
    near_source = (
        emit_source(language, emit_pipeline(near.stages, param, out_type), signature)
        if near
        else None
    )
    tests_public = [{"args": [x]} for x in task.tests]
    hidden = []
    for x in task.tests:
        expected = run_pipeline(task.stages, x)[0]
        hidden.append(
            {
                "args": [x],
                "stdin": encode_stdin([x], signature),
                "expected": expected,
                "expected_output": canonical_output(expected, out_type),
            }
        )
    public = {
        "id": identifier,
        "language": language,
        "difficulty": task.difficulty,
        "family": task.family,
        "category": task.category,
        "modality": "program",
        "instruction": task.instruction(),
        "input_domain": task.domain.describe(),
        "entry_point": spec.entry_point,
        "signature": signature,
        "prefix": spec.entry_header(signature),
        "imports": spec.imports,
        "fixture": None,
        "base_styles": None,
        "tests": tests_public,
        "reference_solution": None,
        "metadata": {
            "generator": GENERATOR_VERSION,
            "task_key": task.key,
            "stages": [stage_key((s,)) for s in task.stages],
            "fingerprint": task.fingerprint,
            "comment": spec.comment,
        },
    }
    references = {
        "id": identifier,
        "reference_solution": reference,
        "negative_control": negative,
        "near_miss": near_source,
        "near_miss_description": near.description if near else None,
        "near_miss_stages": [stage_key((s,)) for s in near.stages] if near else None,
    }
    private = {
        "id": identifier,
        "tests": hidden,
        "near_miss_tests": list(near.test_indices) if near else [],
    }
    return public, references, private
