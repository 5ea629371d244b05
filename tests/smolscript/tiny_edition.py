"""A tiny smolscript edition written to a temporary folder (Python tasks `n + i`), for tests of
the evaluator and environment logic that do not need the full dataset."""

from __future__ import annotations

import json
from pathlib import Path

SIG = {"params": [{"name": "n", "type": "int"}], "returns": "int"}


def write_edition(root: Path, count: int = 6) -> list[dict]:
    """Write smolscript.jsonl, hidden tests and references under `root`; returns the refs."""
    (root / "private_tests").mkdir(parents=True)
    (root / "references").mkdir()
    tasks, hidden, refs = [], [], []
    for i in range(count):
        tid = f"python-easy-{i:03d}"
        tasks.append({"id": tid, "language": "python", "difficulty": "easy",
                      "modality": "program", "entry_point": "solve", "signature": SIG,
                      "prefix": "def solve(n):\n", "imports": "", "instruction": f"Add {i}.",
                      "input_domain": "Integer n from 0 to 9.", "tests": []})
        hidden.append({"id": tid, "tests": [{"args": [n], "expected": n + i} for n in range(3)]})
        refs.append({"id": tid, "reference_solution": f"def solve(n):\n    return n + {i}\n",
                     "negative_control": f"def solve(n):\n    return n - {i} - 1\n"})
    for name, rows in (("smolscript.jsonl", tasks), ("private_tests/hidden.jsonl", hidden),
                       ("references/solutions.jsonl", refs)):
        (root / name).write_text("".join(json.dumps(r) + "\n" for r in rows))
    return refs
