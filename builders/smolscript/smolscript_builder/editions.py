"""Edition compositions and the deterministic stratified SHA256 selection between editions.

full2000 (archive v0.1.0) is generated; previous1000 (archive v0.2.0) is selected from it and
the default 350 from previous1000. A cell is (language, modality, difficulty); its count is
fixed by the edition's composition. Inside a cell the quota is spread over the
(family, category) strata in proportion to their sizes in the parent edition (largest
remainder, ties by stratum name), and each stratum keeps its records with the smallest
``sha256(f"{edition}:{id}")``.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from fractions import Fraction
from typing import Any

DATASET_VERSION = "0.5.0"
# Earlier versions of the default edition, kept loadable as they were published: their files
# are frozen (never rebuilt; `archive/<version>/checksums.json` pins their bytes). 0.3.0 was
# built by this builder at commit e22a1f6; 0.4.0 changed only the HTML and CSS probes and was
# built at acff11d; 0.5.0 added hidden inputs that catch pipeline mutants (mutants.py) and
# probes of every element a media-query task could style.
FROZEN_ARCHIVES = {"default-0.3.0": "archive/v0.3.0/", "default-0.4.0": "archive/v0.4.0/"}
DIFFICULTIES: tuple[str, ...] = ("easy", "medium", "moderate")
EDITIONS: tuple[str, ...] = ("full2000", "previous1000", "default")
EDITION_SIZES = {"full2000": 2000, "previous1000": 1000, "default": 350}
ARCHIVES = {"full2000": "v0.1.0", "previous1000": "v0.2.0"}

Cell = tuple[str, str, str]  # (language, modality, difficulty)

# The default edition's composition (fixed). JavaScript's browser DOM/event tasks are their
# own cells (modality "browser"): 2 easy, 1 medium, 1 moderate of its 44.
DEFAULT_TABLE: dict[tuple[str, str], tuple[int, int, int]] = {
    ("python", "program"): (26, 13, 5),
    ("javascript", "program"): (25, 12, 3),
    ("javascript", "browser"): (2, 1, 1),
    ("html", "browser"): (21, 11, 3),
    ("css", "browser"): (21, 10, 4),
    ("cpp", "program"): (24, 12, 4),
    ("c", "program"): (23, 12, 4),
    ("lua", "program"): (21, 11, 3),
    ("csharp", "program"): (24, 11, 4),
    ("rust", "program"): (23, 12, 4),
}


def default_composition() -> dict[Cell, int]:
    """The default edition's cell counts (350 in all)."""
    return {
        (lang, mod, diff): row[i]
        for (lang, mod), row in DEFAULT_TABLE.items()
        for i, diff in enumerate(DIFFICULTIES)
    }


def scaled_composition(total: int) -> dict[Cell, int]:
    """The default composition scaled to ``total`` by largest remainder (ties: table order)."""
    base = default_composition()
    exact = {cell: Fraction(count * total, 350) for cell, count in base.items()}
    counts = {cell: int(value) for cell, value in exact.items()}
    order = sorted(base, key=lambda cell: (-(exact[cell] - counts[cell]), list(base).index(cell)))
    for cell in order[: total - sum(counts.values())]:
        counts[cell] += 1
    return counts


def composition(edition: str) -> dict[Cell, int]:
    """Cell counts of ``edition``; raises KeyError naming the valid editions."""
    if edition == "default":
        return default_composition()
    if edition not in EDITION_SIZES:
        raise KeyError(f"unknown edition {edition!r}; valid: {EDITIONS}")
    return scaled_composition(EDITION_SIZES[edition])


def selection_hash(edition: str, record_id: str) -> str:
    """The ranking hash of a record when selecting ``edition`` from its parent."""
    return hashlib.sha256(f"{edition}:{record_id}".encode()).hexdigest()


def allocate(quota: int, sizes: Mapping[str, int]) -> dict[str, int]:
    """Spread ``quota`` over strata proportionally to ``sizes`` (largest remainder, capped).

    Raises ValueError when the strata hold fewer than ``quota`` records.
    """
    total = sum(sizes.values())
    if quota > total:
        raise ValueError(f"quota {quota} exceeds the {total} records available")
    exact = {key: Fraction(quota * size, total) for key, size in sizes.items()}
    alloc = {key: int(value) for key, value in exact.items()}
    for key in sorted(sizes, key=lambda k: (-(exact[k] - alloc[k]), k)):
        if sum(alloc.values()) == quota:
            break
        if alloc[key] < sizes[key]:
            alloc[key] += 1
    return alloc


def cell_of(record: Mapping[str, Any]) -> Cell:
    """The composition cell of a public record."""
    return (record["language"], record["modality"], record["difficulty"])


def select(
    edition: str, parent: Sequence[Mapping[str, Any]], counts: Mapping[Cell, int] | None = None
) -> list[dict[str, str]]:
    """Select ``edition`` from the parent edition's public records.

    ``counts`` overrides the edition's composition (a program-only build drops browser cells).
    Returns ``[{"id", "hash"}]`` sorted by id. Raises ValueError when a cell lacks records.
    """
    by_cell: dict[Cell, dict[str, list[Mapping[str, Any]]]] = defaultdict(lambda: defaultdict(list))
    for record in parent:
        by_cell[cell_of(record)][f"{record['family']}/{record['category']}"].append(record)
    chosen: list[dict[str, str]] = []
    for cell, quota in (counts if counts is not None else composition(edition)).items():
        strata = by_cell.get(cell, {})
        alloc = allocate(quota, {key: len(rows) for key, rows in strata.items()})
        for key, rows in strata.items():
            ranked = sorted(rows, key=lambda r: selection_hash(edition, r["id"]))
            chosen += [
                {"id": r["id"], "hash": selection_hash(edition, r["id"])}
                for r in ranked[: alloc[key]]
            ]
    return sorted(chosen, key=lambda item: item["id"])


def count_cells(records: Iterable[Mapping[str, Any]]) -> dict[Cell, int]:
    """Cell counts of some records (for checking a composition)."""
    counts: dict[Cell, int] = defaultdict(int)
    for record in records:
        counts[cell_of(record)] += 1
    return dict(counts)


def edition_counts(edition: str, include_web: bool) -> dict[Cell, int]:
    """The edition's cells (browser cells dropped for a program-only build)."""
    return {
        cell: n for cell, n in composition(edition).items() if include_web or cell[1] == "program"
    }
