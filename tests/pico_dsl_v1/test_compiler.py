"""Compiler: every compiled row lands in its slice and level definition, deterministically."""

from __future__ import annotations

import pytest
from pico_dsl_v1.compiler import compile_row, fit_text, fitting_spans
from pico_dsl_v1.diagnostics import measure
from pico_dsl_v1.errors import CompileError
from pico_dsl_v1.oracle import target_lines
from pico_dsl_v1.phrases import BUILTIN_PHRASES
from pico_dsl_v1.spec import LEVEL_SPECS, LEVELS, SLICE_PHENOMENON, SLICES
from pico_dsl_v1.validate import definition_problems, row_problems

pytestmark = pytest.mark.unit
PHRASES = BUILTIN_PHRASES[:12]


@pytest.mark.parametrize("slice_", SLICES)
@pytest.mark.parametrize("level", LEVELS)
def test_rows_land_in_their_definition(slice_: str, level: str) -> None:
    compiled = 0
    for phrase in PHRASES:
        text = fit_text(phrase, level)
        if text is None:
            continue
        row = compile_row(text, slice_, level, seed=3)
        compiled += 1
        diag = measure(row["input"], row["tape"], row["dictionary"])
        assert row["diagnostics"] == diag
        assert tuple(row["target_lines"]) == target_lines(text, row["tape"], row["dictionary"])
        assert definition_problems(slice_, level, diag) == []
        assert row_problems(row) == []
        phenomena = set(diag["phenomena"])
        if slice_ == "composite":
            assert len(phenomena) >= 3
        else:
            assert SLICE_PHENOMENON[slice_] in phenomena
            assert phenomena <= {SLICE_PHENOMENON[slice_], "case"}
        if slice_ == "deletion":
            assert diag["drop_count"] > 0 and diag["leftover"] == 0
        if slice_ == "noop_suffix":
            assert diag["noop_count"] > 0
    assert compiled >= 6


def test_same_inputs_give_same_row_and_seed_matters() -> None:
    text = fit_text(PHRASES[0], "L3")
    assert text is not None
    assert compile_row(text, "composite", "L3", 7) == compile_row(text, "composite", "L3", 7)
    tapes = {compile_row(text, "composite", "L3", s)["tape"] for s in range(5)}
    assert len(tapes) > 1


def test_levels_grow() -> None:
    specs = [LEVEL_SPECS[level] for level in LEVELS]
    for low, high in zip(specs, specs[1:], strict=False):
        assert high.source_length[0] > low.source_length[1]
        assert high.tape_length[1] > low.tape_length[1]
        assert high.distinct_ops[1] >= low.distinct_ops[1]
        assert high.max_literals > low.max_literals


def test_text_outside_band_and_bad_names_are_refused() -> None:
    with pytest.raises(CompileError, match="outside L1"):
        compile_row("a much longer text than ten", "copy_case", "L1")
    with pytest.raises(ValueError, match="valid: copy_case"):
        compile_row("hello", "nope", "L1")
    with pytest.raises(ValueError, match="valid: L1"):
        compile_row("hello", "copy_case", "L9")


def test_spans_start_at_clause_and_avoid_dangling_words() -> None:
    spans = fitting_spans("Cold tea, warm bread and the old mill", "L2")
    assert spans and all(not s.endswith((" the", " and", ",")) for s in spans)
    assert all(s.startswith(("Cold", "warm")) for s in spans)
    assert fit_text("Cold tea, warm bread", "L1") == "Cold tea"
