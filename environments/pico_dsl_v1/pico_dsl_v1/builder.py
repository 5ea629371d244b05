"""Assemble the fixed benchmark from an ordered stream of phrase seeds (pure, deterministic).

Each phrase is cleaned, then offered to the (slice, level) cells that still need rows, most
needed first (ties in grid order); the first cell whose compiled row the validator accepts
takes it, and the phrase is used up. Cell choice depends only on the rows accepted so far, so
a rejected phrase leaves no trace: replaying just the accepted phrases, in order, rebuilds the
same rows byte for byte.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from .compiler import compile_row, fit_text
from .errors import CompileError
from .phrases import clean_phrase
from .spec import LEVELS, ROWS_PER_CELL, SLICES
from .validate import BenchmarkValidator


@dataclass(frozen=True)
class PhraseSeed:
    """One phrase as the model wrote it, with the sampled topic and style that prompted it."""

    text: str
    topic: str = ""
    style: str = ""


@dataclass
class BuildStats:
    """What happened to the phrases offered so far."""

    offered: int = 0
    cleaned: int = 0
    accepted: int = 0
    clean_rejections: Counter[str] = field(default_factory=Counter)
    row_rejections: Counter[str] = field(default_factory=Counter)

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready summary (rejection reasons sorted by count, then name)."""
        return {
            "offered": self.offered,
            "cleaned_ok": self.cleaned,
            "accepted": self.accepted,
            "clean_rejections": dict(sorted(self.clean_rejections.items(), key=_by_count)),
            "row_rejections": dict(sorted(self.row_rejections.items(), key=_by_count)),
        }


def _by_count(item: tuple[str, int]) -> tuple[int, str]:
    return (-item[1], item[0])


class BenchmarkBuilder:
    """Feed phrases with `offer`; read `complete()`, `rows()` and `stats`.

    Args:
        seed: compiler seed.
        rows_per_cell: quota per (slice, level) cell (20 for the 480-row benchmark).
        slices, levels: the grid to fill (default: all 6 x 4 cells).
    """

    def __init__(
        self,
        seed: int = 0,
        rows_per_cell: int = ROWS_PER_CELL,
        slices: Iterable[str] = SLICES,
        levels: Iterable[str] = LEVELS,
    ) -> None:
        slices, levels = list(slices), list(levels)
        self.seed = seed
        self.validator = BenchmarkValidator(rows_per_cell, slices, levels)
        self.stats = BuildStats()
        self._grid = [(s, lv) for s in slices for lv in levels]

    def offer(self, seed_phrase: PhraseSeed) -> dict[str, Any] | None:
        """Try one phrase; return the accepted row, or None (the reason is counted in stats)."""
        self.stats.offered += 1
        phrase, reason = clean_phrase(seed_phrase.text)
        if phrase is None:
            self.stats.clean_rejections[reason] += 1
            return None
        self.stats.cleaned += 1
        missing = self.validator.missing()
        cells = sorted(missing, key=lambda cell: (-missing[cell], self._grid.index(cell)))
        last = "fits no open cell"
        for slice_, level in cells:
            text = fit_text(phrase, level)
            if text is None:
                continue
            try:
                row = compile_row(text, slice_, level, self.seed)
            except CompileError:
                last = "no valid tape"
                continue
            problems = self.validator.problems(row)
            if problems:
                last = problems[0]
                continue
            number = sum(
                1
                for r in self.validator.rows
                if r["slice"] == slice_ and r["complexity_level"] == level
            )
            row = {"id": f"{slice_}-{level}-{number:02d}", **row}
            row["source"] = {
                "order": self.stats.accepted,
                "phrase": phrase,
                "topic": seed_phrase.topic,
                "style": seed_phrase.style,
            }
            self.validator.offer(row)
            self.stats.accepted += 1
            return row
        self.stats.row_rejections[last] += 1
        return None

    def offer_all(self, phrases: Iterable[PhraseSeed]) -> None:
        """Offer phrases in order until the grid is complete."""
        for seed_phrase in phrases:
            if self.complete():
                return
            self.offer(seed_phrase)

    def complete(self) -> bool:
        """True when every cell has its quota."""
        return self.validator.complete()

    def rows(self) -> list[dict[str, Any]]:
        """Accepted rows in grid order (slice, level), then acceptance order."""
        order = {cell: i for i, cell in enumerate(self._grid)}
        return sorted(
            self.validator.rows,
            key=lambda r: (order[(r["slice"], r["complexity_level"])], r["source"]["order"]),
        )


def serialize_rows(rows: list[dict[str, Any]]) -> str:
    """JSONL text of the rows (ASCII, one row a line, trailing newline)."""
    return "".join(json.dumps(row, ensure_ascii=True) + "\n" for row in rows)


def replay_phrases(rows: Iterable[dict[str, Any]]) -> list[PhraseSeed]:
    """The accepted phrases of a built benchmark, in acceptance order (for byte-exact rebuilds)."""
    ordered = sorted(rows, key=lambda r: r["source"]["order"])
    return [
        PhraseSeed(r["source"]["phrase"], r["source"]["topic"], r["source"]["style"])
        for r in ordered
    ]
