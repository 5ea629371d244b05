"""MATH-500 without a model: our prompt, answer filter and scoring against the seed's own (PyPI
slm-eval 0.0.1 in its own venv) on all 500 rows, for a set of replies built from each row.

Replies without reasoning tags only: our one deliberate difference (no answer from inside a
reasoning trace) is tested in test_math500.py.
"""

from __future__ import annotations

import json

import pytest
from smol_slm_eval import math500
from smol_slm_eval.data import load_rows

from tests.smol_slm_eval.seed_peer import run_script_beside, seed_python

pytestmark = pytest.mark.integration

DRIVER = r"""
import json, sys
from slm_eval.tasks.slm.math_500 import utils as u
cases = json.load(open(sys.argv[1]))
out = []
for case in cases:
    answer = u.extract_answer(case["reply"])
    out.append({"answer": answer, **u.process_results({"answer": case["gold"]}, [answer])})
json.dump(out, open(sys.argv[2], "w"))
"""


def replies_for(gold: str) -> list[str]:
    """Replies through every branch of the seed's filter and scorer."""
    return [f"So $\\boxed{{{gold}}}$.", f"\\boxed{{0}} then \\boxed{{{gold}}}", gold,
            f"It could be 5 or {gold}.", f"The answer is\n{gold}\n", f"\\fbox{{{gold}}}",
            f"\\boxed {gold}", f"\\boxed{{{gold}", "", "The answer is 123456789.",
            f"${gold}$.", "\\boxed{\\frac{1}{0}}", "x^2 + }{"]


def test_prompt_filter_and_scores_equal_the_seeds_on_every_row(archive_cache, tmp_path, capsys):
    python = seed_python()
    rows = load_rows("math_500")
    cases = [{"gold": r["answer"], "reply": reply} for r in rows for reply in replies_for(
        r["answer"])]
    (tmp_path / "cases.json").write_text(json.dumps(cases))
    status, stderr, mine = run_script_beside(
        python, tmp_path, DRIVER,
        [str(tmp_path / "cases.json"), str(tmp_path / "seed.json")],
        lambda: [math500.math_record(case["reply"], case["gold"]) for case in cases],
        timeout=1800)
    assert status == 0, stderr
    seed = json.loads((tmp_path / "seed.json").read_text())
    differ = []
    for case, theirs, ours in zip(cases, seed, mine, strict=True):
        if (ours["answer"], ours["exact_match"], ours["unparseable"]) != (
                theirs["answer"], theirs["exact_match"], theirs["unparseable"]):
            differ.append((case, theirs, ours))
    credited = sum(t["exact_match"] for t in seed)
    with capsys.disabled():
        print(f"\nMATH-500 definition: {len(rows)} rows, {len(cases)} replies, seed credits "
              f"{credited:.0f}; differing {len(differ)}")
    assert differ == []
    assert all(math500.math_prompt(r["problem"]) == f"Problem: {r['problem']}\nAnswer:"
               for r in rows)
