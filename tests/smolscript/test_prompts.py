"""Prompt protocol: fixed template, no answers or tests in the prompt, budgets, context check."""

from __future__ import annotations

import pytest
from smolscript.languages import LANGUAGES, PROGRAM_LANGUAGES
from smolscript.prompts import (
    BUDGET_CAP,
    PromptError,
    PromptTooLongError,
    build_prompt,
    check_context,
    make_token_counter,
    token_budget,
)

pytestmark = pytest.mark.unit

SIGNATURE = {"params": [{"name": "n", "type": "int"}], "returns": "int"}


def program_task(language: str, **extra) -> dict:
    spec = LANGUAGES[language]
    return {"id": f"{language}-1", "language": language, "difficulty": "easy",
            "modality": "program", "entry_point": spec.entry_point, "signature": SIGNATURE,
            "prefix": spec.entry_header(SIGNATURE), "imports": spec.imports,
            "instruction": "Starting with n, double it, then take the last decimal digit of its "
                           "absolute value. Return the result.",
            "input_domain": "Integer n from -120 to 120.",
            "tests": [{"args": [77]}], **extra}


def test_python_prompt_matches_the_protocol_exactly():
    assert build_prompt(program_task("python")) == (
        "# Starting with n, double it, then take the last decimal digit of its absolute value. "
        "Return the result.\n# Integer n from -120 to 120.\ndef solve(n):\n")


@pytest.mark.parametrize("language", PROGRAM_LANGUAGES)
def test_program_prompts_end_after_the_header_newline(language):
    task = program_task(language)
    prompt = build_prompt(task)
    assert prompt.endswith(task["prefix"]) and prompt.endswith("\n")
    assert not any(line != line.rstrip() for line in prompt.split("\n"))
    assert "77" not in prompt  # no test input
    comment = LANGUAGES[language].comment
    assert f"{comment} Integer n from -120 to 120." in prompt
    for line in (task["imports"] or "").splitlines():
        assert line in prompt


def test_browser_prompt_is_its_prefix():
    task = {"id": "h", "language": "html", "difficulty": "easy", "modality": "browser",
            "prefix": "<!-- Make a list. -->\n<"}
    assert build_prompt(task) == "<!-- Make a list. -->\n<"


def test_trailing_whitespace_in_prefix_is_refused():
    with pytest.raises(PromptError):
        build_prompt(program_task("python", prefix="def solve(n):  \n"))
    with pytest.raises(PromptError):
        build_prompt(program_task("python", prefix=""))


@pytest.mark.parametrize(("language", "difficulty", "expected"), [
    ("python", "easy", 128), ("javascript", "medium", 192), ("html", "easy", 160),
    ("css", "moderate", 128), ("cpp", "moderate", 256), ("c", "moderate", 256),
    ("lua", "moderate", 192), ("csharp", "easy", 256), ("rust", "moderate", 256),
])
def test_token_budgets(language, difficulty, expected):
    assert token_budget(language, difficulty) == expected <= BUDGET_CAP


def test_budget_override_and_errors():
    assert token_budget("python", "easy", override=40) == 40
    for bad in (0, -3, True, 1.5):
        with pytest.raises(ValueError):
            token_budget("python", "easy", override=bad)
    with pytest.raises(ValueError, match="valid"):
        token_budget("cobol", "easy")


def test_context_check_names_every_prompt_too_long():
    count = make_token_counter("bytes")
    check_context([("a", "x" * 10, 100)], 200, count)
    with pytest.raises(PromptTooLongError) as info:
        check_context([("a", "x" * 10, 100), ("b", "y" * 150, 100)], 200, count)
    assert [t[0] for t in info.value.too_long] == ["b"]
    assert "never truncated" in str(info.value)


def test_smollm2_token_counter_counts_real_tokens():
    count = make_token_counter("smollm2")
    prompt = build_prompt(program_task("python"))
    assert 10 < count(prompt) < len(prompt.encode())
