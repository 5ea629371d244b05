"""Benchmark vocabulary: slices, complexity levels L1-L4, symbol pools and quality floors.

One table for every module that needs it (compiler, validator, data loader, README tests).
"""

from __future__ import annotations

from dataclasses import dataclass

SLICES: tuple[str, ...] = (
    "copy_case",
    "punctuation",
    "deletion",
    "repeat",
    "noop_suffix",
    "composite",
)
LEVELS: tuple[str, ...] = ("L1", "L2", "L3", "L4")
# Version of the fixed benchmark's contents (recorded in its manifest; the README's changelog
# says what each version changed). 0.2.0: no row whose tape leaves line 2 unchanged. 0.3.0: no
# row that doubling, alternating, capitalizing or title-casing line 2 solves.
DATASET_VERSION = "0.3.0"
ROWS_PER_CELL = 20
BENCHMARK_SIZE = len(SLICES) * len(LEVELS) * ROWS_PER_CELL  # 480

# Phenomena a row can show, measured on the oracle trace (see validate.measure).
PHENOMENA: tuple[str, ...] = ("case", "punctuation", "deletion", "repeat", "noop_suffix")

# The phenomenon each single-phenomenon slice is about; composite needs >= 3 of PHENOMENA.
SLICE_PHENOMENON: dict[str, str] = {
    "copy_case": "case",
    "punctuation": "punctuation",
    "deletion": "deletion",
    "repeat": "repeat",
    "noop_suffix": "noop_suffix",
}
COMPOSITE_MIN_PHENOMENA = 3

# Tape symbols the dictionary may use, and the literal characters tapes may insert. Disjoint,
# printable ASCII, and free of `<`, `>`, `|`, quotes, backslash and backtick (prompt delimiters).
SYMBOL_POOL = "0123456789#$%&*+=@^~ABCDEFGHJKMNPQRSTUVWXYZ"
LITERAL_POOL = " .,;:!?-_/'"
BRACKET_PAIRS: tuple[tuple[str, str], ...] = (("(", ")"), ("[", "]"), ("{", "}"))


@dataclass(frozen=True)
class LevelSpec:
    """Measurable bounds of one complexity level (all inclusive ranges).

    Attributes:
        source_length: characters of the input S.
        tape_length: characters of the tape.
        distinct_ops: distinct operations named by tape symbols.
        max_literals: most literal characters on the tape (punctuation and composite rows; the
            punctuation slice needs at least `min_punctuation_literals`).
        min_punctuation_literals: fewest literals in a punctuation-slice row.
        noop_suffix: how many consuming symbols follow source exhaustion in rows that have one.
        dictionary_size: entries in the per-sample dictionary (one symbol per operation plus
            aliases for the operations the tape uses).
    """

    source_length: tuple[int, int]
    tape_length: tuple[int, int]
    distinct_ops: tuple[int, int]
    max_literals: int
    min_punctuation_literals: int
    noop_suffix: tuple[int, int]
    dictionary_size: int


LEVEL_SPECS: dict[str, LevelSpec] = {
    "L1": LevelSpec((5, 10), (5, 16), (1, 2), 2, 1, (1, 2), 8),
    "L2": LevelSpec((11, 16), (11, 24), (2, 3), 4, 2, (1, 3), 9),
    "L3": LevelSpec((17, 24), (17, 34), (3, 4), 6, 3, (2, 4), 10),
    "L4": LevelSpec((25, 34), (25, 48), (4, 6), 8, 4, (2, 5), 12),
}


@dataclass(frozen=True)
class QualityFloor:
    """Tape quality floors of one (slice, level) cell.

    Every row must reach the hard floors; rows under a soft floor are allowed but capped at
    MAX_SOFT_SHARE of a slice, so that low-entropy tapes stay rare.
    """

    hard_entropy_bits: float
    hard_unique_chars: int
    soft_entropy_bits: float
    soft_unique_chars: int


MAX_SOFT_SHARE = 0.1
# Floors grow with the level (longer tapes, larger dictionaries) ...
LEVEL_FLOORS: dict[str, QualityFloor] = {
    "L1": QualityFloor(1.2, 3, 1.5, 3),
    "L2": QualityFloor(1.7, 4, 2.0, 5),
    "L3": QualityFloor(1.9, 5, 2.2, 6),
    "L4": QualityFloor(2.3, 6, 2.7, 8),
}
# ... and slices whose tapes carry literals must clear them by (bits, unique chars) more.
SLICE_FLOOR_BONUS: dict[str, tuple[float, int]] = {
    "copy_case": (0.0, 0),
    "punctuation": (0.3, 1),
    "deletion": (0.0, 0),
    "repeat": (0.0, 0),
    "noop_suffix": (0.0, 0),
    "composite": (0.3, 1),
}


def quality_floor(slice_: str, level: str) -> QualityFloor:
    """The floors of a (slice, level) cell: LEVEL_FLOORS plus the slice's bonus."""
    base = LEVEL_FLOORS[level]
    bits, chars = SLICE_FLOOR_BONUS[slice_]
    return QualityFloor(
        round(base.hard_entropy_bits + bits, 4),
        base.hard_unique_chars + chars,
        round(base.soft_entropy_bits + bits, 4),
        base.soft_unique_chars + chars,
    )


# Short targets are compared after normalization; two rows may not share one.
SHORT_TARGET_MAX_CHARS = 16
# Tails that read as filler rather than content ("... etc", "lol"), after normalization.
FILLER_TAILS: tuple[str, ...] = (
    "etc",
    "and so on",
    "and more",
    "and stuff",
    "or something",
    "lol",
    "haha",
    "yeah",
    "ok",
    "okay",
    "you know",
    "i guess",
    "blah",
    "whatever",
    "and so forth",
)
