"""Typed results (issue 25, item 1): the dynamically typed languages' harnesses check the
declared result type before printing, so a value of another type that prints the expected
text earns nothing. Each case goes through the real scoring service and host judge
(`verdict.score_code`); a few through the real rubric of `load_environment`.
"""

from __future__ import annotations

import pytest
from smolscript.languages import LANGUAGES, PROGRAM_LANGUAGES
from smolscript.types import (
    RETURN_TYPES,
    TYPE_MISMATCH_EXIT,
    TYPE_MISMATCH_PREFIX,
    parse_type_mismatch,
)

from tests.smolscript.test_verdict_policies import source, verdict
from tests.support.smolscript_edition import rubric_rewards

pytestmark = [pytest.mark.integration, pytest.mark.usefixtures("scoring_service")]

DYNAMIC = ("javascript", "lua", "python")
INT_N = {"params": [{"name": "n", "type": "int"}], "returns": "int"}
BOOL_N = {"params": [{"name": "n", "type": "int"}], "returns": "bool"}
STR_N = {"params": [{"name": "n", "type": "int"}], "returns": "str"}
LIST_N = {"params": [{"name": "n", "type": "int"}], "returns": "list[int]"}
SIGNATURES = {"int": INT_N, "bool": BOOL_N, "str": STR_N, "list[int]": LIST_N}
# The expected value of each signature for n = 3 (so a right answer of the right type passes).
EXPECTED = {"int": 6, "bool": True, "str": "6", "list[int]": [1, 2, 3]}

# (language, return type, body, why it must fail, the got-type named in the reason); every body
# prints (or, before issue 25, printed) exactly the expected text for n = 3.
ATTACKS = [
    ("python", "int", "    return str(n * 2)\n", "str for int", "str"),
    ("python", "int", "    return n * 2 == 6\n", "bool for int (True is 1)", "bool"),
    ("python", "int", "    class I(int):\n        def __str__(self):\n            return '6'\n"
     "        __repr__ = __str__\n    return I(0)\n", "int subclass that prints 6", "I"),
    ("python", "int", "    return 6.5 - 0.5 + 0.25\n", "non-integral float", "float"),
    ("python", "str", "    return n * 2\n", "int for str", "int"),
    ("python", "str", "    class S(str):\n        def __str__(self):\n            return '6'\n"
     "    return S('x')\n", "str subclass that prints 6", "S"),
    ("python", "str", "    return None\n", "None for str", "NoneType"),
    ("python", "bool", "    return 'true'\n", "the string 'true'", "str"),
    ("python", "bool", "    return 1\n", "1 for True", "int"),
    ("python", "list[int]", "    return ''.join(str(i) for i in range(1, n + 1))\n",
     "string of the digits (iterates as items)", "str"),
    ("python", "list[int]", "    return {i: 0 for i in range(1, n + 1)}\n",
     "dict whose keys are the items", "dict"),
    ("python", "list[int]", "    return (1, 2, 3)\n", "tuple", "tuple"),
    ("python", "list[int]", "    return (i for i in range(1, n + 1))\n", "generator", "generator"),
    ("python", "list[int]", "    return [str(i) for i in range(1, n + 1)]\n",
     "list of strings", "list with str at index 0"),
    ("python", "list[int]", "    return [1, True, 3]\n", "bool item", "list with bool at index 1"),
    ("javascript", "int", "  return String(n * 2);\n", "string for int", "string"),
    ("javascript", "int", "  return BigInt(n * 2);\n", "BigInt for int", "bigint"),
    ("javascript", "int", "  return new Number(n * 2);\n", "Number object", "object (Number)"),
    ("javascript", "int", "  return n * 2 === 6;\n", "boolean for int", "boolean"),
    ("javascript", "int", "  return 6.5;\n", "non-integer number", "non-integer number"),
    ("javascript", "str", "  return n * 2;\n", "number for str", "number"),
    ("javascript", "str", "  return new String('6');\n", "String object", "object (String)"),
    ("javascript", "str", "  return { toString: () => '6' };\n", "object printing 6",
     "object (Object)"),
    ("javascript", "bool", "  return 'true';\n", "the string 'true'", "string"),
    ("javascript", "bool", "  return 1;\n", "1 for true", "number"),
    ("javascript", "list[int]", "  return { join: () => '1 2 3' };\n", "fake array with join",
     "object (Object)"),
    ("javascript", "list[int]", "  return ['1', '2', '3'];\n", "array of strings",
     "array with string at index 0"),
    ("javascript", "list[int]", "  return '123'.split('').join(' ');\n", "joined string", "string"),
    ("javascript", "list[int]", "  return new Int32Array([1, 2, 3]);\n", "typed array",
     "object (Int32Array)"),
    ("javascript", "list[int]", "  return [1, , 3].fill(2, 1, 1);\n", "array with a hole",
     "array with undefined at index 1"),
    ("javascript", "list[int]", "  let k = 0;\n  return new Proxy([0, 0, 0], { get: (t, p) =>"
     " p === 'length' ? 3 : typeof p === 'string' && /^\\d$/.test(p) ? (k++ < 3 ? 'x' : +p + 1)"
     " : t[p] });\n", "proxy whose items change between reads", "array with string at index 0"),
    ("lua", "int", "  return tostring(n * 2)\n", "string for int", "string"),
    ("lua", "int", "  return n * 2 == 6\n", "boolean for int", "boolean"),
    ("lua", "int", "  return 6.5\n", "non-integral float", "float"),
    ("lua", "str", "  return n * 2\n", "integer for str (io.write prints numbers)", "integer"),
    ("lua", "bool", "  return 'true'\n", "the string 'true'", "string"),
    ("lua", "list[int]", "  return {'1', '2', '3'}\n", "table of strings",
     "table with string at index 1"),
    ("lua", "list[int]", "  return table.pack(1, 2, 3)\n", "table with an n field (a dict)",
     "not a sequence"),
    ("lua", "list[int]", "  return {1, 2, 3, x = 4}\n", "dict keys beside the items",
     "not a sequence"),
    ("lua", "list[int]", "  return setmetatable({}, {__index = function(t, i) return i end,"
     " __len = function() return 3 end})\n", "empty table faking items by metatable",
     None),  # read raw: an empty list, which prints "" (a wrong answer by its value)
    ("lua", "list[int]", "  return '1 2 3'\n", "the printed text itself", "string"),
]


