"""Validator: each gate rejects a crafted bad row; the benchmark-level gates hold."""

from __future__ import annotations

import copy

import pytest
from pico_dsl_v1.compiler import build_row, compile_row
from pico_dsl_v1.validate import BenchmarkValidator, benchmark_problems, row_problems

pytestmark = pytest.mark.unit


@pytest.fixture(scope="module")
def good() -> dict:
    return compile_row("Seven geese cross", "deletion", "L3", seed=1)


def rebuilt(row: dict, **changes) -> dict:
    """A consistent row (targets and diagnostics recomputed) with some fields changed."""
    fields = {k: row[k] for k in ("input", "tape", "dictionary", "slice", "complexity_level")}
    fields.update(changes)
    return build_row(
        fields["input"],
        fields["tape"],
        fields["dictionary"],
        fields["slice"],
        fields["complexity_level"],
    )


def test_good_row_passes(good: dict) -> None:
    assert row_problems(good) == []


def test_wrong_targets_rejected(good: dict) -> None:
    bad = copy.deepcopy(good)
    bad["target_lines"][2] = bad["target_lines"][2] + "x"
    assert row_problems(bad) == ["target lines disagree with the oracle"]


def test_stale_diagnostics_rejected(good: dict) -> None:
    bad = copy.deepcopy(good)
    bad["diagnostics"]["literal_count"] += 1
    assert "diagnostics disagree" in row_problems(bad)[0]


def test_missing_field_and_incomplete_dictionary_rejected(good: dict) -> None:
    bad = {k: v for k, v in good.items() if k != "tape"}
    assert "missing fields: tape" in row_problems(bad)[0]
    partial = {k: v for k, v in good["dictionary"].items() if v != "SWAPCASE"}
    assert "every operation" in row_problems({**good, "dictionary": partial})[0]


def test_wrong_slice_rejected(good: dict) -> None:
    assert any("lacks repeat" in p for p in row_problems(rebuilt(good, slice="repeat")))


def test_wrong_level_rejected(good: dict) -> None:
    assert any("source_length" in p for p in row_problems(rebuilt(good, complexity_level="L1")))


def test_non_ascii_rejected(good: dict) -> None:
    assert "not printable ASCII" in row_problems(rebuilt(good, input="Seven g\u00e9ese cross"))


def test_angle_bracket_input_rejected(good: dict) -> None:
    problems = row_problems(rebuilt(good, input="Seven <geese> cros"))
    assert "input empty, padded or containing < or >" in problems


def copy_row(good: dict, text: str) -> dict:
    """A deletion row over `text` from good's dictionary: drop the first char, take the rest."""
    take = next(s for s, op in good["dictionary"].items() if op == "TAKE")
    drop = next(s for s, op in good["dictionary"].items() if op == "DROP")
    return rebuilt(good, input=text, tape=drop + take * (len(text) - 1))


def test_ml_token_rejected(good: dict) -> None:
    assert "lowercase ml token" in row_problems(copy_row(good, "Xadd 5 ml of milk"))
    assert "lowercase ml token" not in row_problems(copy_row(good, "Xadd 5 ML of milk"))


def test_filler_tail_rejected(good: dict) -> None:
    assert "filler-like target tail" in row_problems(copy_row(good, "Xcats and dogs etc"))
    assert "filler-like target tail" in row_problems(copy_row(good, "cats and dogs..."))


def test_low_entropy_tape_rejected(good: dict) -> None:
    take = next(s for s, op in good["dictionary"].items() if op == "TAKE")
    drop = next(s for s, op in good["dictionary"].items() if op == "DROP")
    tape = take * (len(good["input"]) - 1) + drop
    assert any(p.startswith("tape entropy") for p in row_problems(rebuilt(good, tape=tape)))


def test_unconsumed_source_rejected(good: dict) -> None:
    assert "source not fully consumed" in row_problems(rebuilt(good, tape=good["tape"][:-3]))


def test_set_gates_duplicates_quota_and_balance(good: dict) -> None:
    validator = BenchmarkValidator(rows_per_cell=1, slices=["deletion"], levels=["L3"])
    assert validator.offer(good) == []
    assert validator.offer(copy.deepcopy(good)) == ["cell ('deletion', 'L3') already full"]
    validator = BenchmarkValidator(rows_per_cell=2, slices=["deletion"], levels=["L3"])
    assert validator.offer(good) == []
    assert validator.offer(copy.deepcopy(good)) == ["duplicate row"]
    other = compile_row(good["input"], "deletion", "L3", seed=99)
    assert validator.offer(other) == ["duplicate input"]
    problems = benchmark_problems([{**good, "id": "a"}], rows_per_cell=1)
    assert any("short by 1" in p for p in problems)


