"""Verdicts depend on the code only: entry points, standard libraries, compiler front ends,
number printing and truncation, each through the real scoring service and host judge.

Each case is a complete candidate source (imports, entry point, body), its signature and
hidden tests; `verdict` scores it exactly as a rollout is scored (`verdict.score_code`).
"""

from __future__ import annotations

import pytest
from smolscript.languages import LANGUAGES, PROGRAM_LANGUAGES
from smolscript.verdict import score_code
from smolscript_sandbox.client import SandboxClient
from smolscript_sandbox.testing import TEST_URL

pytestmark = [pytest.mark.integration, pytest.mark.usefixtures("scoring_service")]

INT_N = {"params": [{"name": "n", "type": "int"}], "returns": "int"}
INTS = {"params": [{"name": "xs", "type": "list[int]"}], "returns": "int"}
INTS_TO_INTS = {"params": [{"name": "xs", "type": "list[int]"}], "returns": "list[int]"}


def source(language: str, signature: dict, body: str, extra: str = "", after: str = "") -> str:
    """The language's imports + `extra` (more imports/helpers), the entry point with `body`,
    then `after` (code after the entry point)."""
    spec = LANGUAGES[language]
    return spec.imports + extra + spec.entry_header(signature) + body + spec.closing() + after


def task(language: str, signature: dict) -> dict:
    spec = LANGUAGES[language]
    return {"id": f"policy/{language}", "language": language, "modality": "program",
            "signature": signature, "entry_point": spec.entry_point, "imports": spec.imports,
            "prefix": spec.imports + spec.entry_header(signature)}


async def verdict(language: str, signature: dict, code: str, tests: list[tuple]) -> dict:
    """Score `code` on `tests` [(args, expected), ...] through the service at TEST_URL."""
    hidden = {"tests": [{"args": list(args), "expected": expected} for args, expected in tests]}
    async with SandboxClient(TEST_URL) as client:
        return await score_code(task(language, signature), hidden, code, client)


# ---------------------------------------------------------------- standard libraries (item 3)
# One correct solution per language using the standard libraries a programmer expects; the
# README's "Standard libraries" table lists what each runtime offers.
# f(n) = (n! mod 1000003) + (number of distinct values of i*i mod 7 for i < n) + isqrt(n)
def _expected_stdlib(n: int) -> int:
    import math

    return math.factorial(n) % 1000003 + len({i * i % 7 for i in range(n)}) + math.isqrt(n)


