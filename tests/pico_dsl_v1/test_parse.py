"""Parser: golden pairs of messy completions and what counts as the final answer."""

from __future__ import annotations

import pytest
from pico_dsl_v1.parse import parse_answer

pytestmark = pytest.mark.unit

FOUR = "Cats nap\npan staC\npaa(N S)!a\na!)S N(aap"
GOLDEN = [
    # (completion, expected lines or None, expected reason, why)
    (f"<answer>\n{FOUR}\n</answer>", tuple(FOUR.split("\n")), "ok", "clean block"),
    (FOUR, None, "no answer tag", "no tag at all"),
    ("", None, "empty response", "empty text"),
    ("  \n ", None, "empty response", "whitespace only"),
    (
        f"<answer>draft</answer>\nthinking...\n<answer>\n{FOUR}\n</answer>",
        tuple(FOUR.split("\n")),
        "ok",
        "two blocks: only the trailing one counts",
    ),
    (f"<answer>\n{FOUR}\n", None, "unclosed answer tag", "unclosed tag"),
    # Reasoning traces (the collection's rule, smol_envs_core.adapters.reasoning)
    (f"<think>\nscratch\n</think>\n<answer>\n{FOUR}\n</answer>", tuple(FOUR.split("\n")), "ok",
     "a closed trace before the block is ignored"),
    (f"<think>\n<answer>\n{FOUR}\n</answer>", None, "reasoning trace never closed",
     "a block inside a trace that never closes is no answer (it scored 1.0 before)"),
    (f"<think><answer>\n{FOUR}\n</answer></think>", None, "no answer tag",
     "a block inside a closed trace does not count"),
    (f"<answer>\n{FOUR}\n</answer><think>more", None, "reasoning trace never closed",
     "a trace opened after the block and never closed"),
    (
        f"<answer>\n{FOUR}\n</answer>\nHope this helps!",
        None,
        "text after answer block",
        "text after the block",
    ),
    (
        f"Let me work it out.\nLine 2 is the reverse.\n<answer>\n{FOUR}\n</answer>",
        tuple(FOUR.split("\n")),
        "ok",
        "prose before the block is ignored",
    ),
    (
        f"<answer>\n```\n{FOUR}\n```\n</answer>",
        ("```", *FOUR.split("\n"), "```"),
        "wrong line count (6)",
        "fences inside the block are kept as lines",
    ),
    (
        f"<answer>\r\n{FOUR.replace(chr(10), chr(13) + chr(10))}\r\n</answer>\r\n",
        tuple(FOUR.split("\n")),
        "ok",
        "CRLF is normalized",
    ),
    (
        "<answer>\nCats nap   \npan staC\t\npaa(N S)!a \na!)S N(aap\n</answer>   \n",
        tuple(FOUR.split("\n")),
        "ok",
        "trailing spaces on lines and after the block",
    ),
    (
        "<answer>\n\nCats nap\npan staC\n\npaa(N S)!a\na!)S N(aap\n\n</answer>",
        ("Cats nap", "pan staC", "", "paa(N S)!a", "a!)S N(aap"),
        "wrong line count (5)",
        "blank lines at the ends are dropped, inside they count",
    ),
    ("text </answer>", None, "closing tag without opening tag", "lone closing tag"),
    (
        'He said "<answer>x</answer>" then: <answer>\n' + FOUR + "\n</answer>",
        tuple(FOUR.split("\n")),
        "ok",
        "a quoted tag in reasoning is ignored",
    ),
    (
        "<answer>  Cats nap\npan staC\npaa(N S)!a\na!)S N(aap</answer>",
        ("  Cats nap", "pan staC", "paa(N S)!a", "a!)S N(aap"),
        "ok",
        "leading spaces are kept",
    ),
]


@pytest.mark.parametrize(("text", "lines", "reason", "why"), GOLDEN)
def test_golden(text: str, lines: tuple[str, ...] | None, reason: str, why: str) -> None:
    parsed = parse_answer(text)
    assert parsed.lines == lines, why
    assert parsed.reason == reason, why


def test_none_is_an_empty_response() -> None:
    assert parse_answer(None).reason == "empty response"
