"""Prompt text: the task rules (system prompt) and the per-row question.

Pure constants and one formatter. The worked example is checked against the oracle in tests.
"""

from __future__ import annotations

from collections.abc import Mapping

from .oracle import OPERATIONS

EXAMPLE_INPUT = "Cats nap"
EXAMPLE_DICTIONARY = {
    "1": "TAKE",
    "2": "DROP",
    "3": "REPEAT",
    "4": "UPPER",
    "5": "LOWER",
    "6": "SWAPCASE",
}
EXAMPLE_TAPE = "13(456)2!1"
EXAMPLE_LINES = ("Cats nap", "pan staC", "paa(N S)!a", "a!)S N(aap")

SYSTEM_PROMPT = f"""You run a tiny string program.

You get an input string S, a dictionary that maps single-character symbols to operations, and an
instruction tape. Rules:
- The source is S reversed. A cursor starts at the first source character.
- Read the tape from left to right, one character at a time.
- A dictionary symbol consumes the character under the cursor and moves the cursor one step:
  TAKE writes it, DROP writes nothing, REPEAT writes it twice, UPPER writes it in upper case,
  LOWER writes it in lower case, SWAPCASE writes it with its case swapped (non-letters unchanged).
- A dictionary symbol met after the source is used up does nothing.
- Any tape character that is not in the dictionary is a literal: write it as is, consume nothing.
- Source characters left when the tape ends are dropped.

Answer with exactly four lines inside one <answer>...</answer> block, and nothing else:
line 1: S
line 2: S reversed
line 3: the output of the tape run over line 2
line 4: line 3 reversed
No labels, quotes, JSON, Markdown or code fences inside the block. Use the <answer> tag only
for your final answer.

Example. S (between the bars): |{EXAMPLE_INPUT}|
Dictionary: {", ".join(f"{s} = {op}" for s, op in EXAMPLE_DICTIONARY.items())}
Tape (between the bars): |{EXAMPLE_TAPE}|
<answer>
{chr(10).join(EXAMPLE_LINES)}
</answer>"""


def format_dictionary(dictionary: Mapping[str, str]) -> str:
    """One `symbol = OPERATION` line per entry, grouped in the order of OPERATIONS."""
    order = {op: i for i, op in enumerate(OPERATIONS)}
    entries = sorted(dictionary.items(), key=lambda item: order[item[1]])
    return "\n".join(f"{symbol} = {op}" for symbol, op in entries)


def format_question(text: str, dictionary: Mapping[str, str], tape: str) -> str:
    """The user message for one row."""
    return (
        f"S (between the bars): |{text}|\n"
        f"Dictionary:\n{format_dictionary(dictionary)}\n"
        f"Tape (between the bars): |{tape}|"
    )