def test_attacks_cover_every_dynamic_language_and_return_type():
    assert sorted({a[0] for a in ATTACKS}) == list(DYNAMIC)
    for language in DYNAMIC:
        assert {a[1] for a in ATTACKS if a[0] == language} == set(RETURN_TYPES), language


def test_exactly_the_dynamically_typed_languages_check_types_at_run_time():
    checking = sorted(k for k in PROGRAM_LANGUAGES if LANGUAGES[k].harness.checks_types)
    assert checking == list(DYNAMIC)
    for language in DYNAMIC:  # the template writes what the host reads back
        text = LANGUAGES[language].harness.template
        assert TYPE_MISMATCH_PREFIX in text and str(TYPE_MISMATCH_EXIT) in text, language


@pytest.mark.parametrize(("exit_code", "stderr", "expected", "why"), [
    (97, TYPE_MISMATCH_PREFIX + "expected int, got str\n", "expected int, got str", "one line"),
    (97, "noise\n" + TYPE_MISMATCH_PREFIX + "expected a, got b\n" + TYPE_MISMATCH_PREFIX
     + "expected int, got bool", "expected int, got bool", "the last line counts"),
    (1, TYPE_MISMATCH_PREFIX + "expected int, got str\n", None, "another exit status"),
    (97, "Traceback: SystemExit 97\n", None, "no mismatch line"),
    (None, TYPE_MISMATCH_PREFIX + "expected int, got str", None, "killed (no exit status)"),
])
def test_parse_type_mismatch(exit_code, stderr, expected, why):
    assert parse_type_mismatch(exit_code, stderr) == expected, why


@pytest.mark.parametrize("language", DYNAMIC)
async def test_right_answers_of_the_right_type_still_pass(language):
    bodies = {
        "python": {"int": "    return n * 2\n", "bool": "    return n > 0\n",
                   "str": "    return str(n * 2)\n", "list[int]": "    return [1, 2, 3]\n"},
        "javascript": {"int": "  return n * 2;\n", "bool": "  return n > 0;\n",
                       "str": "  return String(n * 2);\n", "list[int]": "  return [1, 2, 3];\n"},
        "lua": {"int": "  return n * 2\n", "bool": "  return n > 0\n",
                "str": "  return tostring(n * 2)\n", "list[int]": "  return {1, 2, 3}\n"},
    }[language]
    for returns, body in bodies.items():
        sig = SIGNATURES[returns]
        got = await verdict(language, sig, source(language, sig, body), [((3,), EXPECTED[returns])])
        assert got["passed"], (language, returns, got["reason"], got["tests"])
    empty = {"python": "    return []\n", "javascript": "  return [];\n", "lua": "  return {}\n"}
    got = await verdict(language, LIST_N, source(language, LIST_N, empty[language]), [((0,), [])])
    assert got["passed"], (language, got["reason"])


