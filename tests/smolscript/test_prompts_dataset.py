"""The prompt protocol over every task of the packaged default edition, and the shipped
example prompts."""

from __future__ import annotations

from pathlib import Path

import pytest
from smolscript import data
from smolscript.prompts import build_prompt, example_prompts

pytestmark = pytest.mark.unit
EXAMPLES = (Path(__file__).resolve().parents[2]
            / "environments" / "smolscript" / "smolscript" / "example_prompts")


@pytest.fixture(scope="module")
def tasks():
    return data.load_tasks("default")


def test_prompts_end_right_after_the_header(tasks):
    for task in tasks:
        prompt = build_prompt(task)
        assert prompt.endswith(task["prefix"]), task["id"]
        if task["language"] == "html":
            assert prompt.endswith("<")
        else:
            assert prompt.endswith("\n") and not prompt.endswith((" \n", "\t\n", "\n\n"))
        assert all(line == line.rstrip() for line in prompt.split("\n")), task["id"]
        assert "```" not in prompt


def test_prompts_hold_no_reference_test_input_or_expected_value(tasks):
    refs = data.load_references("default")
    hidden = data.load_hidden("default")
    for task in tasks:
        prompt = build_prompt(task)
        ref = refs[task["id"]]["reference_solution"]
        body = ref.split(task["prefix"], 1)[-1].strip()
        assert body and body not in prompt, task["id"]
        if task["modality"] == "browser":
            continue  # web instructions name the required text/attributes by design
        for test in hidden[task["id"]]["tests"]:
            for value in (test.get("args") or []) + [test.get("expected")]:
                if isinstance(value, str) and len(value) >= 6 and " " in value:
                    assert value not in prompt, (task["id"], value)


def test_shipped_example_prompts_match_the_dataset(tasks):
    expected = example_prompts(tasks)
    shipped = {p.stem: p.read_text(encoding="utf-8") for p in EXAMPLES.glob("*.txt")}
    assert shipped == expected
    assert set(expected) == set(data.LANGUAGE_ORDER) | {"javascript_dom"}
