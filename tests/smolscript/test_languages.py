"""Unit tests of the language table, the value wire format, the harness and the emitter."""

from __future__ import annotations

import pytest
from smolscript.languages import LANGUAGES, PROGRAM_LANGUAGES, render_job_files
from smolscript.types import SignatureError, canonical_output, encode_stdin
from smolscript_builder import ir
from smolscript_builder.emit import Emitter, emit_source
from smolscript_builder.grammar import OPS, Stage, emit_pipeline
from smolscript_builder.syntax import EXPR_KEYS, STMT_KEYS, SYNTAX

pytestmark = pytest.mark.unit

SIG_INT = {"params": [{"name": "n", "type": "int"}], "returns": "int"}


@pytest.mark.parametrize(
    ("args", "params", "expected", "why"),
    [
        ([-7], ["int"], "-7\n", "ints in decimal"),
        ([True], ["bool"], "true\n", "bools as words"),
        (["a b,c"], ["str"], "a b,c\n", "strings verbatim, spaces kept"),
        ([""], ["str"], "\n", "empty string is an empty line"),
        ([[3, -1]], ["list[int]"], "2\n3\n-1\n", "length line then one item per line"),
        ([[]], ["list[int]"], "0\n", "empty list is just its length"),
        ([["ox", "io"], 4], ["list[str]", "int"], "2\nox\nio\n4\n", "params in order"),
    ],
)
def test_encode_stdin_golden(args, params, expected, why):
    sig = {"params": [{"name": f"p{i}", "type": t} for i, t in enumerate(params)], "returns": "int"}
    assert encode_stdin(args, sig) == expected, why


@pytest.mark.parametrize(
    ("value", "typ", "expected"),
    [
        (0, "int", "0"),
        (-12, "int", "-12"),
        (False, "bool", "false"),
        ("", "str", ""),
        (" x ", "str", " x "),
        ([1, -2, 3], "list[int]", "1 -2 3"),
        ([], "list[int]", ""),
    ],
)
def test_canonical_output_golden(value, typ, expected):
    assert canonical_output(value, typ) == expected


@pytest.mark.parametrize(
    ("value", "typ"),
    [
        (2**31, "int"),
        (True, "int"),
        ("é", "str"),
        ("a\nb", "str"),
        ([1.5], "list[int]"),
        (["a b"], "list[str]"),
        ([""], "list[str]"),
        (1, "float"),
    ],
)
def test_bad_values_raise(value, typ):
    with pytest.raises(SignatureError):
        encode_stdin([value], {"params": [{"name": "v", "type": typ}], "returns": "int"})


def test_language_table_is_complete():
    assert list(LANGUAGES) == [
        "python",
        "javascript",
        "html",
        "css",
        "cpp",
        "c",
        "lua",
        "csharp",
        "rust",
    ]
    for language in PROGRAM_LANGUAGES:
        spec = LANGUAGES[language]
        assert spec.harness and spec.signature and spec.source_name
        assert spec.source_name == f"main.{spec.extension}"


def test_render_job_files_appends_harness_and_rejects_browser_languages():
    files = render_job_files("python", "def solve(n):\n    return n\n", SIG_INT)
    text = files["main.py"]
    assert text.startswith("def solve(n):\n    return n\n") and "_smol_main()" in text
    assert "@@" not in text
    with pytest.raises(ValueError):
        render_job_files("css", "p {}", SIG_INT)
    with pytest.raises(KeyError):
        render_job_files("cobol", "", SIG_INT)


@pytest.mark.parametrize("language", PROGRAM_LANGUAGES)
def test_syntax_tables_cover_every_ir_key(language):
    syntax = SYNTAX[language]
    assert sorted(set(EXPR_KEYS) - set(syntax.expr)) == []
    assert sorted(set(STMT_KEYS) - set(syntax.stmt)) == []


@pytest.mark.parametrize("language", PROGRAM_LANGUAGES)
def test_every_operation_emits_in_every_language(language):
    """Each op (with each of its arguments) spells without a missing template."""
    for name, op in OPS.items():
        for arg in op.args:
            stages = (Stage(name, arg),)
            if op.out_type == "list[str]":
                stages += (Stage("wcount"),)
            returns = stages[-1].spec.out_type
            param = {"int": "n", "str": "s", "list[int]": "xs", "list[str]": "words"}[op.in_type]
            sig = {"params": [{"name": param, "type": op.in_type}], "returns": returns}
            for negative in (False, True):
                text = emit_source(language, emit_pipeline(stages, param, returns, negative), sig)
                assert text.startswith(
                    LANGUAGES[language].imports + LANGUAGES[language].entry_header(sig)
                )


def test_emitter_spells_known_python_and_c():
    body = [
        ir.Decl("t", "int", ir.b("mod", ir.Un("abs", ir.v("n")), 10)),
        ir.If(ir.b("gt", ir.v("t"), 4), (ir.Set("t", ir.lit(-1)),)),
        ir.Return(ir.v("t"), "int"),
    ]
    assert emit_source("python", body, SIG_INT) == (
        "def solve(n):\n    t = abs(n) % 10\n    if t > 4:\n        t = -1\n    return t\n"
    )
    c = emit_source("c", body, SIG_INT)
    assert "int t = abs(n) % 10;" in c and "if ((t > 4)) {" in c and c.endswith("}\n")
    with pytest.raises(TypeError):
        Emitter("python").expr("n")

