"""BFCL v4 prompting mode: parsing, Tier 1, and the Tier 2 AST checker on BFCL's own answers."""

import copy
import json

import pytest
from smol_slm_eval import bfcl, data

pytestmark = pytest.mark.unit

ROW = {"id": "t", "category": "simple_python", "turns": ["q"],
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


CALL = '[{"name": "area", "arguments": {"base": 10}}]'


@pytest.mark.parametrize("answer, valid, name, why", [
    (f"```json\n{CALL}\n```\nNote: [1] is a footnote.", 1, 1,
     "the first fenced block decides; brackets in prose after it do not matter"),
    (f"```\n{CALL}\n```", 1, 1, "a bare fence"),
    (f"```json\n{CALL}\n```\n```json\n[]\n```", 1, 1, "the first fenced block, not the last"),
    ('[{"name": "area", "parameters": {"base": 10}}]', 1, 1, "`parameters` as the seed reads it"),
    ('[{"name": "volume", "arguments": {}}, {"name": "area", "arguments": {"base": 10}}]',
     1, 0, "the first call's name must be the first expected name"),
    ('[{"name": "area", "arguments": [10]}]', 0, 0, "arguments not an object"),
    ('[{"name": "", "arguments": {}}]', 0, 0, "empty name"),
    ('"[{\\"name\\": \\"area\\"}]"', 0, 0, "a JSON string that prints like calls"),
])
def test_parsing_follows_the_seed(answer, valid, name, why):
    record = bfcl.bfcl_record(answer, ROW, tier2=False)
    assert (record["valid_json"], record["function_name_match"]) == (valid, name), why


def test_integer_arrays_reject_floats_as_bfcl_does():
    row = {**ROW, "functions": [{"name": "area", "parameters": {"type": "dict", "properties": {
        "sides": {"type": "array", "items": {"type": "integer"}}}, "required": ["sides"]}}],
        "possible_answer": [{"area": {"sides": [[1, 2]]}}]}
    ints = '[{"name": "area", "arguments": {"sides": [1, 2]}}]'
    floats = '[{"name": "area", "arguments": {"sides": [1.0, 2.0]}}]'
    assert bfcl.bfcl_record(ints, row, tier2=True)["ast_match"] == 1.0
    assert bfcl.bfcl_record(floats, row, tier2=True)["ast_match"] == 0.0


@pytest.mark.parametrize("answer, credit, why", [
    ("There is no suitable function.", 1, "prose, no call"),
    ("[]", 1, "an empty array"),
    ("I would call area(base=10)", 0, "a call in Python syntax is an attempt"),
    ("area()", 0, "a bare call"),
    ('{"name": "area", "arguments": {"base": 1,}}', 0, "a broken JSON payload is an attempt"),
    ("Use area (the function) please", 0, "an offered function invoked by name"),
    ("No function (yet) fits.", 1, "prose parentheses"),
])
def test_irrelevance_withholds_credit_from_call_attempts(answer, credit, why):
    row = {**ROW, "category": "irrelevance", "possible_answer": None}
    assert bfcl.bfcl_record(answer, row, True)["function_name_match"] == credit, why


def test_multi_turn_prompt_and_first_turn_names():
    row = {"id": "m", "category": "multi_turn_base", "turns": ["cd to docs", "list files"],
           "functions": ROW["functions"], "gold_names": ["cd", "ls"]}
    prompt = bfcl.bfcl_prompt(row)
    assert "User (turn 1): cd to docs\nUser (turn 2): list files" in prompt
    assert "FIRST user turn" in prompt
    record = bfcl.bfcl_record('[{"name": "cd", "arguments": {"folder": "docs"}}]', row, True)
    assert (record["function_name_match"], record["ast_match"]) == (1.0, None)


def test_parallel_calls_match_in_any_order():
    row = {**ROW, "category": "parallel",
           "possible_answer": [{"area": {"base": [1]}}, {"area": {"base": [2]}}]}
    swapped = json.dumps([{"name": "area", "arguments": {"base": 2}},
                          {"name": "area", "arguments": {"base": 1}}])
    assert bfcl.bfcl_record(swapped, row, tier2=True)["ast_match"] == 1.0
    twice = json.dumps([{"name": "area", "arguments": {"base": 1}}] * 2)
    assert bfcl.bfcl_record(twice, row, tier2=True)["ast_match"] == 0.0


def test_tier2_off_leaves_ast_match_unset():
    assert bfcl.bfcl_record("[]", ROW, tier2=False)["ast_match"] is None


@pytest.mark.integration
def test_every_possible_answer_in_bfcl_scores_one(archive_cache):
    """Each row's first allowed values, and every other allowed value of each parameter.

    Two rows' possible answers (parallel_multiple_12, _26) allow a value for a parameter their
    function does not declare (both also allow omitting it); BFCL's checker rejects such a
    parameter as unexpected, and so does ours: those values are left out and counted apart."""
    rows = [r for r in data.load_rows("bfcl_v4") if r["category"] != "irrelevance"]
    checked, failures, undeclared = 0, [], []
    for row in rows:
        base = bfcl.gold_calls(row)
        functions = {f["name"]: f for f in row["functions"]}
        for index, expected in enumerate(row["possible_answer"]):
            name, params = next(iter(expected.items()))
            declared = functions[name]["parameters"].get("properties", {})
            for key in set(base[index]["arguments"]) - set(declared):
                del base[index]["arguments"][key]
                undeclared.append(row["id"])
        variants = [base]
        for index, expected in enumerate(row["possible_answer"]):
            name, params = next(iter(expected.items()))
            declared = functions[name]["parameters"].get("properties", {})
            for key, allowed in params.items():
                for option in allowed[1:]:
                    if key not in declared and option != "":
                        undeclared.append(row["id"])
                        continue
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
    assert sorted(set(undeclared)) == ["parallel_multiple_12", "parallel_multiple_26"]


@pytest.mark.integration
def test_multi_turn_tasks_load_with_first_turn_names(archive_cache):
    for category in ("multi_turn_base", "multi_turn_miss_func", "multi_turn_miss_param",
                     "multi_turn_long_context"):
        rows = data.load_rows(f"bfcl_v4_{category}")
        assert len(rows) == 200 and {r["category"] for r in rows} == {category}
        assert all(r["functions"] and r["turns"] for r in rows)
        assert sum(bool(r["gold_names"]) for r in rows) > 100  # some first turns call nothing
