"""BFCL v4 in prompting mode: the seed's prompt, answer parsing and Tier 1 metrics, and a Tier 2
AST checker. Pure.

The definition is the seed suite's (`slm-eval` 0.0.1, `tasks/slm/bfcl_v4`; read for behaviour):

- prompt: the offered functions as indented JSON, the user's turn (multi-turn categories: every
  user turn, numbered, asking for the first turn's calls) and the instruction to answer a JSON
  array of `{"name", "arguments"}`; greedy, at most 512 new tokens, stops at the closing fence of
  a first fenced block (`STOP`);
- parsing: the first fenced block (```` ``` ```` or ```` ```json ````) that is JSON, else the
  whole reply, else the span from the first `[` to the last `]`, else from the first `{` to the
  last `}`; the value must be a call object or an array of them (`name` a non-empty string,
  `arguments` (or `parameters`) an object or null);
- `valid_json`: the reply parses so; `function_name_match`: the first called name equals the
  first expected name (BFCL's ground truth order); for `irrelevance`, 1.0 when the reply makes
  no call attempt (no parsed call, nothing call-shaped such as `f(x=1)` or `f()`, no
  `"name"` + `"arguments"` payload, no offered function invoked by name);
- Tier 2 `ast_match`: BFCL's published AST rules, re-implemented here (the seed calls
  `bfcl_eval`'s checker; never imported at run time): the function names, every required
  parameter present, no parameter outside the schema or outside BFCL's possible answer, each
  value of the declared type (an integer array takes integers only, as BFCL's checker) and among
  the allowed values (strings compared case-, space- and punctuation-insensitively; an omitted
  optional parameter allowed when "" is among its allowed values), exactly as many calls as
  expected, order-free matching of parallel calls; `irrelevance`: 1.0 when no call is parsed or
  attempted. Multi-turn categories have no Tier 2 (the official metric is interactive): asking
  for it raises ConfigError at load time.

Two modes (`MODES`). `"seed"` is the seed's definition above, kept for the agreement tests.
`"smol"` (the default) diverges on purpose where the seed loses correct answers:
- no `\n```` stop string (`stop_strings`): it also matches an opening fence, so a reply that
  begins "Here are the calls:\n```json" was cut before its JSON;
- a fenced block the reply never closed (cut by the token limit) is read to the reply's end;
- outside fences, the first JSON value that decodes, scanning from each `[` or `{` left to right
  and never inside a value already decoded, decides (the seed's "first `[` to last `]`" took an
  inner array such as `[1, 2]` of a bare call object whose closing fence the stop removed, and
  scored a correct call as no call).
The headline of the seven single-turn categories is `ast_match` in both modes unless the caller
asks for Tier 1 (`function_name_match`, which a reply calling the first offered function with
no arguments earns on every single-function row: see `first_offered_reply`).
"""

from __future__ import annotations

import json
import re
from typing import Any

SINGLE_TURN_INSTRUCTION = (
    "Respond with ONLY a JSON array of the tool calls you would make, where each element looks "
    'like {"name": "<function>", "arguments": {<args>}}. If no function should be called, '
    "respond with []."
)
MULTI_TURN_INSTRUCTION = (
    "Respond with the tool calls the assistant should make in response to the FIRST user turn, "
    "as a JSON array of objects with `name` and `arguments` keys. If no function should be "
    "called, respond with []."
)
MODES = ("smol", "seed")
SEED_STOP = ["\n```", "\n\n### User", "<|im_end|>", "<|endoftext|>"]
STOP = SEED_STOP[1:]
"""The smol mode's stop strings: the seed's without the fence (see the module docstring)."""
MAX_TOKENS = 512
MAX_JSON_STARTS = 256
"""The most `[`/`{` positions the smol parser tries outside fences (bounds its work on a long
reply; a reply of 512 tokens rarely has more)."""
_PUNCT = re.compile(r"[ ,./\-_*^]")
_FENCED = re.compile(r"```[ \t]*(?:json)?[ \t]*\r?\n(?P<body>.*?)```", re.DOTALL)
_FENCE_OPEN = re.compile(r"```[ \t]*(?:json)?[ \t]*\r?\n")
_DECODER = json.JSONDecoder()
# Call-shaped text: `f(x=...)`, `f({...`, `f("...`, and a glued zero-argument `f()`.
_CALL_SHAPED = re.compile(
    r"[A-Za-z_][A-Za-z0-9_.]*\s*\(\s*(?:[A-Za-z_][A-Za-z0-9_]*\s*=|[\{\[\"'])")
