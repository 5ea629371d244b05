"""The pico DSL reference semantics: apply an instruction tape to reverse(S), build the 4 lines.

Pure functions only. Everything else (compiler, validator, scorer) trusts this module.

Semantics (also stated in the prompt): the source is reverse(S); a cursor starts at its first
character; the tape is read left to right. A dictionary symbol consumes the character under the
cursor and advances it: TAKE emits it, DROP emits nothing, REPEAT emits it twice, UPPER / LOWER /
SWAPCASE emit it with that case change (non-letters unchanged). A consuming symbol met after the
source is exhausted does nothing. A tape character not in the dictionary is a literal, emitted as
is without consuming. Source characters left when the tape ends are discarded.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

OPERATIONS: tuple[str, ...] = ("TAKE", "DROP", "REPEAT", "UPPER", "LOWER", "SWAPCASE")
CASE_OPERATIONS: frozenset[str] = frozenset({"UPPER", "LOWER", "SWAPCASE"})


@dataclass(frozen=True)
class Step:
    """One tape character's effect.

    Attributes:
        symbol: the tape character.
        op: its operation name, or None when it is a literal.
        consumed: the source character it consumed, or None (literal or exhausted source).
        emitted: the text it emitted (possibly empty).
    """

    symbol: str
    op: str | None
    consumed: str | None
    emitted: str


def _emit(op: str, char: str) -> str:
    if op == "TAKE":
        return char
    if op == "DROP":
        return ""
    if op == "REPEAT":
        return char * 2
    if op == "UPPER":
        return char.upper()
    if op == "LOWER":
        return char.lower()
    if op == "SWAPCASE":
        return char.swapcase()
    raise ValueError(f"unknown operation {op!r}; valid: {', '.join(OPERATIONS)}")


def trace(source: str, tape: str, dictionary: Mapping[str, str]) -> tuple[list[Step], int]:
    """Run `tape` over `source` (already reversed) and record every step.

    Args:
        source: the text the cursor walks (reverse of the row input).
        tape: the instruction tape.
        dictionary: single-character symbol -> operation name (one of OPERATIONS).

    Returns:
        (steps, leftover): one Step per tape character, and how many source characters were
        never consumed (discarded at the end of the tape).

    Raises:
        ValueError: a dictionary key is not one character or an operation is unknown.
    """
    for symbol, op in dictionary.items():
        if len(symbol) != 1:
            raise ValueError(f"dictionary symbol {symbol!r} is not a single character")
        if op not in OPERATIONS:
            raise ValueError(f"unknown operation {op!r}; valid: {', '.join(OPERATIONS)}")
    steps: list[Step] = []
    cursor = 0
    for symbol in tape:
        op = dictionary.get(symbol)
        if op is None:
            steps.append(Step(symbol, None, None, symbol))
        elif cursor >= len(source):
            steps.append(Step(symbol, op, None, ""))
        else:
            char = source[cursor]
            cursor += 1
            steps.append(Step(symbol, op, char, _emit(op, char)))
    return steps, len(source) - cursor


def apply_tape(source: str, tape: str, dictionary: Mapping[str, str]) -> str:
    """Return the output of `tape` run over `source` (see module docstring for the rules)."""
    steps, _ = trace(source, tape, dictionary)
    return "".join(step.emitted for step in steps)


def target_lines(text: str, tape: str, dictionary: Mapping[str, str]) -> tuple[str, str, str, str]:
    """The four answer lines for `text`: S, reverse(S), tape(reverse(S)), reverse(line 3)."""
    reversed_text = text[::-1]
    line3 = apply_tape(reversed_text, tape, dictionary)
    return (text, reversed_text, line3, line3[::-1])


def alternate_case(text: str, upper_first: bool, letters_only: bool) -> str:
    """`text` in alternating case: upper, lower, upper, ... (`upper_first`) or lower, upper, ...

    With `letters_only` the alternation counts letters only (`"a b"` -> `"A B"`), otherwise
    every position (`"a b"` -> `"A b"` hits the space). Pure.
    """
    out, count = [], 0
    for char in text:
        if letters_only and not char.isalpha():
            out.append(char)
            continue
        out.append(char.upper() if (count % 2 == 0) == upper_first else char.lower())
        count += 1
    return "".join(out)


def double_each(text: str) -> str:
    """`text` with every character written twice (`"ab"` -> `"aabb"`)."""
    return "".join(char * 2 for char in text)


# Case changes a policy can apply to a whole line without reading the tape.
BLIND_CASES: tuple = (
    str, str.upper, str.lower, str.swapcase, str.capitalize, str.title,
    *(lambda text, u=u, lo=lo: alternate_case(text, u, lo)
      for u in (True, False) for lo in (True, False)),
)


def blind_outputs(source: str) -> tuple[str, ...]:
    """Line-3 answers that need no tape, distinct, in a fixed order: `source` (reverse(S)) and
    every character of it doubled, each under every case change of BLIND_CASES (unchanged,
    upper, lower, swapped, capitalized, title case, alternating case by letter or by position,
    starting upper or lower), the doubling applied before or after the case change. The
    validator refuses a row whose line 3 is one of them, and the shaped reward pays only for
    getting closer than the best of them. Pure."""
    found = [case(base) for base in (source, double_each(source)) for case in BLIND_CASES]
    found += [double_each(case(source)) for case in BLIND_CASES]
    return tuple(dict.fromkeys(found))
