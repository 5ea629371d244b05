"""The task registry: every benchmark's name, kind, headline metric, data source and licence.

Pure constants; `data.py` resolves the rows, `env.py` builds the environments from this table.
"""

from __future__ import annotations

from dataclasses import dataclass

MC, MATH, BFCL = "multiple_choice", "math", "function_calling"

# The seed's seven single-turn BFCL v4 categories (prompting mode): the `bfcl_v4` task.
BFCL_CATEGORIES = (
    "simple_python", "simple_java", "simple_javascript",
    "multiple", "parallel", "parallel_multiple", "irrelevance",
)
# The seed's four multi-turn categories: tasks by name (`bfcl_v4_<category>`), outside the
# `bfcl_v4` group (their official metric is interactive; Tier 1 on the first turn only).
BFCL_MULTI_TURN = (
    "multi_turn_base", "multi_turn_miss_func", "multi_turn_miss_param", "multi_turn_long_context",
)
BFCL_ALL = BFCL_CATEGORIES + BFCL_MULTI_TURN


@dataclass(frozen=True)
class TaskSpec:
    """One benchmark.

    Attributes:
        name: task name as `load_environment(task=...)` takes it.
        kind: MC (log-likelihood multiple choice), MATH (generation) or BFCL (generation).
        metric: the headline metric (the reward) as the seed reports it.
        rows: rows in the full evaluation split.
        hub_id, hub_config, hub_split: the original data set on the Hugging Face Hub.
        licence: SPDX id of the data's licence.
        chance: chance level in percent for multiple choice (None otherwise).
    """

    name: str
    kind: str
    metric: str
    rows: int
    hub_id: str
    hub_config: str | None
    hub_split: str
    licence: str
    chance: float | None = None


TASKS: dict[str, TaskSpec] = {
    "hellaswag": TaskSpec("hellaswag", MC, "acc_norm", 10042, "Rowan/hellaswag", None,
                          "validation", "MIT", 25.0),
    "arc_easy": TaskSpec("arc_easy", MC, "acc_norm", 2376, "allenai/ai2_arc", "ARC-Easy",
                         "test", "CC-BY-SA-4.0", 25.0),
    "arc_challenge": TaskSpec("arc_challenge", MC, "acc_norm", 1172, "allenai/ai2_arc",
                              "ARC-Challenge", "test", "CC-BY-SA-4.0", 25.0),
    "arithmark_3_0": TaskSpec("arithmark_3_0", MC, "acc", 0, "AxiomicLabs/Arithmark-3.0", None,
                              "test", "Apache-2.0", 25.0),
    "arithmark_2": TaskSpec("arithmark_2", MC, "acc", 0, "AxiomicLabs/ArithMark-2.0", None,
                            "test", "Apache-2.0", 25.0),
    "math_500": TaskSpec("math_500", MATH, "exact_match", 500, "HuggingFaceH4/MATH-500", None,
                         "test", "MIT"),
    "gpqa_diamond": TaskSpec("gpqa_diamond", MC, "acc_norm", 198, "Idavidrein/gpqa",
                             "gpqa_diamond", "train", "CC-BY-4.0", 25.0),
    "bfcl_v4": TaskSpec("bfcl_v4", BFCL, "function_name_match", 1390, "bfcl-eval (PyPI)", None,
                        "-", "Apache-2.0"),
    **{f"bfcl_v4_{c}": TaskSpec(f"bfcl_v4_{c}", BFCL, "function_name_match", 200,
                                "bfcl-eval (PyPI)", None, "-", "Apache-2.0")
       for c in BFCL_MULTI_TURN},
}

# The seed's `int_index` group runs ArithMark 2.0 too (reported apart; not a component).
INT_INDEX_TASKS = ("hellaswag", "arc_easy", "arc_challenge", "arithmark_2", "arithmark_3_0")
GROUPS = {"int_index": INT_INDEX_TASKS, "slm": tuple(TASKS)}


def bfcl_task_category(task: str) -> str | None:
    """The multi-turn category of a `bfcl_v4_<category>` task, else None."""
    return task[len("bfcl_v4_"):] if task.startswith("bfcl_v4_") else None


def task_names() -> list[str]:
    """Every valid `task` argument: the benchmarks (the eight, then the four BFCL multi-turn
    tasks), then the groups."""
    return [*TASKS, *GROUPS]

# Metric names each kind reports (the rubric's columns; env.py checks it against its functions).
KIND_METRICS = {
    MC: ("acc", "acc_norm"),
    MATH: ("exact_match", "unparseable", "empty_response", "not_scorable"),
    BFCL: ("valid_json", "function_name_match", "ast_match", "empty_response", "not_scorable"),
}
DIAGNOSTICS = frozenset({"unparseable", "empty_response", "not_scorable"})