STDLIB = {
    "python": source("python", INT_N, (
        "    fact = functools.reduce(lambda a, b: a * b, range(1, n + 1), 1)\n"
        "    squares = {i * i % 7 for i, _ in zip(itertools.count(), range(n))}\n"
        "    assert hashlib.sha256(b'x').hexdigest()[:4] == '2d71'\n"
        "    return fact % 1000003 + len(squares) + math.isqrt(n)\n"),
        extra="import functools\nimport hashlib\nimport itertools\nimport math\n"),
    "javascript": source("javascript", INT_N, (
        "  let fact = 1n;\n  for (let i = 2n; i <= BigInt(n); i++) fact *= i;\n"
        "  const squares = new Set(Array.from({ length: n }, (_, i) => (i * i) % 7));\n"
        "  const parsed = JSON.parse(JSON.stringify({ k: [1, 2] })).k.reduce((a, b) => a + b);\n"
        "  return Number(fact % 1000003n) + squares.size + Math.floor(Math.sqrt(n))"
        " + parsed - 3;\n")),
    "c": source("c", INT_N, (
        "    long long fact = 1;\n    for (int i = 2; i <= n; i++) fact = fact * i % 1000003;\n"
        "    int seen[7] = {0}, distinct = 0;\n"
        "    for (int i = 0; i < n; i++) if (!seen[i * i % 7]++) distinct++;\n"
        "    char buf[16];\n    snprintf(buf, sizeof buf, \"%d\", (int)floor(sqrt((double)n)));\n"
        "    return (int)fact + distinct + atoi(buf);\n"),
        extra="#include <math.h>\n#include <stdio.h>\n"),
    "cpp": source("cpp", INT_N, (
        "    long long fact = 1;\n    for (int i = 2; i <= n; i++) fact = fact * i % 1000003;\n"
        "    std::unordered_map<int, int> seen;\n"
        "    for (int i = 0; i < n; i++) seen[i * i % 7]++;\n"
        "    std::vector<int> keys;\n    for (auto &kv : seen) keys.push_back(kv.first);\n"
        "    std::sort(keys.begin(), keys.end());\n"
        "    return (int)fact + (int)keys.size() + (int)std::floor(std::sqrt((double)n));\n"),
        extra="#include <cmath>\n#include <unordered_map>\n"),
    "csharp": source("csharp", INT_N, (
        "        BigInteger fact = BigInteger.One;\n"
        "        for (int i = 2; i <= n; i++) fact *= i;\n"
        "        int distinct = Enumerable.Range(0, n).Select(i => i * i % 7).Distinct().Count();\n"
        "        return (int)(fact % 1000003) + distinct + (int)Math.Floor(Math.Sqrt(n));\n"),
        extra="using System.Numerics;\n"),
    "rust": source("rust", INT_N, (
        "    let mut fact: u64 = 1;\n    for i in 2..=(n as u64) { fact = fact * i % 1000003; }\n"
        "    let squares: BTreeSet<i32> = (0..n).map(|i| i * i % 7).collect();\n"
        "    let mut counts: HashMap<i32, i32> = HashMap::new();\n"
        "    for s in &squares { *counts.entry(*s).or_insert(0) += 1; }\n"
        "    fact as i32 + counts.len() as i32 + (n as f64).sqrt().floor() as i32\n"),
        extra="use std::collections::{BTreeSet, HashMap};\n"),
    "lua": source("lua", INT_N, (
        "  local fact = 1\n  for i = 2, n do fact = fact * i % 1000003 end\n"
        "  local seen, keys = {}, {}\n"
        "  for i = 0, n - 1 do local s = i * i % 7\n"
        "    if not seen[s] then seen[s] = true; table.insert(keys, s) end end\n"
        "  table.sort(keys)\n"
        "  local text = string.format('%d', #keys)\n"
        "  return fact + tonumber(text) + math.floor(math.sqrt(n))\n")),
}


def test_stdlib_cases_cover_every_program_language():
    assert sorted(STDLIB) == sorted(PROGRAM_LANGUAGES)


@pytest.mark.parametrize("language", sorted(STDLIB))
async def test_standard_library_solution_passes(language):
    tests = [((n,), _expected_stdlib(n)) for n in (1, 5, 12, 20)]
    got = await verdict(language, INT_N, STDLIB[language], tests)
    assert got["passed"], (language, got["status"], got["reason"], got.get("compile_output"))


# ---------------------------------------------------------------- entry points (item 2)
# A correct solution that also writes its own main: the harness's entry point runs.
OWN_MAIN = {
    "csharp": source("csharp", INT_N, "        return n * 2;\n").replace(
        "    }\n}\n", "    }\n    static void Main() { Console.WriteLine(Solve(21)); }\n}\n"),
    "c": source("c", INT_N, "    return n * 2;\n",
                after="int main(void) { return 3; }\n"),
    "cpp": source("cpp", INT_N, "    return n * 2;\n",
                  after="int main() { return 3; }\n"),
    "rust": source("rust", INT_N, "    n * 2\n",
                   after="fn main() { panic!(\"the candidate's main ran\"); }\n"),
}


@pytest.mark.parametrize("language", sorted(OWN_MAIN))
async def test_candidate_main_never_decides_the_verdict(language):
    got = await verdict(language, INT_N, OWN_MAIN[language], [((4,), 8), ((-5,), -10)])
    assert got["passed"], (language, got["status"], got["reason"])


async def test_rust_panic_is_a_runtime_error_under_the_harness_entry_point():
    code = source("rust", INT_N, "    if n < 0 { panic!(\"negative\") }\n    n\n")
    got = await verdict("rust", INT_N, code, [((3,), 3), ((-1,), -1)])
    assert [t["status"] for t in got["tests"]] == ["ok", "runtime_error"]
    assert got["tests"][1]["exit_code"] == 101 and "negative" in got["tests"][1]["stderr"]


