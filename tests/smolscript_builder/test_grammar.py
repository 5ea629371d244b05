"""Unit tests: every operation's IR (rendered as Python) agrees with its oracle on the probes,
and near-miss / negative variants really change behaviour."""

from __future__ import annotations

import pytest
from smolscript_builder.domains import PROBES
from smolscript_builder.emit import emit_source
from smolscript_builder.generate import family_of, fingerprint, parse_stage, stage_key
from smolscript_builder.grammar import OPS, Stage, emit_pipeline, run_pipeline

pytestmark = pytest.mark.unit
PARAMS = {"int": "n", "str": "s", "list[int]": "xs", "list[str]": "words"}


def _python(stages, negative=False):
    kind = stages[0].spec.in_type
    returns = stages[-1].spec.out_type
    sig = {"params": [{"name": PARAMS[kind], "type": kind}], "returns": returns}
    namespace = {}
    exec(
        emit_source("python", emit_pipeline(stages, PARAMS[kind], returns, negative), sig),
        namespace,
    )
    return namespace["solve"]


def _cases():
    for name, op in OPS.items():
        for arg in op.args:
            stages = (Stage(name, arg),)
            if op.out_type == "list[str]":
                stages += (Stage("winitials"),)
            yield pytest.param(stages, id=stage_key(stages))


@pytest.mark.parametrize("stages", list(_cases()))
def test_python_rendering_matches_oracle_on_probes(stages):
    solve = _python(stages)
    negative = _python(stages, negative=True)
    probes = PROBES[stages[0].spec.in_type]
    for probe in probes:
        expected = run_pipeline(stages, probe)[0]
        assert solve(probe) == expected, probe
        assert negative(probe) != expected, probe


@pytest.mark.parametrize(
    ("text", "value", "expected", "why"),
    [
        ("imap:last", -47, 7, "last digit of the absolute value"),
        ("imap:collatz", -3, -8, "odd: 3x+1 (sign kept)"),
        ("imap:collatz", -6, -3, "even: exact halving"),
        ("digitcount", 0, 1, "0 has one digit"),
        ("revdigits", -120, 21, "leading zeros vanish, sign dropped"),
        ("cmap:caesar:3", "xyz XYZ!", "abc ABC!", "wraps and keeps case"),
        ("cdup", "Mississippi", 3, "s, i and p repeat"),
        ("mode", [3, 1, 3, 1, 2], 1, "smallest value on a tie"),
        ("wmode", ["b", "a", "a", "b"], "b", "first occurring word on a tie"),
        ("altsum", [5, 2, 1], 4, "5 - 2 + 1"),
        ("take:3", "ab", "ab", "shorter strings kept whole"),
        ("max0", [], 0, "0 for an empty list"),
        ("lall:even", [], True, "all() of nothing is true"),
    ],
)
def test_oracle_golden(text, value, expected, why):
    assert run_pipeline((parse_stage(text),), value)[0] == expected, why


def test_family_and_fingerprint():
    assert family_of((Stage("filter", "even"), Stage("sum"))) == "collections"
    assert family_of((Stage("ccount", "digit"), Stage("imap", "sq"))) == "combinations"
    assert family_of((Stage("uniq"), Stage("sum"))) == "frequency"
    same = fingerprint("list[int]", (Stage("filter", "even"), Stage("count")))
    assert same == fingerprint("list[int]", (Stage("countif", "even"),))
    assert same != fingerprint("list[int]", (Stage("countif", "odd"),))
    with pytest.raises(KeyError):
        parse_stage("nosuchop:1")


@pytest.mark.parametrize(
    ("stages", "expected"),
    [
        (("filter:gt:5", "sum"), "list[int]|filter:gt>sum"),
        (("take:3", "slength"), "str|take:K>slength"),
        (("wjoin:-",), "list[str]|wjoin:K"),
        (("cmap:caesar:13", "keep:digit"), "str|cmap:caesar>keep:digit"),
    ],
)
def test_structure_key_ignores_constants(stages, expected):
    from smolscript_builder.generate import structure_key

    parsed = tuple(parse_stage(s) for s in stages)
    assert structure_key(parsed[0].spec.in_type, parsed) == expected
