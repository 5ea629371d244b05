"""Unit tests of the web task generator: determinism, uniqueness, record shape, static checks."""

from __future__ import annotations

import json

import pytest
from smolscript.verdict import build_browser_job
from smolscript_builder.web import generate_web_tasks
from smolscript_sandbox.executor import validate_job
from smolscript_sandbox.syntax import check_css_syntax, check_html_syntax

pytestmark = pytest.mark.unit

# Roughly the full2000 edition's web share (2000/350 of the default table), plus headroom.
FULL_COUNTS = {"html": {"easy": 130, "medium": 70, "moderate": 25},
               "css": {"easy": 130, "medium": 65, "moderate": 30},
               "javascript": {"easy": 15, "medium": 10, "moderate": 10}}
RECORD_KEYS = {"language", "difficulty", "family", "category", "modality", "kind",
               "instruction", "input_domain", "entry_point", "signature", "prefix", "imports",
               "fixture", "base_styles", "viewports", "probes", "timeout_s",
               "reference_solution", "negative_control", "near_miss", "near_miss_description",
               "hidden_tests", "spec", "spec_key", "shape_key"}


@pytest.fixture(scope="module")
def full_share() -> dict[tuple[str, str], list[dict]]:
    return {(lang, diff): generate_web_tasks(lang, n, 2000, diff)
            for lang, by_diff in FULL_COUNTS.items() for diff, n in by_diff.items()}


def test_deterministic():
    assert generate_web_tasks("css", 20, 5, "medium") == generate_web_tasks("css", 20, 5, "medium")
    assert generate_web_tasks("css", 20, 5, "medium") != generate_web_tasks("css", 20, 6, "medium")


def test_specs_unique_within_and_across_difficulties(full_share):
    for lang in FULL_COUNTS:
        keys = [r["spec_key"] for (lg, _), rows in full_share.items() if lg == lang
                for r in rows]
        assert len(keys) == len(set(keys)), lang


def test_every_category_appears_and_structure_grows(full_share):
    for (lang, diff), rows in full_share.items():
        assert len(rows) == FULL_COUNTS[lang][diff]
        assert len({r["category"] for r in rows}) >= 2, (lang, diff)
    for lang in FULL_COUNTS:
        mean = {d: sum(len(r["hidden_tests"]) for r in full_share[(lang, d)])
                / len(full_share[(lang, d)]) for d in FULL_COUNTS[lang]}
        assert mean["easy"] < mean["medium"] <= mean["moderate"] * 1.05, (lang, mean)


def test_record_shape_and_prefixes(full_share):
    for (lang, _), rows in full_share.items():
        for r in rows:
            assert set(r) == RECORD_KEYS
            assert r["reference_solution"].startswith(r["prefix"])
            assert r["negative_control"].startswith(r["prefix"])
            assert r["reference_solution"] != r["negative_control"]
            assert {t["probe"] for t in r["hidden_tests"]} <= {p["id"] for p in r["probes"]}
            assert not any("expected" in p for p in r["probes"])
            validate_job(build_browser_job(r, r["reference_solution"]).model_dump())
            if lang == "html":
                assert r["prefix"].endswith("-->\n<") and "--" not in r["instruction"]
            elif lang == "css":
                assert r["prefix"].endswith("*/\n") and r["prefix"].count("*/") == 1
                assert r["fixture"] and r["base_styles"] in r["fixture"]
            else:
                assert r["prefix"].endswith("function setup(doc) {\n")
                assert r["kind"] == "dom" and r["entry_point"] == "setup"


def test_references_are_syntactically_clean(full_share):
    for (lang, _), rows in full_share.items():
        for r in rows:
            if lang == "html":
                assert check_html_syntax(r["reference_solution"]) == [], r["reference_solution"]
            elif lang == "css":
                assert check_css_syntax(r["reference_solution"]) == [], r["reference_solution"]


def test_browser_job_from_dataset_rows(full_share):
    """The dataset part's public rows (smolscript_builder.build.web_task) give the same job."""
    from smolscript_builder.build import web_task

    for lang in FULL_COUNTS:
        record = full_share[(lang, "medium")][0]
        public = web_task(lang, record).public
        assert "expected" not in json.dumps(public["tests"])
        assert build_browser_job(public, "x") == build_browser_job(record, "x")
        as_parquet = dict(public, tests=json.dumps(public["tests"]))
        assert build_browser_job(as_parquet, "x") == build_browser_job(record, "x")


@pytest.mark.parametrize("args,message", [
    (("python", 1, 0, "easy"), "unknown web language"),
    (("html", 1, 0, "hard"), "unknown difficulty"),
    (("html", -1, 0, "easy"), "count"),
    (("javascript", 100000, 0, "easy"), "distinct"),
])
def test_bad_arguments_raise(args, message):
    with pytest.raises(ValueError, match=message):
        generate_web_tasks(*args)


# --- Probes that check the whole task (issue 25, item 3) -------------------------------------

def _public(record: dict) -> dict:
    """The public-row view `coverage_errors` reads of a generator record."""
    return {"id": record["spec_key"][:10], "tests": {"kind": record["kind"],
            "viewports": record["viewports"], "probes": record["probes"]},
            "metadata": {"spec": record["spec"]}, "fixture": record["fixture"]}


def test_every_generated_html_and_css_task_covers_its_task(full_share):
    from smolscript_builder.web.coverage import coverage_errors

    for rows in full_share.values():
        for r in rows:
            assert coverage_errors(_public(r), {"tests": r["hidden_tests"]}) == [], r["spec"]


