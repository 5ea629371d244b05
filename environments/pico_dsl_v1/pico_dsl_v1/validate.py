"""Strict validator: row-level gates and the benchmark-level gates (coverage, duplicates, rarity).

Pure. `row_problems` checks one row against the oracle, its slice and level definitions and the
content gates; `BenchmarkValidator` adds rows one by one and enforces what needs the whole set.
Every gate returns a short reason string; an empty list means accepted.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from typing import Any

from .diagnostics import measure
from .oracle import OPERATIONS, blind_outputs, target_lines
from .spec import (
    COMPOSITE_MIN_PHENOMENA,
    FILLER_TAILS,
    LEVEL_SPECS,
    LEVELS,
    MAX_SOFT_SHARE,
    ROWS_PER_CELL,
    SHORT_TARGET_MAX_CHARS,
    SLICE_PHENOMENON,
    SLICES,
    QualityFloor,
    quality_floor,
)

ROW_KEYS = (
    "slice",
    "complexity_level",
    "input",
    "dictionary",
    "tape",
    "target_lines",
    "diagnostics",
)
_ML_TOKEN = re.compile(r"(?<![A-Za-z])ml(?![A-Za-z])")
_NON_ALNUM = re.compile(r"[^a-z0-9]+")


def is_printable_ascii(text: str) -> bool:
    """True when every character is printable ASCII (space through tilde)."""
    return all(" " <= c <= "~" for c in text)


def normalize(text: str) -> str:
    """Lowercase, every run of non-alphanumerics collapsed to one space, ends stripped."""
    return _NON_ALNUM.sub(" ", text.lower()).strip()


def has_filler_tail(text: str) -> bool:
    """True when `text` ends like filler: a FILLER_TAILS phrase, '...', or 3+ identical chars."""
    stripped = text.rstrip()
    if stripped.endswith("..") or (len(stripped) >= 3 and len(set(stripped[-3:])) == 1):
        return True
    words = normalize(text)
    return any(words == tail or words.endswith(" " + tail) for tail in FILLER_TAILS)


def _schema_problems(row: dict[str, Any]) -> list[str]:
    missing = [k for k in ROW_KEYS if k not in row]
    if missing:
        return [f"missing fields: {', '.join(missing)}"]
    if row["slice"] not in SLICES:
        return [f"unknown slice {row['slice']!r}"]
    if row["complexity_level"] not in LEVELS:
        return [f"unknown level {row['complexity_level']!r}"]
    if not isinstance(row["input"], str) or not isinstance(row["tape"], str):
        return ["input and tape must be strings"]
    dictionary = row["dictionary"]
    if not isinstance(dictionary, dict) or not all(
        isinstance(k, str) and len(k) == 1 and v in OPERATIONS for k, v in dictionary.items()
    ):
        return ["dictionary must map single characters to operations"]
    if set(dictionary.values()) != set(OPERATIONS):
        return ["dictionary must name every operation"]
    lines = row["target_lines"]
    if not isinstance(lines, list) or len(lines) != 4 or not all(isinstance(x, str) for x in lines):
        return ["target_lines must be four strings"]
    return []


def _content_problems(row: dict[str, Any]) -> list[str]:
    text, tape, lines = row["input"], row["tape"], row["target_lines"]
    problems = []
    if not all(is_printable_ascii(s) for s in (text, tape, "".join(row["dictionary"]), *lines)):
        problems.append("not printable ASCII")
    if not text or text != text.strip() or "<" in text or ">" in text:
        problems.append("input empty, padded or containing < or >")
    if "<" in tape or ">" in tape:
        problems.append("tape contains < or >")
    line3 = lines[2]
    if line3 == lines[1]:
        # Copying line 2 would solve the row: the tape must do some work.
        problems.append("tape changes nothing (line 3 equals line 2)")
    elif line3 in blind_outputs(lines[1]):
        problems.append("line 3 is a tape-blind transform of line 2 (one case change on every "
                        "letter, every character doubled, alternating or title case)")
    if not line3 or line3 != line3.strip() or "  " in line3:
        problems.append("line 3 empty, padded or with a double space")
    if any(_ML_TOKEN.search(line) for line in lines):
        problems.append("lowercase ml token")
    if has_filler_tail(text) or has_filler_tail(line3):
        problems.append("filler-like target tail")
    return problems


def definition_problems(slice_: str, level: str, diag: dict[str, Any]) -> list[str]:
    """Check measured diagnostics against the level bands and the slice definition."""
    spec = LEVEL_SPECS[level]
    problems = []
    for key, (low, high) in (
        ("source_length", spec.source_length),
        ("tape_length", spec.tape_length),
        ("distinct_ops", spec.distinct_ops),
    ):
        if not low <= diag[key] <= high:
            problems.append(f"{key} {diag[key]} outside {level} band {low}-{high}")
    if diag["dictionary_size"] != spec.dictionary_size:
        problems.append(f"dictionary size {diag['dictionary_size']} != {spec.dictionary_size}")
    if diag["literal_count"] > spec.max_literals:
        problems.append(f"{diag['literal_count']} literals > {level} max {spec.max_literals}")
    if diag["leftover"]:
        problems.append("source not fully consumed")
    phenomena = set(diag["phenomena"])
    if "noop_suffix" in phenomena and not (
        spec.noop_suffix[0] <= diag["noop_count"] <= spec.noop_suffix[1]
    ):
        problems.append(f"noop suffix {diag['noop_count']} outside {level} band")
    if slice_ == "composite":
        if len(phenomena) < COMPOSITE_MIN_PHENOMENA:
            problems.append(f"composite shows only {sorted(phenomena)}")
        return problems
    wanted = SLICE_PHENOMENON[slice_]
    if wanted not in phenomena:
        problems.append(f"{slice_} row lacks {wanted}")
    if phenomena - {wanted, "case"}:
        problems.append(f"{slice_} row also shows {sorted(phenomena - {wanted, 'case'})}")
    if slice_ == "punctuation" and diag["literal_count"] < spec.min_punctuation_literals:
        problems.append(f"punctuation row needs >= {spec.min_punctuation_literals} literals")
    return problems


def quality_problems(row: dict[str, Any]) -> list[str]:
    """Hard per-slice (and per-level) floors on tape entropy and unique characters."""
    floor = quality_floor(row["slice"], row["complexity_level"])
    diag = row["diagnostics"]
    problems = []
    if diag["tape_entropy_bits"] < floor.hard_entropy_bits:
        problems.append(f"tape entropy {diag['tape_entropy_bits']} < {floor.hard_entropy_bits}")
    if diag["tape_unique_chars"] < floor.hard_unique_chars:
        problems.append(
            f"tape unique chars {diag['tape_unique_chars']} < {floor.hard_unique_chars}"
        )
    return problems


def below_soft_floor(row: dict[str, Any], floor: QualityFloor) -> bool:
    """True when the tape is under the slice's soft entropy or unique-character floor."""
    diag = row["diagnostics"]
    return (
        diag["tape_entropy_bits"] < floor.soft_entropy_bits
        or diag["tape_unique_chars"] < floor.soft_unique_chars
    )


