"""Unit tests of the web task generator: determinism, uniqueness, record shape, static checks."""

from __future__ import annotations

import json

import pytest
from smolscript.scoring import build_browser_job
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
               "reference_solution", "negative_control", "near_miss", "hidden_tests", "spec",
               "spec_key", "shape_key"}


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
