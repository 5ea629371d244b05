"""BFCL v4 in prompting mode: prompt, answer parsing, Tier 1 metrics and the Tier 2 AST checker.

The functions are described in the prompt; the model answers a JSON array of
`{"name": ..., "arguments": {...}}`. Tier 1: `valid_json` (the answer parses as such an array)
and `function_name_match` (the called names equal the expected names as a multiset; for
`irrelevance`, credit only when no call is attempted). Tier 2: `ast_match`, BFCL's published AST
rules re-implemented here: the function names, every required parameter present, no parameter
outside the schema, each value of the declared type and among the allowed values (strings
compared case-, space- and punctuation-insensitively, an omitted optional parameter allowed
when "" is among its allowed values), and order-free matching of parallel calls. Pure.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from typing import Any

PROMPT = (
    "You can call the following functions (JSON schema):\n{functions}\n\n"
    "User request: {question}\n\n"
    "Answer with only a JSON array of calls, each {{\"name\": <function name>, "
    "\"arguments\": {{<parameter>: <value>}}}}. If no function fits the request, answer [].\n"
    "Answer:"
)
_PUNCT = re.compile(r"[ ,./\-_*^]")
_JSON_ARRAY = re.compile(r"\[.*\]", re.DOTALL)


def bfcl_prompt(row: dict) -> str:
    """The prompting-mode prompt: the functions as JSON, then the user's request."""
    question = "\n".join(m["content"] for m in row["question"] if m.get("role") == "user")
    return PROMPT.format(functions=json.dumps(row["functions"], ensure_ascii=False),
                         question=question)


def parse_calls(text: str) -> list[dict] | None:
    """The calls in an answer, or None when it is not a JSON array of {name, arguments}."""
    text = (text or "").strip()
    text = re.sub(r"^```(?:json)?\s*|\s*```$", "", text)
    candidates = [text]
    found = _JSON_ARRAY.search(text)
    if found:
        candidates.append(found.group(0))
    for candidate in candidates:
        try:
            value = json.loads(candidate)
        except ValueError:
            continue
        if isinstance(value, dict):
            value = [value]
        if isinstance(value, list) and all(
            isinstance(c, dict) and isinstance(c.get("name"), str)
            and isinstance(c.get("arguments", {}), dict) for c in value
        ):
            return [{"name": c["name"], "arguments": c.get("arguments", {})} for c in value]
    return None


def _gold_names(possible_answer: list[dict]) -> Counter:
    return Counter(next(iter(call)) for call in possible_answer)


def _standardise(value: str) -> str:
    return _PUNCT.sub("", value).lower().replace("'", '"')


def _value_matches(value: Any, allowed: Any, declared: str, strings_only: bool) -> bool:
    """One value against one allowed value, by BFCL's rules (recursive for lists and dicts)."""
    if isinstance(allowed, str) and strings_only and not isinstance(value, str):
        # Java/JavaScript answers are source literals: `50` may come as the string "50".
        return _standardise(json.dumps(value)) == _standardise(allowed)
    if isinstance(allowed, str):
        return isinstance(value, str) and _standardise(value) == _standardise(allowed)
    if isinstance(allowed, bool) or isinstance(value, bool):
        return isinstance(value, bool) and isinstance(allowed, bool) and value == allowed
    if isinstance(allowed, int | float):
        if declared == "integer" and not isinstance(value, int):
            return False
        return isinstance(value, int | float) and float(value) == float(allowed)
    if isinstance(allowed, list):
        return (isinstance(value, list | tuple) and len(value) == len(allowed)
                and all(_value_matches(v, a, "", strings_only)
                        for v, a in zip(value, allowed, strict=True)))
    if isinstance(allowed, dict):
        if not isinstance(value, dict):
            return False
        for key, options in allowed.items():
            options = options if isinstance(options, list) else [options]
            if key not in value:
                if "" not in options:
                    return False
            elif not any(_value_matches(value[key], o, "", strings_only)
                         for o in options if o != ""):
                return False
        return set(value) <= set(allowed)
    return value == allowed


