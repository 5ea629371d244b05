"""Golden tests of the host-side web comparator: each semantic equivalence, and what it rejects."""

from __future__ import annotations

import pytest
from smolscript.errors import ScoringInfraError
from smolscript.web import compare, score_browser_result
from smolscript_sandbox.syntax import check_css_syntax, check_html_syntax

pytestmark = pytest.mark.unit


def _verdict(match: str, observed, expected, **extra) -> bool:
    test = {"id": "t1", "probe": "p1", "match": match, "expected": expected, **extra}
    return compare({"p1": {"ok": True, "value": observed}}, [test])[0]["passed"]


def _text(text: str, mode: str = "collapse") -> dict:
    return {"text": text, "white_space_collapse": mode}


# (match, observed, expected, passes, why)
GOLDEN = [
    ("css", "rgb(255, 0, 0)", "red", True, "named colour = computed rgb"),
    ("css", "rgb(255, 0, 0)", "#f00", True, "short hex"),
    ("css", "rgb(255, 0, 0)", "#FF0000", True, "long hex, upper case"),
    ("css", "rgb(255, 0, 0)", "hsl(0, 100%, 50%)", True, "hsl"),
    ("css", "rgba(0, 0, 0, 0)", "transparent", True, "transparent"),
    ("css", "rgb(255, 0, 0)", "rgb(254, 0, 0)", False, "a different colour"),
    ("css", "100px", "100.3px", True, "sub-pixel layout rounding"),
    ("css", "100px", "101px", False, "a pixel off"),
    ("css", "2px solid rgb(0, 0, 128)", "2px solid navy", True, "multi-atom value"),
    ("css", "700", "700", True, "font weight"),
    ("css", "italic", "ITALIC", True, "keywords are case-insensitive"),
    ("css", "0.5", "0.25", False, "opacity differs"),
    ("enum", "POST", "post", True, "enumerated attribute case"),
    ("enum", " rtl ", "RTL", True, "enumerated attribute spacing"),
    ("enum", None, "post", False, "missing attribute"),
    ("enum", "get", "post", False, "other keyword"),
    ("number", "02", 2.0, True, "leading zero"),
    ("number", " 2 ", 2.0, True, "surrounding spaces"),
    ("number", "2.0", 2.0, True, "decimal form"),
    ("number", "3", 2.0, False, "other number"),
    ("number", "two", 2.0, False, "not a number"),
    ("tokens", ["a", "b"], ["b", "a"], True, "class order"),
    ("tokens", ["a"], ["a", "b"], False, "missing class"),
    ("bool", True, True, True, "boolean state"),
    ("bool", False, True, False, "absent boolean"),
    ("text", _text("  Hello \n\t world  "), "Hello world", True, "ordinary text collapses"),
    ("text", _text("Helloworld"), "Hello world", False, "missing space is a difference"),
    ("text", _text("  a\n  b", "preserve"), "  a\n  b", True, "pre keeps whitespace"),
    ("text", _text("a\nb", "preserve"), "  a\n  b", False, "pre does not collapse"),
    ("text", _text("a  b\n c", "preserve-breaks"), "a b\nc", True, "pre-line keeps breaks"),
    ("text", _text("a b c", "preserve-breaks"), "a b\nc", False, "pre-line break missing"),
    ("text", _text("hello"), "Hello", False, "ordinary text keeps its case"),
    ("rect", {"x": 10.2, "y": 0, "width": 50}, {"x": 10, "width": 50}, True, "rect subset"),
    ("rect", {"x": 12, "y": 0, "width": 50}, {"x": 10, "width": 50}, False, "rect x off"),
    ("count", 3, 3, True, "count"),
    ("count", 4, 3, False, "extra element"),
    ("exact", ["li", "li"], ["li", "li"], True, "child tags"),
    ("exact", ["li", "p"], ["li", "li"], False, "wrong child"),
]


@pytest.mark.parametrize("match,observed,expected,passes,why", GOLDEN,
                         ids=[g[4] for g in GOLDEN])
def test_golden_equivalences(match, observed, expected, passes, why):
    assert _verdict(match, observed, expected) is passes, why


def test_unreached_and_failed_probes_fail_with_reasons():
    tests = [{"id": "t1", "probe": "p1", "match": "count", "expected": 1},
             {"id": "t2", "probe": "p2", "match": "count", "expected": 1}]
    verdicts = compare({"p2": {"ok": False, "error": "no element matches ul"}}, tests)
    assert [v["passed"] for v in verdicts] == [False, False]
    assert verdicts[0]["reason"] == "probe not reached"
    assert "no element" in verdicts[1]["reason"]


def test_unknown_match_mode_is_a_data_error():
    with pytest.raises(ValueError, match="unknown match mode"):
        compare({}, [{"id": "t", "probe": "p", "match": "fuzzy", "expected": 1}])


def test_score_raises_on_infra_error_and_reports_syntax_separately():
    tests = [{"id": "t1", "probe": "p1", "match": "count", "expected": 2}]
    with pytest.raises(ScoringInfraError):
        score_browser_result({"status": "infra_error", "errors": ["setup"]}, tests)
    outcome = score_browser_result({"status": "ok", "syntax_ok": False,
                                    "observations": {"p1": {"ok": True, "value": 2}}}, tests)
    assert outcome["passed"] and not outcome["syntax_ok"] and outcome["fraction"] == 1.0


@pytest.mark.parametrize("source,clean", [
    ("<ul><li>a</li></ul>", True),
    ("<!-- task -->\n<p>one<p>two", True),  # optional end tags are valid HTML
    ("<ul><li>a", False),
    ("<div><span>x</div>", False),
    ('<p class="a>b</p>', False),
    ("<!DOCTYPE html><html><body><p>x</p></body></html>", True),
])
def test_html_syntax_flag(source, clean):
    assert (check_html_syntax(source) == []) is clean


@pytest.mark.parametrize("source,clean", [
    (".a { color: red; }", True),
    ("@media (min-width: 10px) { .a { color: red } }", True),
    ("/* note */ .a { margin: 0 auto } /* end */", True),
    (".a { color: red;", False),
    ("@media (min-width: 10px) { .a { color: red }", False),
    (".a { color red; }", False),
    (".a {}}", False),
])
def test_css_syntax_flag(source, clean):
    assert (check_css_syntax(source) == []) is clean
