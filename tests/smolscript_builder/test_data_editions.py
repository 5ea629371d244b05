"""Unit tests of edition compositions, stratified selection and the audits."""

from __future__ import annotations

import pytest
from smolscript_builder.audit import jaccard, trigram_audit, trigrams, uniqueness_audit
from smolscript_builder.editions import (
    EDITION_SIZES,
    allocate,
    composition,
    count_cells,
    select,
    selection_hash,
)

pytestmark = pytest.mark.unit


@pytest.mark.parametrize("edition", ["full2000", "previous1000", "default"])
def test_compositions_sum_and_nest(edition):
    counts = composition(edition)
    assert sum(counts.values()) == EDITION_SIZES[edition]
    default = composition("default")
    for cell, n in counts.items():
        assert n >= default[cell]
        if edition == "full2000":
            assert n >= composition("previous1000")[cell]


def test_default_composition_is_the_fixed_table():
    counts = composition("default")
    assert counts[("python", "program", "moderate")] == 5
    assert (
        counts[("javascript", "browser", "easy")] + counts[("javascript", "program", "easy")] == 27
    )
    assert sum(n for (lang, _, _), n in counts.items() if lang == "html") == 35


@pytest.mark.parametrize(
    ("quota", "sizes", "expected", "why"),
    [
        (4, {"a": 2, "b": 2}, {"a": 2, "b": 2}, "everything"),
        (3, {"a": 6, "b": 3}, {"a": 2, "b": 1}, "proportional"),
        (2, {"a": 1, "b": 1, "c": 1}, {"a": 1, "b": 1, "c": 0}, "ties broken by name"),
        (3, {"a": 1, "b": 9}, {"a": 0, "b": 3}, "largest remainder: 0.3 vs 2.7"),
    ],
)
def test_allocate_golden(quota, sizes, expected, why):
    assert allocate(quota, sizes) == expected, why


def test_allocate_rejects_too_large_quota():
    with pytest.raises(ValueError):
        allocate(5, {"a": 2, "b": 2})


def _rows(n):
    return [
        {
            "id": f"python-{i:04d}",
            "language": "python",
            "modality": "program",
            "difficulty": ("easy", "medium", "moderate")[i % 3],
            "family": ("arithmetic", "strings")[i % 2],
            "category": "c",
        }
        for i in range(n)
    ]


def test_select_is_deterministic_stratified_and_hash_ranked():
    rows = _rows(60)
    counts = {
        ("python", "program", "easy"): 6,
        ("python", "program", "medium"): 4,
        ("python", "program", "moderate"): 2,
    }
    chosen = select("default", rows, counts)
    assert chosen == select("default", list(reversed(rows)), counts)
    picked = [r for r in rows if r["id"] in {c["id"] for c in chosen}]
    assert count_cells(picked) == counts
    easy_strata = [r["family"] for r in picked if r["difficulty"] == "easy"]
    assert sorted(easy_strata) == ["arithmetic"] * 3 + ["strings"] * 3
    assert all(c["hash"] == selection_hash("default", c["id"]) for c in chosen)
    easy_arith = sorted(
        (r for r in rows if r["difficulty"] == "easy" and r["family"] == "arithmetic"),
        key=lambda r: selection_hash("default", r["id"]),
    )
    assert {r["id"] for r in easy_arith[:3]} <= {c["id"] for c in chosen}
    with pytest.raises(ValueError):
        select("default", rows[:3], counts)


def test_trigram_audit_flags_and_explains():
    assert trigrams("a b c d") == {("a", "b", "c"), ("b", "c", "d")}
    assert jaccard(frozenset({1, 2}), frozenset({2, 3})) == pytest.approx(1 / 3)

    def row(identifier, text, stages, fingerprint):
        return {
            "id": identifier,
            "language": "c",
            "modality": "program",
            "instruction": text,
            "metadata": {"stages": stages, "fingerprint": fingerprint},
        }

    text = "Start from xs: keep only the numbers that are even; then add them up."
    rows = [
        row("c-1", text, ["filter:even", "sum"], "f1"),
        row("c-2", text.replace("even", "odd"), ["filter:odd", "sum"], "f2"),
        row("c-3", text, ["filter:even", "sum"], "f1"),
        row("c-4", "Start from n: square it.", ["imap:sq"], "f4"),
    ]
    audit = trigram_audit(rows, threshold=0.5)
    pairs = {(f["a"], f["b"]): f for f in audit["flagged"]}
    assert set(pairs) == {("c-1", "c-2"), ("c-1", "c-3"), ("c-2", "c-3")}
    assert (
        pairs[("c-1", "c-2")]["kept"] and "fingerprints differ" in pairs[("c-1", "c-2")]["reason"]
    )
    assert not pairs[("c-1", "c-3")]["kept"]
    assert audit["rejected_count"] == 1
    assert uniqueness_audit(rows)["c/program"]["duplicates"] == [["c-1", "c-3"]]
