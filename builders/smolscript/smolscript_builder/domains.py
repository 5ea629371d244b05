"""Input domains of program tasks: their description, edge cases and seeded sampling.

Each difficulty widens the domain (longer strings and lists, larger numbers). Sampling uses a
``random.Random`` passed in, so the generator stays deterministic.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

PARAM_NAMES = {"int": "n", "str": "s", "list[int]": "xs", "list[str]": "words"}
WORD_POOL = (
    "ant",
    "bee",
    "cat",
    "owl",
    "egg",
    "ice",
    "sun",
    "kiwi",
    "apple",
    "tree",
    "ox",
    "io",
    "yak",
    "elm",
    "urn",
    "map",
    "pen",
    "sky",
    "zoo",
    "fig",
    "oak",
    "ink",
    "idea",
    "banana",
    "echo",
    "moon",
    "a",
    "tea",
    "ufo",
    "rope",
)
_PUNCT = "!?.,;:-_#@()'"


@dataclass(frozen=True)
class Domain:
    """The inputs a task accepts: ``kind`` is the parameter type; bounds per kind."""

    kind: str
    lo: int = 0
    hi: int = 0
    max_len: int = 0

    @property
    def param(self) -> str:
        """The parameter name used for this input type."""
        return PARAM_NAMES[self.kind]

    def describe(self) -> str:
        """One sentence for the prompt, e.g. 'Integer n from -120 to 120.'"""
        if self.kind == "int":
            return f"Integer n from {self.lo} to {self.hi}."
        if self.kind == "str":
            return (
                f"String s of 0 to {self.max_len} printable ASCII characters (letters, "
                "digits, spaces and punctuation)."
            )
        if self.kind == "list[int]":
            return f"List xs of 0 to {self.max_len} integers, each from {self.lo} to {self.hi}."
        return (
            f"List words of 0 to {self.max_len} lowercase words, each of 1 to 6 letters "
            "(words may repeat)."
        )

    def edge_cases(self) -> list[Any]:
        """Boundary inputs every task is tested on."""
        if self.kind == "int":
            return [self.lo, self.hi, 0, 1, -1, self.lo + 1, self.hi - 1]
        if self.kind == "str":
            return ["", "a", "Z", "9", " ", "aA zZ 09", "Hello, World!"]
        if self.kind == "list[int]":
            return [
                [],
                [0],
                [self.lo],
                [self.hi],
                [self.lo, self.hi],
                [3, 3, 3],
                [1, -1, 2, -2][: self.max_len],
            ]
        return [[], ["a"], ["kiwi"], ["owl", "owl"], ["banana", "ox", "banana", "sun"]]

    def sample(self, rng: random.Random) -> Any:
        """One random input from the domain."""
        if self.kind == "int":
            return rng.randint(self.lo, self.hi)
        if self.kind == "str":
            size = rng.randint(0, self.max_len)
            return "".join(_random_char(rng) for _ in range(size))
        if self.kind == "list[int]":
            size = rng.randint(0, self.max_len)
            small = rng.random() < 0.4  # small values make repeats (frequency tasks) likely
            lo, hi = (max(self.lo, -5), min(self.hi, 5)) if small else (self.lo, self.hi)
            return [rng.randint(lo, hi) for _ in range(size)]
        size = rng.randint(0, self.max_len)
        return [rng.choice(WORD_POOL) for _ in range(size)]


def _random_char(rng: random.Random) -> str:
    roll = rng.random()
    if roll < 0.4:
        return chr(rng.randint(97, 122))
    if roll < 0.6:
        return chr(rng.randint(65, 90))
    if roll < 0.75:
        return chr(rng.randint(48, 57))
    if roll < 0.9:
        return " "
    return rng.choice(_PUNCT)


DOMAINS: dict[str, dict[str, Domain]] = {
    "easy": {
        "int": Domain("int", -120, 120),
        "str": Domain("str", max_len=12),
        "list[int]": Domain("list[int]", -20, 20, 6),
        "list[str]": Domain("list[str]", max_len=5),
    },
    "medium": {
        "int": Domain("int", -500, 500),
        "str": Domain("str", max_len=20),
        "list[int]": Domain("list[int]", -50, 50, 8),
        "list[str]": Domain("list[str]", max_len=7),
    },
    "moderate": {
        "int": Domain("int", -1000, 1000),
        "str": Domain("str", max_len=30),
        "list[int]": Domain("list[int]", -100, 100, 10),
        "list[str]": Domain("list[str]", max_len=9),
    },
}

PROBES: dict[str, list[Any]] = {
    "int": list(range(-25, 26)) + [-120, -99, -64, 64, 99, 100, 120, 365, -500, 999],
    "str": [
        "",
        "a",
        "Z",
        "7",
        " ",
        "ab",
        "aA",
        "Hello, World!",
        "abc123",
        "racecar",
        "  x  ",
        "AEIOU aeiou",
        "Zebra 42",
        "noon",
        "A1b2C3",
        "...",
        "aaaBBB",
        "Mississippi",
        "xyz XYZ",
        "12321",
        "Go 2 it!",
        "tEsT",
        "b",
        "The quick brown fox",
        "zz top 99",
    ],
    "list[int]": [
        [],
        [0],
        [5],
        [-3],
        [1, 2, 3],
        [3, 2, 1],
        [2, 2, 2],
        [1, -1, 2, -2],
        [10, 20, 30],
        [-5, 0, 5],
        [7, 7, 3, 3, 3],
        [4, -8, 15, -16, 23, 42],
        [0, 0, 1],
        [9, 8, 7, 6, 5, 4],
        [1, 3, 5, 7],
        [2, 4, 6, 8],
        [-10, -20, 5],
        [100, -100],
        [6, 1, 6, 1, 6],
        [13],
        [12, 25, 36],
        [-7, -7, 8],
        [11, 4, 11, 4, 0, 3],
    ],
    "list[str]": [
        [],
        ["a"],
        ["ant"],
        ["ant", "bee"],
        ["owl", "owl", "cat"],
        ["tree", "apple", "kiwi", "fig"],
        ["sky", "sky", "sky"],
        ["io", "ox", "elm", "urn"],
        ["banana", "egg"],
        ["zoo", "zoo", "ant", "ant", "bee"],
        ["idea", "moon", "echo", "tea", "ufo"],
        ["rope", "ink", "rope", "a", "ink", "rope"],
        ["pen"],
        ["kiwi", "io"],
    ],
}
