"""BFCL v4 without a model: our prompt and Tier 1 scoring against the seed's own (PyPI slm-eval
0.0.1 in its own venv, bfcl-eval 2026.3.23 beside it) on every row of all eleven categories.

Per row: the prompt bytes, and `valid_json` / `function_name_match` for a set of replies built
from the row (its gold calls as JSON, fenced, with prose brackets around, a Python-syntax call,
prose, an empty array, a first call that is not the expected one).
"""

from __future__ import annotations

import json

import pytest
from smol_slm_eval import bfcl
from smol_slm_eval.data import load_rows
from smol_slm_eval.tasks import BFCL_ALL

from tests.smol_slm_eval.seed_peer import run_script_beside, seed_python

pytestmark = pytest.mark.integration

DRIVER = r"""
import json, sys
from slm_eval.tasks.slm.bfcl_v4 import utils as u
replies = json.load(open(sys.argv[1]))
out = {}
for category in sys.argv[2].split(","):
    docs = u.load_dataset(category)["test"]
    for doc in docs:
        out[doc["id"]] = {"prompt": u.doc_to_text(doc),
                          "scores": [u.process_results(doc, [r]) for r in replies[doc["id"]]]}
json.dump(out, open(sys.argv[3], "w"))
"""


def replies_for(row: dict) -> list[str]:
    """Replies that exercise every branch of the seed's parser and Tier 1 rules."""
    names = bfcl.gold_names(row) or [row["functions"][0]["name"]]
    calls = [{"name": n, "arguments": {}} for n in names]
    array = json.dumps(calls)
    return [array, f"```json\n{array}\n```\nSee [1].", f"Calls [below]: {array} [end]",
            f"{names[0]}(x=1)", "No function fits.", "[]", "",
            json.dumps([{"name": "not_" + names[0], "arguments": {}}, *calls]),
            json.dumps({"name": names[0], "parameters": {"a": 1}}),
            '{"name": "x", "arguments": {"a": 1,}}']


def test_prompts_and_tier1_equal_the_seeds_on_every_row(archive_cache, tmp_path, capsys):
    python = seed_python()
    rows = [r for task in ("bfcl_v4", *(f"bfcl_v4_{c}" for c in BFCL_ALL[7:]))
            for r in load_rows(task)]
    replies = {r["id"]: replies_for(r) for r in rows}
    (tmp_path / "replies.json").write_text(json.dumps(replies))
    status, stderr, mine = run_script_beside(
        python, tmp_path, DRIVER,
        [str(tmp_path / "replies.json"), ",".join(BFCL_ALL), str(tmp_path / "seed.json")],
        lambda: {r["id"]: (bfcl.bfcl_prompt(r), [
            bfcl.bfcl_record(reply, r, tier2=False, mode="seed") for reply in replies[r["id"]]])
            for r in rows},
        timeout=1200)
    assert status == 0, stderr
    seed = json.loads((tmp_path / "seed.json").read_text())
    assert sorted(seed) == sorted(replies)
    prompt_differ, score_differ, checked = [], [], 0
    for row in rows:
        theirs, (prompt, records) = seed[row["id"]], mine[row["id"]]
        if prompt != theirs["prompt"]:
            prompt_differ.append(row["id"])
        for reply, score, record in zip(replies[row["id"]], theirs["scores"], records,
                                        strict=True):
            checked += 1
            if (record["valid_json"], record["function_name_match"]) != (
                    score["valid_json"], score["function_name_match"]):
                score_differ.append((row["id"], reply[:60], score))
    with capsys.disabled():
        print(f"\nBFCL definition: {len(rows)} rows, {checked} replies; prompts differing "
              f"{len(prompt_differ)}, Tier 1 differing {len(score_differ)}")
    assert prompt_differ == [] and score_differ == []