# ---------------------------------------------------------------- front ends (issue 12 item 1)
# Errors a toolchain reports before running: each must be compile_error with syntax_ok false.
COMPILE_TIME = {
    "python": source("python", INT_N, "    if n > 0:\n        break\n    return n\n"),
    "python-nonlocal": source("python", INT_N, "    nonlocal n\n    return n\n"),
    "javascript": source("javascript", INT_N, "  if (n > 0) { break; }\n  return n;\n"),
    "javascript-let": source("javascript", INT_N, "  let a = 1;\n  let a = 2;\n  return n;\n"),
    "lua": source("lua", INT_N, "  goto nowhere\n  return n\n"),
    "c": source("c", INT_N, "    char b[8];\n    snprintf(b, 8, \"%d\", n);\n    return n;\n"),
    "c-return": source("c", INT_N, "    if (n) return;\n    return n;\n"),
    "cpp": source("cpp", INT_N, "    std::string s = n;\n    return n;\n"),
    "csharp": source("csharp", INT_N, "        string s = n;\n        return n;\n"),
    "rust": source("rust", INT_N, "    let v = vec![n];\n    let w = v;\n    v[0] + w[0]\n"),
}


@pytest.mark.parametrize("case", sorted(COMPILE_TIME))
async def test_compile_time_errors_are_compile_errors(case):
    language = case.split("-")[0]
    got = await verdict(language, INT_N, COMPILE_TIME[case], [((1,), 1)])
    assert (got["status"], got["syntax_ok"]) == ("compile_error", False), got
    assert got["reason"], case


async def test_compiler_warnings_stay_in_the_verdict():
    code = source("c", INT_N, "    return n;\n", extra='#warning "smol-check-warning"\n')
    got = await verdict("c", INT_N, code, [((2,), 2)])
    assert got["passed"] and "smol-check-warning" in got["compile_output"], got


# ---------------------------------------------------------------- numbers (issue 12 item 2)
# The policy (README, "Numbers"): an int result that is an integral value in the int32 range
# prints as that integer, -0.0 as 0; a non-integral value, NaN, an infinity or a value out of
# range prints as the language spells it, which never equals an expected int, so it fails.
INTEGRAL = {  # len(xs) computed through a float division
    "python": "    return len(xs) / 1\n",
    "javascript": "  return xs.length / 1;\n",
    "lua": "  return #xs / 1\n",
    "c": "    return xs_len / 1.0;\n",
    "cpp": "    return xs.size() / 1.0;\n",
    "csharp": "        return (int)(xs.Count / 1.0);\n",
    "rust": "    (xs.len() as f64 / 1.0) as i32\n",
}
NEGATIVE_ZERO = {
    "python": "    return -0.0 * len(xs)\n",
    "javascript": "  return -0 * xs.length;\n",
    "lua": "  return -0.0 * #xs\n",
    "c": "    return -0.0 * xs_len;\n",
    "cpp": "    return -0.0 * xs.size();\n",
    "csharp": "        return (int)(-0.0 * xs.Count);\n",
    "rust": "    (-0.0 * xs.len() as f64) as i32\n",
}
NOT_AN_INT = {  # dynamic languages only: typed ones cannot return these from an int function
    "python": ["    return len(xs) / 2\n", "    return float('nan')\n", "    return 1e21\n",
               "    return float('inf')\n", "    return True\n"],
    "javascript": ["  return xs.length / 2;\n", "  return NaN;\n", "  return 1e21;\n",
                   "  return Infinity;\n", "  return true;\n"],
    "lua": ["  return #xs / 2\n", "  return 0 / 0\n", "  return 1e21\n", "  return math.huge\n",
            "  return true\n"],
}


def test_number_cases_cover_every_program_language():
    assert sorted(INTEGRAL) == sorted(NEGATIVE_ZERO) == sorted(PROGRAM_LANGUAGES)


