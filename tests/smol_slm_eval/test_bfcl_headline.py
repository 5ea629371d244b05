"""BFCL v4's headline is earned by reading the question, and a fenced answer is read whole.

Issue 42 item 2: `function_name_match` (the seed's Tier 1 headline) gives 1.0 to a reply that
calls the first offered function with no arguments on every single-function row, and to a gold
call with an extra call or argument; the seed's stop string `\\n```` cut "Here are the
calls:\\n```json" before its JSON, and its fallback parser took an inner array of a bare call
object. Each case runs through the pure scorer and the real classic rubric (smol-slm-eval has
no v1 adapter to run: its taskset refuses to load, evaluation-only).
"""

from __future__ import annotations

import asyncio
import json

import pytest
from smol_slm_eval import bfcl
from smol_slm_eval.env import TaskRubric, headline_of
from smol_slm_eval.errors import ConfigError
from smol_slm_eval.scorer import score_reply
from smol_slm_eval.tasks import BFCL

pytestmark = pytest.mark.unit

AREA = {"name": "area", "parameters": {"type": "dict", "properties": {
    "base": {"type": "integer"}, "sides": {"type": "array", "items": {"type": "integer"}},
    "unit": {"type": "string"}}, "required": ["base"]}}
VOLUME = {"name": "volume", "parameters": {"type": "dict", "properties": {
    "side": {"type": "integer"}}, "required": ["side"]}}
ROW = {"id": "t", "category": "simple_python", "turns": ["q"], "functions": [AREA, VOLUME],
       "possible_answer": [{"area": {"base": [10], "sides": [[1, 2]], "unit": ["", "m"]}}]}
GOLD = {"name": "area", "arguments": {"base": 10, "sides": [1, 2]}}
GOLD_JSON = json.dumps([GOLD])


def rubric_reward(reply: str, headline: str = "ast_match", mode: str = "smol") -> dict:
    rubric = TaskRubric(BFCL, headline, {"t": ROW}, tier2=True, mode=mode)
    state = {"completion": [{"role": "assistant", "content": reply}], "info": {"id": "t"},
             "prompt": [], "answer": ""}
    return asyncio.run(rubric.ensure_scored(state))


# (reply, ast_match, function_name_match on main, why): the headline must be 0 where
# function_name_match (the former headline) gave 1.
ATTACKS = [
    (bfcl.first_offered_reply(ROW), 0.0, 1.0, "the first offered function, no arguments"),
    (json.dumps([GOLD, {"name": "volume", "arguments": {"side": 1}}]), 0.0, 1.0,
     "the gold call plus an extra call"),
    (json.dumps([GOLD, GOLD]), 0.0, 1.0, "the gold call twice"),
    (json.dumps([{"name": "area", "arguments": {**GOLD["arguments"], "colour": "red"}}]), 0.0,
     1.0, "an extra argument outside the schema"),
    (json.dumps([{"name": "area", "arguments": {**GOLD["arguments"], "side": 3}}]), 0.0, 1.0,
     "an extra argument of another function"),
    (json.dumps([{"name": "area", "arguments": {"base": 10, "sides": [1.0, 2.0]}}]), 0.0, 1.0,
     "floats in an integer array"),
    (json.dumps([{"name": "area", "arguments": {"base": "10", "sides": [1, 2]}}]), 0.0, 1.0,
     "a string that prints like the integer"),
]


@pytest.mark.parametrize("reply, ast, name, why", ATTACKS)
def test_blind_and_padded_calls_earn_no_headline(reply, ast, name, why):
    score = score_reply(reply, ROW, BFCL, "ast_match", tier2=True)
    assert (score.reward, score.metrics["ast_match"], score.metrics["function_name_match"]) == (
        ast, ast, name), why
    record = rubric_reward(reply)
    assert (record["reward"], record["metrics"]["function_name_match"]) == (ast, name), why


def test_the_gold_call_earns_the_headline():
    assert rubric_reward(GOLD_JSON)["reward"] == 1.0
    unit = json.dumps([{"name": "area", "arguments": {**GOLD["arguments"], "unit": "M"}}])
    assert rubric_reward(unit)["reward"] == 1.0  # an allowed optional value


def test_blind_baseline_is_recorded_per_row():
    assert bfcl.first_offered_baseline(ROW) == 1.0
    irrelevance = {**ROW, "category": "irrelevance", "possible_answer": None}
    assert bfcl.first_offered_baseline(irrelevance) == 0.0
    assert score_reply(bfcl.first_offered_reply(irrelevance), irrelevance, BFCL, "ast_match",
                       tier2=True).reward == 0.0


BARE = json.dumps(GOLD)  # a bare call object whose arguments hold an array
# (reply as the model wrote it before any stop string, ast_match smol, ast_match seed, why)
EXTRACTION = [
    (f"Here are the calls:\n```json\n{GOLD_JSON}\n```", 1.0, 0.0,
     "an opening fence after prose: the seed's stop string cuts the reply before its JSON"),
    (f"```json\n{BARE}\n```", 1.0, 0.0,
     "a fenced bare object: after the seed's stop removed the closing fence, its parser took "
     "the inner array [1, 2]"),
    (f"```json\n{GOLD_JSON}", 1.0, 1.0, "a fence never closed (token limit)"),
    (f"{BARE}\nThat is the call.", 1.0, 0.0,
     "a bare object then prose: the seed's first `[` to last `]` is the inner array again"),
    (f"Ignore [this]. {GOLD_JSON}", 1.0, 1.0,
     "a bracket in prose before the array (the seed's first `{` to last `}` finds the call)"),
]


def cut_at_stop(reply: str, stops: list[str]) -> str:
    """What the server returns: the text before the first stop string."""
    cut = min((i for i in (reply.find(s) for s in stops) if i != -1), default=len(reply))
    return reply[:cut]