@pytest.mark.parametrize("break_it,message", [
    (lambda r: r["hidden_tests"].__setitem__(slice(None), [t for t in r["hidden_tests"]
                                                           if t["match"] != "count"]),
     "no count test"),
    (lambda r: r["probes"].__setitem__(slice(None), [p for p in r["probes"]
                                                     if not p.get("index")]),
     "probed at [0]"),
], ids=["count-removed", "first-match-only"])
def test_coverage_rules_name_what_a_probe_set_leaves_unchecked(break_it, message):
    """The 0.3.0 shape of a scope task (count tests removed, or only index 0 probed) fails."""
    from smolscript_builder.web.coverage import coverage_errors

    record = next(r for r in generate_web_tasks("css", 40, 0, "easy")
                  if r["spec"].get("pattern") == "class")
    break_it(record)
    errors = coverage_errors(_public(record), {"tests": record["hidden_tests"]})
    assert any(message in e for e in errors), errors


def test_coverage_rules_catch_missing_breakpoint_widths_and_visibility():
    from smolscript_builder.web.coverage import coverage_errors

    css = next(r for r in generate_web_tasks("css", 10, 0, "easy")
               if r["category"] == "breakpoints")
    point = css["spec"]["rules"][0][1]
    css["viewports"] = [v for v in css["viewports"] if v["width"] != point - 1]
    assert any(f"breakpoint {point}px" in e
               for e in coverage_errors(_public(css), {"tests": css["hidden_tests"]}))
    html = generate_web_tasks("html", 1, 0, "easy")[0]
    html["probes"] = [p for p in html["probes"] if p["op"] != "visible"]
    assert any("visibility" in e
               for e in coverage_errors(_public(html), {"tests": html["hidden_tests"]}))


@pytest.mark.parametrize("difficulty", ["easy", "medium"])
def test_coverage_rules_catch_a_media_query_task_probing_only_its_targets(difficulty):
    """Issue 42: 0.4.0's breakpoint tasks probed only the targets (a universal rule inside
    the query passed); keeping only the first element's style probes must be named. Medium
    draws also give the responsive flex task (container and cards)."""
    from smolscript_builder.web.coverage import coverage_errors

    tasks = [r for r in generate_web_tasks("css", 30, 0, difficulty)
             if r["category"] == "breakpoints"]
    assert tasks
    for css in tasks:
        assert coverage_errors(_public(css), {"tests": css["hidden_tests"]}) == []
        styled = [p["selector"] for p in css["probes"] if p["op"] == "style"]
        first = styled[0]
        css["probes"] = [p for p in css["probes"] if p["op"] != "style" or p["selector"] == first]
        assert any("media-query task leaves" in e
                   for e in coverage_errors(_public(css), {"tests": css["hidden_tests"]}))


@pytest.mark.parametrize("points,widths", [
    ([480], [400, 479, 480, 560]),
    ([560, 720], [480, 559, 560, 640, 719, 720, 800]),
])
def test_breakpoint_widths_pin_each_breakpoint(points, widths):
    from smolscript_builder.web.css_tasks import breakpoint_widths

    assert breakpoint_widths(points) == widths


def test_counts_are_declared_once_per_selector():
    from smolscript_builder.web.records import Checks

    checks = Checks()
    checks.add_each("style", "p.a", 2, "css", "red", "p.a color", property="color")
    checks.add_each("style", "p.a", 2, "css", "bold", "p.a weight", property="font-weight")
    assert [p.get("index", 0) for p in checks.probes if p["op"] == "style"] == [0, 1, 0, 1]
    assert sum(p["op"] == "count" for p in checks.probes) == 1
    with pytest.raises(ValueError, match="counted as 2 and 3"):
        checks.count("p.a", 3)
    with pytest.raises(ValueError, match="must match"):
        checks.add_each("style", "p.b", 0, "css", "red", "none")


def test_html_visibility_checks_skip_what_the_task_hides():
    from smolscript_builder.web.html_tree import Attr, el, tree_checks

    root = el("article", None, el("h2", "T"), el("p", "Gone.", attrs=[Attr("hidden", True,
                                                                         "hidden")]))
    checks = tree_checks(root)
    visible = {(p["selector"], p.get("rendered", False)) for p in checks.probes
               if p["op"] == "visible"}
    assert visible == {("article", True), ("article > h2", True), ("article > p", False)}
    counts = {checks.probes[int(t["probe"][1:]) - 1]["selector"]: t["expected"]
              for t in checks.tests if t["match"] == "count"}
    assert counts == {"article": 1, "article > h2": 1, "article > p": 1}


def test_web_near_misses_exploit_the_three_faults(full_share):
    """Every HTML task has the hidden-markup near miss; CSS scope tasks with several matching
    targets have the first-match-only one; every breakpoint task a moved breakpoint."""
    for (lang, _), rows in full_share.items():
        for r in rows:
            near = r["near_miss"]
            if lang == "html":
                assert near.startswith(r["prefix"] + "div hidden>\n"), near
                assert near.endswith("\n</div>\n"), near
            elif lang == "css" and r["category"] == "breakpoints":
                assert near and near != r["reference_solution"], r["spec"]
            elif lang == "css" and r["spec"].get("pattern") in {"class", "attr"}:
                assert ":not(" in near, near
            elif lang == "javascript":
                assert near is None