@pytest.mark.parametrize("attack", ATTACKS, ids=lambda a: f"{a[0]}-{a[1]}-{a[3]}")
async def test_a_wrong_type_that_prints_the_answer_earns_nothing(attack):
    language, returns, body, why, got_type = attack
    sig = SIGNATURES[returns]
    got = await verdict(language, sig, source(language, sig, body), [((3,), EXPECTED[returns])])
    assert not got["passed"] and got["hidden_test_pass_rate"] == 0.0, (why, got["tests"])
    assert got["status"] == "wrong_answer", (why, got["status"], got["tests"][0]["stderr"])
    if got_type is not None:  # the reason names both types
        assert f"result type mismatch: expected {returns}, got " in got["reason"], (why, got)
        assert got_type in got["reason"], (why, got["reason"])


@pytest.mark.parametrize("language", DYNAMIC)
async def test_forged_mismatch_lines_and_exit_status_never_pass(language):
    """The candidate prints the answer, then the harness's mismatch line, and exits 97 itself:
    the line only names why a test failed."""
    forge = {
        "python": "    import sys\n    print(6)\n    sys.stderr.write('" + TYPE_MISMATCH_PREFIX
                  + "expected int, got int\\n')\n    sys.exit(97)\n",
        "javascript": "  console.log(6);\n  process.stderr.write('" + TYPE_MISMATCH_PREFIX
                      + "expected int, got int\\n');\n  process.exit(97);\n",
        "lua": "  print(6)\n  io.stderr:write('" + TYPE_MISMATCH_PREFIX
               + "expected int, got int\\n')\n  os.exit(97)\n",
    }[language]
    got = await verdict(language, INT_N, source(language, INT_N, forge), [((3,), 6)])
    assert not got["passed"] and got["hidden_test_pass_rate"] == 0.0, got["tests"]


async def test_arguments_arrive_as_their_declared_types():
    """The parameters' side: each dynamic harness passes every value type as the language's
    own type for it (ints as integers, bools as booleans, strings, lists of those)."""
    sig = {"params": [{"name": p, "type": t} for p, t in (
        ("a", "int"), ("b", "bool"), ("c", "str"), ("d", "list[int]"), ("e", "list[str]"))],
        "returns": "str"}
    bodies = {
        "python": "    return ' '.join([type(a).__name__, type(b).__name__, type(c).__name__,"
                  " type(d).__name__, type(d[0]).__name__, type(e).__name__,"
                  " type(e[0]).__name__])\n",
        "javascript": "  const k = (v) => Array.isArray(v) ? 'list' : Number.isInteger(v) ? 'int'"
                      " : typeof v;\n  return [k(a), k(b), k(c), k(d), k(d[0]), k(e), k(e[0])]"
                      ".join(' ');\n",
        "lua": "  local k = function(v) return math.type(v) or type(v) end\n"
               "  return table.concat({k(a), k(b), k(c), k(d), k(d[1]), k(e), k(e[1])}, ' ')\n",
    }
    expected = {"python": "int bool str list int list str",
                "javascript": "int boolean string list int list string",
                "lua": "integer boolean string table integer table string"}
    for language, body in bodies.items():
        got = await verdict(language, sig, source(language, sig, body),
                            [((7, True, "12", [4, 5], ["x", "9"]), expected[language])])
        assert got["passed"], (language, got["tests"][0]["stdout"], got["reason"])


async def test_candidate_globals_named_like_builtins_change_nothing_in_the_python_harness():
    """A model's module-level `int`, `list`, `type`, `range`, `print` or `str` variables are
    its own: the harness reads, checks and prints through the builtins module."""
    code = ("int = list = type = range = str = print = len = None\n\n\n"
            "def solve(xs):\n    return sum(xs)\n")
    sig = {"params": [{"name": "xs", "type": "list[int]"}], "returns": "int"}
    got = await verdict("python", sig, code, [(([1, 2, 3],), 6)])
    assert got["passed"], got["tests"]


async def test_through_the_rubric_a_string_answer_scores_zero(tmp_path, monkeypatch):
    completions = ["    return n + 1\n", "    return str(n + 1)\n", "    return float(n + 1)\n",
                   "    return [n + 1][0] == n + 1\n"]  # python tasks solve(n) = n + i
    rewards = await rubric_rewards(tmp_path / "data", monkeypatch, completions)
    assert rewards == [1.0, 0.0, 1.0, 0.0]  # integral float: the policy