@pytest.mark.parametrize("language", sorted(INTEGRAL))
async def test_integral_float_for_an_int_result_counts_as_that_int(language):
    got = await verdict(language, INTS, source(language, INTS, INTEGRAL[language]),
                        [(([4, 5, 6],), 3), (([],), 0)])
    assert got["passed"], (language, [t["stdout"] for t in got["tests"]], got["reason"])
    zero = await verdict(language, INTS, source(language, INTS, NEGATIVE_ZERO[language]),
                         [(([1, 2],), 0)])
    assert zero["passed"], (language, [t["stdout"] for t in zero["tests"]], zero["reason"])


@pytest.mark.parametrize("language", sorted(NOT_AN_INT))
async def test_values_that_are_not_int32_integers_fail(language):
    for body in NOT_AN_INT[language]:
        got = await verdict(language, INTS, source(language, INTS, body), [(([1, 2, 3],), 1)])
        assert not got["passed"], (language, body, got["tests"])
        assert got["tests"][0]["stdout"] not in ("1", "0"), (language, body)


async def test_list_items_follow_the_same_policy():
    code = source("python", INTS_TO_INTS, "    return [x / 1 for x in xs]\n")
    got = await verdict("python", INTS_TO_INTS, code, [(([1, -2, 0],), [1, -2, 0])])
    assert got["passed"], got["tests"]
    code = source("lua", INTS_TO_INTS, "  local r = {}\n  for i, x in ipairs(xs) do r[i] = x / 1"
                  " end\n  return r\n")
    got = await verdict("lua", INTS_TO_INTS, code, [(([1, -2, 0],), [1, -2, 0])])
    assert got["passed"], got["tests"]


# ---------------------------------------------------------------- truncation (item 5)
async def test_truncated_output_is_flagged_in_the_stored_verdict():
    noisy = source("python", INT_N, "    import sys\n    sys.stderr.write('e' * 200000)\n"
                   "    return n\n")
    got = await verdict("python", INT_N, noisy, [((7,), 7)])
    assert got["passed"] and got["truncated"] and got["tests"][0]["truncated"]
    flood = source("python", INT_N, "    print('x' * 400000)\n    return n\n")
    got = await verdict("python", INT_N, flood, [((7,), 7)])
    assert (got["status"], got["truncated"]) == ("output_limit", True)
    assert "truncated" in got["reason"]
    quiet = await verdict("python", INT_N, source("python", INT_N, "    return n\n"), [((7,), 7)])
    assert quiet["passed"] and quiet["truncated"] is False


# ---------------------------------------------------------------- toolchain (item 4)
async def test_each_verdict_names_its_toolchain():
    got = await verdict("c", INT_N, source("c", INT_N, "    return n;\n"), [((1,), 1)])
    assert got["toolchain"]["/usr/bin/gcc"].startswith("gcc")
    got = await verdict("rust", INT_N, source("rust", INT_N, "    n\n"), [((1,), 1)])
    assert got["toolchain"]["/opt/rust/bin/rustc"].startswith("rustc ")


# ---------------------------------------------------------------- time (item 1)
SPIN = ("import time\n\n\ndef solve(n):\n    while time.process_time() < n / 10:\n"
        "        pass\n    return n\n")


@pytest.mark.exclusive  # 2.7 CPU-s must fit in the 5 s wall limit: a core to itself
async def test_cpu_limit_judges_too_slow_and_wall_limit_catches_sleepers():
    """90% of the 3 s CPU limit passes however long the wait for a CPU; 110% times out on
    the exact CPU time; a sleeping program still ends at the wall limit (5 s)."""
    got = await verdict("python", INT_N, SPIN, [((27,), 27), ((33,), 33)])
    assert [t["status"] for t in got["tests"]] == ["ok", "timeout"], got["tests"]
    assert got["tests"][0]["passed"]
    sleeper = source("python", INT_N, "    import time\n    time.sleep(60)\n    return n\n")
    got = await verdict("python", INT_N, "import time\n" + sleeper, [((1,), 1)])
    assert got["tests"][0]["status"] == "timeout"
    assert 5.0 <= got["tests"][0]["time_s"] < 15.0
