"""BFCL v4 prompting mode: parsing, Tier 1, and the Tier 2 AST checker on BFCL's own answers."""

import copy
import json

import pytest
from slm_eval import bfcl, data

pytestmark = pytest.mark.unit

ROW = {"id": "t", "category": "simple_python", "question": [{"role": "user", "content": "q"}],
       "functions": [{"name": "area", "parameters": {"type": "dict", "properties": {
           "base": {"type": "integer"}, "unit": {"type": "string"},
           "scale": {"type": "float"}}, "required": ["base"]}}],
       "possible_answer": [{"area": {"base": [10], "unit": ["units", ""], "scale": [1.0, ""]}}]}


@pytest.mark.parametrize("answer, valid, name, ast, why", [
    ('[{"name": "area", "arguments": {"base": 10}}]', 1, 1, 1, "optional omitted"),
    ('```json\n[{"name": "area", "arguments": {"base": 10, "unit": "Units"}}]\n```', 1, 1, 1,
     "fenced, string compared case-insensitively"),
    ('{"name": "area", "arguments": {"base": 10, "scale": 1}}', 1, 1, 1,
     "one object; int for float"),
    ('[{"name": "area", "arguments": {"base": 10.0}}]', 1, 1, 0, "float for integer"),
    ('[{"name": "area", "arguments": {"base": 11}}]', 1, 1, 0, "value not allowed"),
    ('[{"name": "area", "arguments": {"unit": "units"}}]', 1, 1, 0, "required missing"),
    ('[{"name": "area", "arguments": {"base": 10, "color": "red"}}]', 1, 1, 0, "extra param"),
    ('[{"name": "volume", "arguments": {"base": 10}}]', 1, 0, 0, "wrong function"),
    ('I would call area(base=10)', 0, 0, 0, "not JSON"),
    ('[]', 1, 0, 0, "no call"),
])
def test_golden_cases(answer, valid, name, ast, why):
    record = bfcl.bfcl_record(answer, ROW, tier2=True)
    assert (record["valid_json"], record["function_name_match"], record["ast_match"]) == (
        valid, name, ast), why


def test_parallel_calls_match_in_any_order():
    row = {**ROW, "category": "parallel",
           "possible_answer": [{"area": {"base": [1]}}, {"area": {"base": [2]}}]}
    swapped = json.dumps([{"name": "area", "arguments": {"base": 2}},
                          {"name": "area", "arguments": {"base": 1}}])
    assert bfcl.bfcl_record(swapped, row, tier2=True)["ast_match"] == 1.0
    twice = json.dumps([{"name": "area", "arguments": {"base": 1}}] * 2)
    assert bfcl.bfcl_record(twice, row, tier2=True)["ast_match"] == 0.0


def test_irrelevance_credits_only_no_call():
    row = {**ROW, "category": "irrelevance", "possible_answer": None}
    assert bfcl.bfcl_record("There is no suitable function.", row, True)["function_name_match"] == 1
    assert bfcl.bfcl_record("[]", row, True)["ast_match"] == 1
    attempt = '[{"name": "area", "arguments": {"base": 1}}]'
    assert bfcl.bfcl_record(attempt, row, True)["function_name_match"] == 0


def test_tier2_off_leaves_ast_match_unset():
    assert bfcl.bfcl_record("[]", ROW, tier2=False)["ast_match"] is None


@pytest.mark.integration
def test_every_possible_answer_in_bfcl_scores_one(archive_cache):
    """Each row's first allowed values, and every other allowed value of each parameter."""
    rows = [r for r in data.load_rows("bfcl_v4") if r["category"] != "irrelevance"]
    checked, failures = 0, []
    for row in rows:
        base = bfcl.gold_calls(row)
        variants = [base]
        for index, expected in enumerate(row["possible_answer"]):
            for key, allowed in next(iter(expected.values())).items():
                for option in allowed[1:]:
                    variant = copy.deepcopy(base)
                    if option == "":
                        variant[index]["arguments"].pop(key, None)
                    else:
                        variant[index]["arguments"][key] = bfcl._first_of(option)
                    variants.append(variant)
        for variant in variants:
            checked += 1
            record = bfcl.bfcl_record(json.dumps(variant), row, tier2=True)
            if (record["valid_json"], record["function_name_match"], record["ast_match"]) != (
                    1, 1, 1):
                failures.append(row["id"])
    assert (len(rows), failures) == (1150, [])
    assert checked > 3000