_BARE_CALL = re.compile(r"[A-Za-z_][A-Za-z0-9_.]*\(\s*\)")


def bfcl_prompt(row: dict) -> str:
    """The seed's prompt for one row (`row["turns"]`: the user text of each turn)."""
    turns = row["turns"]
    lines = ["You are a helpful assistant with access to the following functions.", "",
             "### Available functions (JSON schema)",
             json.dumps(row["functions"], ensure_ascii=False, indent=1), ""]
    if len(turns) > 1:
        lines.append("### Conversation")
        lines += [f"User (turn {i}): {turn}" for i, turn in enumerate(turns, start=1)]
        lines += ["", "### Instructions", MULTI_TURN_INSTRUCTION]
    else:
        lines += ["### User", turns[0] if turns else "", "", "### Instructions",
                  SINGLE_TURN_INSTRUCTION]
    return "\n".join(lines)


def _json_candidates(text: str) -> list[str]:
    candidates = [m.group("body") for m in _FENCED.finditer(text)] + [text]
    for opener, closer in (("[", "]"), ("{", "}")):
        start, end = text.find(opener), text.rfind(closer)
        if start != -1 and end > start:
            candidates.append(text[start:end + 1])
    return candidates


def _as_calls(value: Any) -> list[dict] | None:
    """A decoded JSON value as [{"name", "arguments"}], or None when it is not calls."""
    value = [value] if isinstance(value, dict) else value
    if not isinstance(value, list):
        return None
    calls = []
    for item in value:
        if not isinstance(item, dict) or not isinstance(item.get("name"), str) \
                or not item["name"]:
            return None
        arguments = item.get("arguments", item.get("parameters", {}))
        arguments = {} if arguments is None else arguments
        if not isinstance(arguments, dict):
            return None
        calls.append({"name": item["name"], "arguments": arguments})
    return calls


def stop_strings(mode: str) -> list[str]:
    """The stop strings of a mode ("smol": STOP, "seed": SEED_STOP)."""
    return list(SEED_STOP if mode == "seed" else STOP)


def _fenced_bodies(text: str) -> list[str]:
    """Every fenced block's body in order; a last block never closed runs to the end."""
    bodies, pos = [], 0
    while (opening := _FENCE_OPEN.search(text, pos)) is not None:
        end = text.find("```", opening.end())
        if end == -1:
            bodies.append(text[opening.end():])
            break
        bodies.append(text[opening.end():end])
        pos = end + 3
    return bodies


def _decode(candidate: str) -> tuple[bool, Any]:
    try:
        return True, json.loads(candidate)
    except (ValueError, RecursionError):
        return False, None


def _first_calls_value(text: str) -> list[dict] | None:
    """Outside fences: the first decodable JSON value that is calls, scanning `[`/`{` left to
    right and skipping the inside of every value decoded (at most MAX_JSON_STARTS starts)."""
    pos, tried = 0, 0
    while tried < MAX_JSON_STARTS:
        starts = [i for i in (text.find("[", pos), text.find("{", pos)) if i != -1]
        if not starts:
            return None
        start, tried = min(starts), tried + 1
        try:
            value, end = _DECODER.raw_decode(text, start)
        except (ValueError, RecursionError):
            pos = start + 1
            continue
        calls = _as_calls(value)
        if calls is not None:
            return calls
        pos = end
    return None


def parse_calls(text: str, mode: str = "smol") -> list[dict] | None:
    """The calls in a reply, or None when it holds none.

    mode "smol": the first fenced block (closed or not) that is JSON decides; without one, the
    first JSON value outside fences that is calls (`_first_calls_value`). mode "seed": the
    seed's rule (fenced blocks, the whole reply, first `[` to last `]`, first `{` to last `}`:
    the first candidate that is JSON decides).
    """
    text = text or ""
    if not text.strip():
        return None
    if mode != "seed":
        for body in _fenced_bodies(text):
            decoded, value = _decode(body.strip())
            if decoded:
                return _as_calls(value)
        return _first_calls_value(text)
    for candidate in _json_candidates(text):
        candidate = candidate.strip()
        if not candidate:
            continue
        try:
            value = json.loads(candidate)
        except ValueError:
            continue
        return _as_calls(value)
    return None