def row_problems(row: dict[str, Any]) -> list[str]:
    """All row-level gates: schema, oracle, diagnostics, definitions, content, hard floors."""
    problems = _schema_problems(row)
    if problems:
        return problems
    text, tape, dictionary = row["input"], row["tape"], row["dictionary"]
    if list(target_lines(text, tape, dictionary)) != row["target_lines"]:
        return ["target lines disagree with the oracle"]
    diag = measure(text, tape, dictionary)
    if diag != row["diagnostics"]:
        return ["stored diagnostics disagree with a fresh measurement"]
    return (
        definition_problems(row["slice"], row["complexity_level"], diag)
        + _content_problems(row)
        + quality_problems(row)
    )


class BenchmarkValidator:
    """Accept rows one at a time into a balanced slice x level grid.

    Args:
        rows_per_cell: quota of every (slice, level) cell.
        slices, levels: the grid (defaults: the full benchmark).
        unique_inputs: refuse a second row with the same input (the fixed benchmark); when
            False only the (input, tape) pair must be new (generated mode).
    """

    def __init__(
        self,
        rows_per_cell: int = ROWS_PER_CELL,
        slices: Iterable[str] = SLICES,
        levels: Iterable[str] = LEVELS,
        unique_inputs: bool = True,
    ) -> None:
        self.rows_per_cell = rows_per_cell
        self.unique_inputs = unique_inputs
        self.cells = [(s, lv) for s in slices for lv in levels]
        self.rows: list[dict[str, Any]] = []
        self._counts: Counter[tuple[str, str]] = Counter()
        self._inputs: set[str] = set()
        self._keys: set[tuple[str, str]] = set()
        self._short_targets: set[str] = set()
        self._soft: Counter[str] = Counter()

    def soft_budget(self, slice_: str) -> int:
        """How many rows of a slice may sit under the soft quality floor."""
        per_slice = self.rows_per_cell * sum(1 for s, _ in self.cells if s == slice_)
        return int(MAX_SOFT_SHARE * per_slice)

    def problems(self, row: dict[str, Any]) -> list[str]:
        """Reasons `row` cannot join the benchmark now (row gates first, then set gates)."""
        problems = row_problems(row)
        if problems:
            return problems
        cell = (row["slice"], row["complexity_level"])
        if cell not in self.cells:
            return [f"cell {cell} not in this grid"]
        if self._counts[cell] >= self.rows_per_cell:
            return [f"cell {cell} already full"]
        if (row["input"], row["tape"]) in self._keys:
            return ["duplicate row"]
        if self.unique_inputs and row["input"] in self._inputs:
            return ["duplicate input"]
        short = normalize(row["target_lines"][2])
        if len(short) <= SHORT_TARGET_MAX_CHARS and short in self._short_targets:
            return ["duplicate short normalized target"]
        floor = quality_floor(row["slice"], row["complexity_level"])
        if below_soft_floor(row, floor) and self._soft[row["slice"]] >= self.soft_budget(
            row["slice"]
        ):
            return ["low-entropy budget of the slice used up"]
        return []

    def offer(self, row: dict[str, Any]) -> list[str]:
        """Accept `row` when it has no problems; return the problems otherwise."""
        problems = self.problems(row)
        if problems:
            return problems
        cell = (row["slice"], row["complexity_level"])
        self._counts[cell] += 1
        self._inputs.add(row["input"])
        self._keys.add((row["input"], row["tape"]))
        short = normalize(row["target_lines"][2])
        if len(short) <= SHORT_TARGET_MAX_CHARS:
            self._short_targets.add(short)
        if below_soft_floor(row, quality_floor(row["slice"], row["complexity_level"])):
            self._soft[row["slice"]] += 1
        self.rows.append(row)
        return []

    def missing(self) -> dict[tuple[str, str], int]:
        """Rows still needed per cell (cells already full are left out)."""
        return {
            cell: self.rows_per_cell - self._counts[cell]
            for cell in self.cells
            if self._counts[cell] < self.rows_per_cell
        }

    def is_full(self, slice_: str, level: str) -> bool:
        """True when the cell has its quota."""
        return self._counts[(slice_, level)] >= self.rows_per_cell

    def complete(self) -> bool:
        """True when every cell has exactly its quota."""
        return not self.missing()


def benchmark_problems(rows: list[dict[str, Any]], rows_per_cell: int = ROWS_PER_CELL) -> list[str]:
    """Re-validate a whole benchmark: every row and set gate, exact balance, unique ids."""
    validator = BenchmarkValidator(rows_per_cell)
    problems = []
    ids = Counter(row.get("id") for row in rows)
    problems += [f"duplicate id {i!r}" for i, c in ids.items() if c > 1]
    for row in rows:
        problems += [f"{row.get('id')}: {p}" for p in validator.offer(row)]
    problems += [f"cell {c} short by {n}" for c, n in validator.missing().items()]
    return problems
