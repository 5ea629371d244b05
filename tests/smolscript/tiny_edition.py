"""A tiny smolscript edition written to a temporary folder (Python tasks `n + i`), for tests of
the evaluator and environment logic that do not need the full dataset."""

from __future__ import annotations

import json
from pathlib import Path

SIG = {"params": [{"name": "n", "type": "int"}], "returns": "int"}


def write_edition(root: Path, count: int = 6, returns: str = "int") -> list[dict]:
    """Write smolscript.jsonl, hidden tests and references under `root`; returns the refs.

    `returns="str"` makes the tasks `str(n + i)` (string results) instead of `n + i`."""
    if returns not in ("int", "str"):
        raise ValueError(f"returns must be 'int' or 'str', got {returns!r}")
    wrap = "{}" if returns == "int" else "str({})"
    value = int if returns == "int" else str
    (root / "private_tests").mkdir(parents=True)
    (root / "references").mkdir()
    tasks, hidden, refs = [], [], []
    for i in range(count):
        tid = f"python-easy-{i:03d}"
        tasks.append({"id": tid, "language": "python", "difficulty": "easy",
                      "modality": "program", "entry_point": "solve",
                      "signature": {**SIG, "returns": returns},
                      "prefix": "def solve(n):\n", "imports": "", "instruction": f"Add {i}.",
                      "input_domain": "Integer n from 0 to 9.", "tests": []})
        hidden.append({"id": tid,
                       "tests": [{"args": [n], "expected": value(n + i)} for n in range(3)]})
        refs.append({"id": tid,
                     "reference_solution": f"def solve(n):\n    return {wrap.format(f'n + {i}')}\n",
                     "negative_control":
                         f"def solve(n):\n    return {wrap.format(f'n - {i} - 1')}\n"})
    for name, rows in (("smolscript.jsonl", tasks), ("private_tests/hidden.jsonl", hidden),
                       ("references/solutions.jsonl", refs)):
        (root / name).write_text("".join(json.dumps(r) + "\n" for r in rows))
    return refs


async def rubric_rewards(root: Path, monkeypatch, completions: list[str],
                         returns: str = "int") -> list[float]:
    """The rewards of `completions` (bodies of task `python-easy-001`, solve(n) = n + 1 or
    str(n + 1)) through the real rubric of `load_environment`, with a tiny edition of 2 tasks
    written under `root` and the scoring service at TEST_URL."""
    from smolscript.env import load_environment
    from smolscript_sandbox.testing import TEST_URL

    write_edition(root, 2, returns=returns)
    monkeypatch.setenv("SMOLSCRIPT_DATA_DIR", str(root))
    env = load_environment(service_url=TEST_URL)
    states = [{"info": {"id": "python-easy-001"}, "completion": text, "prompt": "",
               "answer": "", "trajectory": [], "example_id": 0} for text in completions]
    await env.rubric.score_group(states)
    return [state["reward"] for state in states]