@pytest.mark.parametrize("reply, smol, seed, why", EXTRACTION)
def test_fenced_and_bare_answers_are_read_whole(reply, smol, seed, why):
    ours = cut_at_stop(reply, bfcl.stop_strings("smol"))
    theirs = cut_at_stop(reply, bfcl.stop_strings("seed"))
    assert rubric_reward(ours)["reward"] == smol, why
    assert rubric_reward(theirs, mode="seed")["reward"] == seed, why


@pytest.mark.parametrize("reply, why", [
    ('[1, {"name": "area", "arguments": {"base": 10, "sides": [1, 2]}}]',
     "a call inside an array that is not calls is never taken out of it"),
    ('{"note": {"name": "area", "arguments": {"base": 10, "sides": [1, 2]}}}',
     "a call nested in another object"),
    ('```json\n{"thought": 1}\n```\n' + GOLD_JSON, "the first fenced JSON block decides"),
    ("[" * 5000, "deep nesting is not a crash"),
    ("{[" * 3000 + GOLD_JSON, "more openers than the parser tries"),
])
def test_smol_parser_never_takes_inner_or_later_values(reply, why):
    assert rubric_reward(reply)["reward"] == 0.0, why


def test_irrelevance_headline_withholds_credit_from_call_attempts():
    row = {**ROW, "category": "irrelevance", "possible_answer": None}
    for reply, credit in (("No function fits.", 1.0), ("[]", 1.0), ("area(base=10)", 0.0),
                          ('{"name": "area", "arguments": {"base": 1,}}', 0.0)):
        assert score_reply(reply, row, BFCL, "ast_match", tier2=True).reward == credit, reply


def test_stop_strings_and_headlines_per_mode():
    assert "\n```" in bfcl.stop_strings("seed") and "\n```" not in bfcl.stop_strings("smol")
    assert headline_of("bfcl_v4", None, "smol") == "ast_match"
    assert headline_of("bfcl_v4", None, "seed") == "function_name_match"
    assert headline_of("bfcl_v4", False, "smol") == "function_name_match"
    assert headline_of("bfcl_v4", True, "seed") == "ast_match"
    assert headline_of("bfcl_v4_multi_turn_base", None, "smol") == "function_name_match"
    with pytest.raises(ConfigError, match="no Tier 2"):
        headline_of("bfcl_v4_multi_turn_base", True, "smol")


@pytest.mark.parametrize("reply", [
    GOLD_JSON, f"```json\n{GOLD_JSON}\n```\nSee [1].", "No function fits.", "[]", "",
    '[{"name": "area", "arguments": [10]}]', f"Calls [below]: {GOLD_JSON} [end]",
])
def test_seed_mode_parses_as_before(reply):
    """The seed mode is the former parser (the seed agreement tests run it on every row)."""
    seed = bfcl.bfcl_record(reply, ROW, tier2=True, mode="seed")
    assert seed["calls"] == bfcl.parse_calls(reply, "seed")


@pytest.mark.integration
def test_on_bfcl_data_blind_calls_earn_nothing_and_fenced_answers_are_kept(archive_cache,
                                                                          capsys):
    """All 1,390 single-turn rows: the blind reply's function_name_match (0.65 of rows) and
    ast_match (0); the 750 single-call rows' gold as a fenced bare object and after prose with
    an opening fence, cut by each mode's stop strings and parsed by its parser."""
    from smol_slm_eval.data import load_rows
    from smol_slm_eval.env import load_environment

    rows = load_rows("bfcl_v4")
    blind = [bfcl.bfcl_record(bfcl.first_offered_reply(r), r, True) for r in rows]
    name_rate = sum(b["function_name_match"] for b in blind) / len(rows)
    assert sum(b["ast_match"] for b in blind) == 0 and 0.6 < name_rate < 0.7
    assert name_rate == sum(map(bfcl.first_offered_baseline, rows)) / len(rows)
    single = [r for r in rows if r["category"] != "irrelevance" and len(r["possible_answer"]) == 1]
    kept = {}
    for shape in ("```json\n{obj}\n```", "Here are the calls:\n```json\n[{obj}]\n```"):
        for mode in bfcl.MODES:
            kept[shape, mode] = sum(bfcl.bfcl_record(
                cut_at_stop(shape.format(obj=json.dumps(bfcl.gold_calls(r)[0])),
                            bfcl.stop_strings(mode)), r, True, mode)["ast_match"]
                for r in single)
    with capsys.disabled():
        print(f"\nBFCL blind first-offered reply: function_name_match {name_rate:.3f}, ast_match "
              f"0 of {len(rows)}; gold kept (smol / seed) of {len(single)}: "
              + "; ".join(f"{shape!r} {kept[shape, 'smol']:.0f} / {kept[shape, 'seed']:.0f}"
                          for shape in dict.fromkeys(s for s, _ in kept)))
    assert len(single) == 750
    assert kept["```json\n{obj}\n```", "smol"] == 750 > kept["```json\n{obj}\n```", "seed"]
    assert kept["Here are the calls:\n```json\n[{obj}]\n```", "smol"] == 750
    env = load_environment(task="bfcl_v4", num_examples=3)
    info = env.get_eval_dataset()[0]["info"]
    assert info["headline_metric"] == "ast_match" and "first_offered_baseline" in info
    assert "\n```" not in env.sampling_args["stop"]
    seed = load_environment(task="bfcl_v4", num_examples=3, bfcl_mode="seed")
    assert seed.get_eval_dataset()[0]["info"]["headline_metric"] == "function_name_match"
    assert "\n```" in seed.sampling_args["stop"]