def test_duplicate_short_normalized_target_rejected() -> None:
    first = compile_row("Cold tea", "copy_case", "L1", seed=0)
    validator = BenchmarkValidator(rows_per_cell=5, slices=["copy_case"], levels=["L1"])
    assert validator.offer(first) == []
    second = compile_row("cold TEA", "copy_case", "L1", seed=0)
    assert validator.offer(second) == ["duplicate short normalized target"]


def symbol(row: dict, op: str) -> str:
    """The first dictionary symbol of `row` that names `op`."""
    return next(s for s, o in row["dictionary"].items() if o == op)


@pytest.mark.parametrize(
    ("text", "ops", "problem", "why"),
    [
        ("Cats nap", ["TAKE"] * 8 + ["TAKE"], "tape changes nothing (line 3 equals line 2)",
         "all TAKE plus a no-op suffix: the copy answer S, reverse(S), reverse(S), S is exact"),
        ("Cats nap", ["UPPER"] * 8 + ["TAKE"], "one case change on every letter",
         "every letter upper-cased: a tape-blind upper() of line 2 is exact"),
        ("Cats nap", ["TAKE", "TAKE", "LOWER", "TAKE", "TAKE", "TAKE", "TAKE", "LOWER", "TAKE"],
         "one case change on every letter",
         "lowering the only capital: a tape-blind lower() of line 2 is exact"),
        ("Cats nap", ["SWAPCASE"] * 8 + ["UPPER"], "one case change on every letter",
         "every letter swapped: a tape-blind swapcase() of line 2 is exact"),
        ("Cats nap", ["REPEAT"] * 8 + ["TAKE"], "every character doubled",
         "every character repeated: doubling line 2 without the tape is exact"),
        ("Cats nap", ["UPPER", "LOWER", "UPPER", "TAKE", "LOWER", "UPPER", "LOWER", "UPPER",
                      "TAKE"], "alternating or title case",
         "upper/lower by turns over the letters: alternating case of line 2 is exact"),
        ("Cats nap", ["UPPER", "TAKE", "TAKE", "TAKE", "TAKE", "TAKE", "TAKE", "LOWER", "TAKE"],
         "alternating or title case", "str.capitalize() of line 2 ('Pan stac') is exact"),
        ("Cats nap", ["UPPER", "TAKE", "TAKE", "TAKE", "UPPER", "TAKE", "TAKE", "LOWER", "TAKE"],
         "alternating or title case", "str.title() of line 2 ('Pan Stac') is exact"),
    ],
)
def test_rows_a_tape_blind_answer_solves_are_rejected(
    text: str, ops: list[str], problem: str, why: str
) -> None:
    base = compile_row("Cats nap", "noop_suffix", "L1", seed=0)
    tape = "".join(symbol(base, op) for op in ops)
    row = build_row(text, tape, base["dictionary"], "noop_suffix", "L1")
    assert any(problem in p for p in row_problems(row)), why


def test_a_tape_that_changes_one_letter_passes_the_gate() -> None:
    base = compile_row("Cats nap", "noop_suffix", "L1", seed=0)
    tape = symbol(base, "UPPER") + symbol(base, "TAKE") * 7 + symbol(base, "TAKE")
    row = build_row("Cats nap", tape, base["dictionary"], "noop_suffix", "L1")
    assert row["target_lines"][2] == "Pan staC"
    assert not [p for p in row_problems(row) if "line 3" in p]


def test_packaged_and_generated_rows_need_the_tape() -> None:
    """No packaged benchmark row, and no train row (the tiny stream the GRPO script uses, where
    about 10% of rows were copies before the gate), is solved by a tape-blind answer."""
    from pico_dsl_v1.oracle import blind_outputs
    from pico_dsl_v1.splits import eval_rows, train_rows

    for rows in (eval_rows(), train_rows(480, difficulty="tiny"), train_rows(480)):
        assert not [r["id"] for r in rows
                    if r["target_lines"][2] in blind_outputs(r["target_lines"][1])]