_TYPES = {"string": str, "integer": int, "float": int | float, "boolean": bool,
          "array": list | tuple, "tuple": list | tuple, "dict": dict}


def call_matches(call: dict, expected: dict, function: dict, strings_only: bool) -> bool:
    """One call against one expected call `{name: {param: [allowed values]}}`."""
    name, params = next(iter(expected.items()))
    if call["name"] != name:
        return False
    schema = function.get("parameters", {})
    properties = schema.get("properties", {})
    arguments = call["arguments"]
    if any(key not in properties and key not in params for key in arguments):
        return False
    # A required parameter whose allowed values include "" may be omitted: BFCL's answer wins.
    if any(key not in arguments and "" not in params.get(key, [None])
           for key in schema.get("required", [])):
        return False
    for key, allowed in params.items():
        declared = properties.get(key, {}).get("type", "any")
        if key not in arguments:
            if "" not in allowed:
                return False
            continue
        value = arguments[key]
        kind = _TYPES.get(declared)
        # The declared type, unless BFCL's own answer has the value's type (a few rows do).
        if not strings_only and kind is not None and (
            not isinstance(value, kind) or (declared == "integer" and isinstance(value, bool))
        ) and not any(type(o) is type(value) for o in allowed):
            return False
        if not any(_value_matches(value, option, declared, strings_only)
                   for option in allowed if option != ""):
            return False
    return True


def ast_match(calls: list[dict] | None, row: dict) -> float:
    """Tier 2: 1.0 when the calls match BFCL's possible answers (order-free), else 0.0."""
    if row["category"] == "irrelevance":
        return float(not calls)
    expected = row["possible_answer"]
    if not calls or len(calls) != len(expected):
        return 0.0
    functions = {f["name"]: f for f in row["functions"]}
    strings_only = row["category"] in ("simple_java", "simple_javascript")
    used: set[int] = set()

    def assign(i: int) -> bool:  # backtracking: each expected call takes a distinct call
        if i == len(expected):
            return True
        name = next(iter(expected[i]))
        for j, call in enumerate(calls):
            if j not in used and call_matches(call, expected[i], functions.get(name, {}),
                                              strings_only):
                used.add(j)
                if assign(i + 1):
                    return True
                used.discard(j)
        return False

    return float(assign(0))


def bfcl_record(completion: str, row: dict, tier2: bool) -> dict:
    """{"valid_json", "function_name_match", "ast_match" (None unless tier2), "calls"}."""
    calls = parse_calls(completion)
    if row["category"] == "irrelevance":
        name_match = float(not calls)
    else:
        name_match = float(calls is not None and Counter(c["name"] for c in calls)
                           == _gold_names(row["possible_answer"]))
    return {"valid_json": float(calls is not None), "function_name_match": name_match,
            "ast_match": ast_match(calls, row) if tier2 else None, "calls": calls}


def gold_calls(row: dict) -> list[dict]:
    """The first allowed value of every parameter in each expected call, as calls."""
    calls = []
    for expected in row["possible_answer"]:
        name, params = next(iter(expected.items()))
        arguments = {}
        for key, allowed in params.items():
            if allowed and allowed[0] != "":  # "" first: the parameter may be omitted
                arguments[key] = _first_of(allowed[0])
        calls.append({"name": name, "arguments": arguments})
    return calls


def _first_of(value: Any) -> Any:
    """Collapse nested dicts of allowed-value lists to their first values."""
    if isinstance(value, list):
        return [_first_of(v) for v in value]
    if isinstance(value, dict):
        out = {}
        for key, options in value.items():
            options = options if isinstance(options, list) else [options]
            first = next((o for o in options if o != ""), None)
            if first is not None:
                out[key] = _first_of(first)
        return out
    return value