def attempts_a_call(text: str, functions: list[dict], mode: str = "smol") -> bool:
    """True when the reply looks like a call attempt (the seed's irrelevance rule), parsed or
    not."""
    text = text or ""
    if not text.strip():
        return False
    if parse_calls(text, mode):
        return True
    if _CALL_SHAPED.search(text) or _BARE_CALL.search(text):
        return True
    if '"name"' in text and ('"arguments"' in text or '"parameters"' in text):
        return True
    return any(re.search(rf"(?<![A-Za-z0-9_.]){re.escape(str(f['name']))}\s*\(", text)
               for f in functions if isinstance(f, dict) and f.get("name"))


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
        if declared == "integer" and (not isinstance(value, int) or isinstance(value, bool)):
            return False
        return isinstance(value, int | float) and float(value) == float(allowed)
    if isinstance(allowed, list):
        # BFCL checks list items against the array's declared item type: an integer array
        # takes no floats (passed down as `declared` = the item type).
        item = declared[len("array:"):] if declared.startswith("array:") else ""
        return (isinstance(value, list | tuple) and len(value) == len(allowed)
                and all(_value_matches(v, a, item, strings_only)
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
    # BFCL: a parameter outside the schema or outside the possible answer is unexpected.
    if any(key not in properties or key not in params for key in arguments):
        return False
    # A required parameter whose allowed values include "" may be omitted: BFCL's answer wins.
    if any(key not in arguments and "" not in params.get(key, [None])
           for key in schema.get("required", [])):
        return False
    for key, allowed in params.items():
        declared = properties.get(key, {}).get("type", "any")
        if declared == "array":  # the item type travels to the element checks
            declared = "array:" + str(properties[key].get("items", {}).get("type", "any"))
        if key not in arguments:
            if "" not in allowed:
                return False
            continue
        value = arguments[key]
        kind = _TYPES.get(declared.split(":")[0])
        # The declared type, unless BFCL's own answer has the value's type (a few rows do).
        if not strings_only and kind is not None and (
            not isinstance(value, kind) or (declared == "integer" and isinstance(value, bool))
        ) and not any(type(o) is type(value) for o in allowed):
            return False
        if not any(_value_matches(value, option, declared, strings_only)
                   for option in allowed if option != ""):
            return False
    return True


def ast_match(calls: list[dict] | None, row: dict, attempted: bool = False) -> float:
    """Tier 2: 1.0 when the calls match BFCL's possible answers (order-free), else 0.0;
    irrelevance: 1.0 when no call was parsed or `attempted`."""
    if row["category"] == "irrelevance":
        return float(not calls and not attempted)
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


def bfcl_record(completion: str, row: dict, tier2: bool, mode: str = "smol") -> dict:
    """{"valid_json", "function_name_match", "ast_match" (None unless tier2), "calls"}.

    Multi-turn rows (`row["gold_names"]`, no `possible_answer`) score Tier 1 only. `mode`:
    "smol" or "seed" (parsing; see the module docstring).
    """
    calls = parse_calls(completion, mode)
    names = [c["name"] for c in calls or []]
    attempted = None
    if row["category"] == "irrelevance":
        attempted = attempts_a_call(completion, row["functions"], mode)
        name_match = float(not attempted)
    else:
        gold = gold_names(row)
        name_match = float(bool(gold) and bool(names) and names[0] == gold[0])
    ast = None
    if tier2 and "possible_answer" in row:
        ast = ast_match(calls, row, bool(attempted))
    return {"valid_json": float(calls is not None), "function_name_match": name_match,
            "ast_match": ast, "calls": calls}


def gold_names(row: dict) -> list[str]:
    """The expected function names in order (multi-turn: the first turn's calls)."""
    if "gold_names" in row:
        return list(row["gold_names"])
    return [next(iter(call)) for call in row["possible_answer"] or []]


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


def first_offered_reply(row: dict) -> str:
    """The blind baseline reply: a call of the first offered function with no arguments (what a
    policy that never reads the question can always write)."""
    return json.dumps([{"name": row["functions"][0]["name"], "arguments": {}}])


def first_offered_baseline(row: dict) -> float:
    """`function_name_match` that `first_offered_reply` earns on this row (1.0 on every
    single-function row; 0.0 on irrelevance, where it is a call attempt)."""
    return bfcl_record(first_offered_reply(row), row, tier2=False)["function_name_match"]
