"""Normalizers for observed browser values: text whitespace, numbers and CSS computed values.

Pure helpers used by the host-side comparator (`compare.py`). CSS values are tokenized with
tinycss2 and colours parsed with `tinycss2.color3.parse_color`, so `red`, `#f00`, `#ff0000`,
`rgb(255 0 0)` and `hsl(0, 100%, 50%)` all normalize to the same RGBA tuple.
"""

from __future__ import annotations

import re

import tinycss2
import tinycss2.color3

_ASCII_WS = "\t\n\f\r "
_WS_RUN = re.compile(r"[\t\n\f\r ]+")
_SPACE_RUN = re.compile(r"[\t\f\r ]+")
_NUMBER_PREFIX = re.compile(r"[\t\n\f\r ]*([+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)")


def collapse_space(text: str) -> str:
    """Collapse runs of ASCII whitespace to one space and trim (CSS `white-space: normal`)."""
    return _WS_RUN.sub(" ", text).strip(_ASCII_WS)


def normalize_text(text: str, white_space_collapse: str) -> str:
    """Normalize `text` as a browser renders it under `white-space-collapse`.

    `collapse` (ordinary text): all whitespace runs become one space, ends trimmed.
    `preserve-breaks` (pre-line): spaces/tabs collapse, line breaks are kept.
    `preserve` / `break-spaces` (pre, pre-wrap): unchanged.
    """
    if white_space_collapse == "collapse":
        return collapse_space(text)
    if white_space_collapse == "preserve-breaks":
        lines = [_SPACE_RUN.sub(" ", line).strip(" ") for line in text.split("\n")]
        return "\n".join(lines).strip("\n")
    return text


def parse_number(text: str) -> float | None:
    """Parse a numeric attribute value leniently, like HTML's number rules (leading number).

    `"2"`, `" 02 "`, `"2.0"` and `"+2"` all give 2.0; `"abc"` gives None.
    """
    match = _NUMBER_PREFIX.match(text)
    return float(match.group(1)) if match else None


def css_atoms(value: str) -> list[tuple]:
    """Split a CSS value into comparable atoms: ("color", rgba) | ("num", x, unit) | ("id", s).

    Whitespace and commas separate atoms; identifiers are lower-cased; a token that parses as
    a colour becomes its RGBA tuple (rounded to 3 decimals).
    """
    atoms: list[tuple] = []
    for token in tinycss2.parse_component_value_list(value, skip_comments=True):
        if token.type == "whitespace" or (token.type == "literal" and token.value == ","):
            continue
        color = tinycss2.color3.parse_color(token)
        if color is not None and color != "currentColor":
            atoms.append(("color", tuple(round(float(c), 3) for c in color)))
        elif token.type == "dimension":
            atoms.append(("num", float(token.value), token.lower_unit))
        elif token.type == "percentage":
            atoms.append(("num", float(token.value), "%"))
        elif token.type == "number":
            atoms.append(("num", float(token.value), ""))
        elif token.type == "ident":
            atoms.append(("id", token.lower_value))
        else:
            atoms.append(("raw", tinycss2.serialize([token]).strip().lower()))
    return atoms


def css_values_equal(observed: str, expected: str, px_tolerance: float = 0.5) -> bool:
    """True when two CSS values are equivalent atom by atom (px within `px_tolerance`)."""
    left, right = css_atoms(observed), css_atoms(expected)
    if len(left) != len(right):
        return False
    for a, b in zip(left, right, strict=True):
        if a[0] != b[0]:
            return False
        if a[0] == "num":
            tolerance = px_tolerance if a[2] == "px" else 1e-3
            if a[2] != b[2] or abs(a[1] - b[1]) > tolerance:
                return False
        elif a[0] == "color":
            if any(abs(x - y) > 0.004 for x, y in zip(a[1], b[1], strict=True)):
                return False
        elif a != b:
            return False
    return True
