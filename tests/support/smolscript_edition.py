"""Tiny smolscript editions written to a temporary folder, for the tests of the evaluator, the
environment, the rubric and the builder's validator that do not need the full dataset.

An edition is the three files the runtime and the validator read: `smolscript.jsonl` (the
tasks), `private_tests/hidden.jsonl` (hidden tests) and `references/solutions.jsonl`
(reference, negative control, optional near miss). `write_edition` writes any list of
`TinyTask`s (Python, `solve(n)` with an int argument); `adder_tasks` is the common edition of
tasks `n + i`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

INT_SIGNATURE = {"params": [{"name": "n", "type": "int"}], "returns": "int"}
PREFIX = "def solve(n):\n"  # LANGUAGES["python"]'s imports ("") and entry header for INT_SIGNATURE


@dataclass(frozen=True)
class TinyTask:
    """One Python task `solve(n)` of a tiny edition.

    tests: the hidden tests, (argument n, expected value) pairs.
    near_miss / near_miss_tests: the builder's near-miss solution and the indices of the
        hidden tests that tell it apart (both written only when given).
    """

    id: str
    reference: str
    negative: str
    tests: tuple[tuple[int, Any], ...]
    returns: str = "int"
    instruction: str = ""
    near_miss: str | None = None
    near_miss_tests: tuple[int, ...] = ()

    def row(self) -> dict:
        """The task's smolscript.jsonl row (the prompt prefix included, as built rows are)."""
        return {"id": self.id, "language": "python", "difficulty": "easy",
                "modality": "program", "entry_point": "solve",
                "signature": {**INT_SIGNATURE, "returns": self.returns}, "prefix": PREFIX,
                "imports": "", "instruction": self.instruction,
                "input_domain": "Integer n from 0 to 9.", "tests": []}

    def hidden(self) -> dict:
        """The task's private_tests/hidden.jsonl row."""
        hidden = {"id": self.id, "tests": [{"args": [n], "expected": expected}
                                           for n, expected in self.tests]}
        if self.near_miss_tests:
            hidden["near_miss_tests"] = list(self.near_miss_tests)
        return hidden

    def solutions(self) -> dict:
        """The task's references/solutions.jsonl row."""
        refs = {"id": self.id, "reference_solution": self.reference,
                "negative_control": self.negative}
        if self.near_miss is not None:
            refs["near_miss"] = self.near_miss
        return refs


def write_edition(root: Path, tasks: list[TinyTask]) -> list[dict]:
    """Write the edition of `tasks` under `root` (created); returns the solutions rows, in
    order."""
    (root / "private_tests").mkdir(parents=True, exist_ok=True)
    (root / "references").mkdir(exist_ok=True)
    files = (("smolscript.jsonl", [t.row() for t in tasks]),
             ("private_tests/hidden.jsonl", [t.hidden() for t in tasks]),
             ("references/solutions.jsonl", [t.solutions() for t in tasks]))
    for name, rows in files:
        (root / name).write_text("".join(json.dumps(r) + "\n" for r in rows))
    return files[2][1]


def adder_tasks(count: int = 6, returns: str = "int") -> list[TinyTask]:
    """Tasks `python-easy-000`.. : solve(n) = n + i (`returns="str"`: str(n + i)), three hidden
    tests each (n = 0, 1, 2), negative control n - i - 1.

    Raises:
        ValueError: `returns` is neither "int" nor "str".
    """
    if returns not in ("int", "str"):
        raise ValueError(f"returns must be 'int' or 'str', got {returns!r}")
    wrap = "{}" if returns == "int" else "str({})"
    value = int if returns == "int" else str
    return [TinyTask(id=f"python-easy-{i:03d}",
                     reference=f"{PREFIX}    return {wrap.format(f'n + {i}')}\n",
                     negative=f"{PREFIX}    return {wrap.format(f'n - {i} - 1')}\n",
                     tests=tuple((n, value(n + i)) for n in range(3)), returns=returns,
                     instruction=f"Add {i}.")
            for i in range(count)]


async def rubric_rewards(root: Path, monkeypatch, completions: list[str],
                         returns: str = "int") -> list[float]:
    """The rewards of `completions` (bodies of task `python-easy-001`, solve(n) = n + 1 or
    str(n + 1)) through the real rubric of `load_environment`, with a tiny edition of 2 tasks
    written under `root` and the scoring service at TEST_URL."""
    from smolscript.env import load_environment
    from smolscript_sandbox.testing import TEST_URL

    write_edition(root, adder_tasks(2, returns=returns))
    monkeypatch.setenv("SMOLSCRIPT_DATA_DIR", str(root))
    env = load_environment(service_url=TEST_URL)
    states = [{"info": {"id": "python-easy-001"}, "completion": text, "prompt": "",
               "answer": "", "trajectory": [], "example_id": 0} for text in completions]
    await env.rubric.score_group(states)
    return [state["reward"] for state in states]
