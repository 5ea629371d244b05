"""The harness's result cannot be stood in for by the candidate's output (issue 25, early exit).

Attacks (each tried first on main, where the expected text on stdout was the verdict): a
program that prints the expected text itself and exits before returning (exit status 0 or
not), that prints it and returns an empty string, that imitates the harness's result frame
(without the job's nonce), that prints to stderr, and that hides the harness's output and
prints the answer after it (atexit, exit events, finalizers). Each case goes through the real
scoring service and host judge (`verdict.score_code`), one through the real rubric of
`load_environment`; a correct program that prints debug output still passes.
"""

from __future__ import annotations

import pytest
from smolscript.languages import PROGRAM_LANGUAGES

from tests.smolscript.test_string_results import literal
from tests.smolscript.test_verdict_policies import source, verdict
from tests.support.smolscript_edition import rubric_rewards

pytestmark = [pytest.mark.integration, pytest.mark.usefixtures("scoring_service")]

INT_N = {"params": [{"name": "n", "type": "int"}], "returns": "int"}
STR_N = {"params": [{"name": "n", "type": "str"}], "returns": "str"}
TESTS = [((3,), 6)]  # solve(3) = 6
STR_TESTS = [(("3",), "6")]
NO_RESULT = "no harness result"
GUESS = "0" * 32
FAKE_FRAMES = {
    "guessed nonce": f"smolscript-result-begin {GUESS}\n6\nsmolscript-result-end {GUESS}\n",
    "no nonce": "smolscript-result-begin\n6\nsmolscript-result-end\n",
    "marker words only": "smolscript-result-begin \n6\nsmolscript-result-end \n",
}


# Headers a candidate needs for its own output, per language.
OUTPUT_HEADERS = {"c": "#include <stdio.h>\n", "cpp": "#include <iostream>\n"}


def printing(language: str, text: str) -> str:
    """Statements that write `text` to stdout and flush it."""
    lit = literal(language, text)
    return {
        "python": f"    import sys\n    sys.stdout.write({lit})\n    sys.stdout.flush()\n",
        "javascript": f"  process.stdout.write({lit});\n",
        "lua": f"  io.write({lit})\n  io.flush()\n",
        "c": f"    fputs({lit}, stdout);\n    fflush(stdout);\n",
        "cpp": f"    std::cout << {lit} << std::flush;\n",
        "csharp": f"        Console.Write({lit});\n        Console.Out.Flush();\n",
        "rust": f"    print!(\"{{}}\", {lit});\n"
        "    std::io::Write::flush(&mut std::io::stdout()).unwrap();\n",
    }[language]


def exiting(language: str, code: int) -> str:
    """Statements that end the process with status `code` before the entry point returns
    (followed by what the compiler needs to accept the function)."""
    return {
        "python": f"    sys.exit({code})\n",
        "javascript": f"  process.exit({code});\n",
        "lua": f"  os.exit({code})\n",
        "c": f"    exit({code});\n",
        "cpp": f"    std::exit({code});\n",
        "csharp": f"        Environment.Exit({code});\n        return default;\n",
        "rust": f"    std::process::exit({code});\n",
    }[language]


def returning(language: str, value: str) -> str:
    """A return statement of the literal expression `value` (the same in every language)."""
    if language == "rust":
        return f"    {value}\n"
    indent = {"python": "    ", "lua": "  ", "javascript": "  ", "csharp": "        "}
    end = "" if language in ("python", "lua") else ";"
    return f"{indent.get(language, '    ')}return {value}{end}\n"


def print_and_exit(language: str, text: str, code: int, signature: dict = INT_N) -> str:
    body = printing(language, text) + exiting(language, code)
    return source(language, signature, body, OUTPUT_HEADERS.get(language, ""))


def print_and_return(language: str, text: str, value: str, signature: dict = INT_N) -> str:
    body = printing(language, text) + returning(language, value)
    return source(language, signature, body, OUTPUT_HEADERS.get(language, ""))


def assert_no_result(got: dict, why: str) -> None:
    assert not got["passed"] and got["hidden_test_pass_rate"] == 0.0, (why, got["tests"])
    assert NO_RESULT in got["reason"], (why, got["reason"], got["tests"])


@pytest.mark.parametrize("code", [0, 1])
@pytest.mark.parametrize("language", PROGRAM_LANGUAGES)
async def test_printing_the_answer_and_exiting_early_earns_nothing(language, code):
    """The issue's attack: print the expected text, exit before returning (no type check)."""
    got = await verdict(language, INT_N, print_and_exit(language, "6\n", code), TESTS)
    assert not got["passed"] and got["hidden_test_pass_rate"] == 0.0, got["tests"]
    if code == 0:
        assert got["status"] == "wrong_answer", got["tests"]
        assert_no_result(got, "exit 0")
    else:
        assert got["status"] == "runtime_error", got["tests"]


@pytest.mark.parametrize("language", PROGRAM_LANGUAGES)
async def test_printing_a_str_answer_and_returning_empty_earns_nothing(language):
    """Print the expected text without a line end, return "": the harness's empty result and
    its line end made the expected output on main."""
    code = print_and_return(language, "6", '""' if language != "rust" else "String::new()",
                            STR_N)
    got = await verdict(language, STR_N, code, STR_TESTS)
    assert not got["passed"] and got["status"] == "wrong_answer", got["tests"]
    assert got["tests"][0]["stdout"] == "", got["tests"]


@pytest.mark.parametrize("frame", sorted(FAKE_FRAMES))
@pytest.mark.parametrize("language", PROGRAM_LANGUAGES)
async def test_an_imitated_result_frame_earns_nothing(language, frame):
    """A frame without the job's nonce counts for nothing: neither when the program exits
    after it nor when the harness's own (wrong) result follows it."""
    text = FAKE_FRAMES[frame]
    got = await verdict(language, INT_N, print_and_exit(language, text, 0), TESTS)
    assert_no_result(got, frame)
    got = await verdict(language, INT_N, print_and_return(language, text, "0"), TESTS)
    assert not got["passed"] and got["status"] == "wrong_answer", (frame, got["tests"])
    assert got["tests"][0]["stdout"] == "0", (frame, got["tests"])


@pytest.mark.parametrize("language", ["python", "javascript", "lua", "c"])
async def test_the_answer_on_stderr_earns_nothing(language):
    body = {
        "python": "    import sys\n    sys.stderr.write('6\\n')\n    sys.exit(0)\n",
        "javascript": "  process.stderr.write('6\\n');\n  process.exit(0);\n",
        "lua": "  io.stderr:write('6\\n')\n  os.exit(0)\n",
        "c": '    fputs("6\\n", stderr);\n    exit(0);\n',
    }[language]
    got = await verdict(language, INT_N, source(language, INT_N, body,
                                                OUTPUT_HEADERS.get(language, "")), TESTS)
    assert_no_result(got, "stderr")


# Hide the harness's output (a wrong result, 0) and write the answer after the harness has
# finished: at exit, from an exit event or from a replaced output function.
HIDE_THEN_PRINT = {
    "python": source("python", INT_N, (
        "    import atexit, io, sys\n"
        "    real = sys.stdout\n"
        "    sys.stdout = io.StringIO()\n"
        "    atexit.register(lambda: (real.write(str(n * 2) + '\\n'), real.flush()))\n"
        "    return 0\n")),
    "javascript": source("javascript", INT_N, (
        "  const write = process.stdout.write.bind(process.stdout);\n"
        "  process.stdout.write = () => true;\n"
        "  process.on('exit', () => { write(String(n * 2) + '\\n'); });\n"
        "  return 0;\n")),
    "lua": source("lua", INT_N, (
        "  local write = io.write\n"
        "  io.write = function() write(tostring(n * 2), '\\n') end\n"
        "  return 0\n")),
    "c": source("c", INT_N, (
        "    answer = n * 2;\n"
        "    fflush(stdout);\n"
        "    kept = dup(1);\n"
        "    freopen(\"/dev/null\", \"w\", stdout);\n"
        "    atexit(print_answer);\n"
        "    return 0;\n"), (
        "#include <stdio.h>\n#include <unistd.h>\n"
        "static int kept = -1, answer;\n"
        "static void print_answer(void) {\n"
        "    char text[32];\n"
        "    int len = snprintf(text, sizeof text, \"%d\\n\", answer);\n"
        "    if (write(kept, text, (size_t)len) < 0) exit(3);\n"
        "}\n")),
    "cpp": source("cpp", INT_N, (
        "    answer = n * 2;\n"
        "    std::fflush(stdout);\n"
        "    kept = dup(1);\n"
        "    std::freopen(\"/dev/null\", \"w\", stdout);\n"
        "    std::atexit(print_answer);\n"
        "    return 0;\n"), (
        "#include <cstdio>\n#include <unistd.h>\n"
        "static int kept = -1, answer;\n"
        "static void print_answer() {\n"
        "    std::string text = std::to_string(answer) + \"\\n\";\n"
        "    if (write(kept, text.data(), text.size()) < 0) std::exit(3);\n"
        "}\n")),
    "csharp": source("csharp", INT_N, (
        "        var real = Console.Out;\n"
        "        Console.SetOut(System.IO.TextWriter.Null);\n"
        "        AppDomain.CurrentDomain.ProcessExit += (s, e) => "
        "{ real.Write((n * 2) + \"\\n\"); real.Flush(); };\n"
        "        return 0;\n")),
    "rust": source("rust", INT_N, (
        "    ANSWER.store(n * 2, Ordering::SeqCst);\n"
        "    let null = std::fs::OpenOptions::new().write(true).open(\"/dev/null\").unwrap();\n"
        "    unsafe {\n"
        "        KEPT.store(dup(1), Ordering::SeqCst);\n"
        "        dup2(null.into_raw_fd(), 1);\n"
        "        atexit(print_answer);\n"
        "    }\n"
        "    0\n"), (
        "use std::os::unix::io::IntoRawFd;\n"
        "use std::sync::atomic::{AtomicI32, Ordering};\n"
        "extern \"C\" {\n"
        "    fn atexit(callback: extern \"C\" fn()) -> i32;\n"
        "    fn dup(fd: i32) -> i32;\n"
        "    fn dup2(old: i32, new: i32) -> i32;\n"
        "    fn write(fd: i32, buf: *const u8, len: usize) -> isize;\n"
        "}\n"
        "static KEPT: AtomicI32 = AtomicI32::new(-1);\n"
        "static ANSWER: AtomicI32 = AtomicI32::new(0);\n"
        "extern \"C\" fn print_answer() {\n"
        "    let text = format!(\"{}\\n\", ANSWER.load(Ordering::SeqCst));\n"
        "    unsafe { write(KEPT.load(Ordering::SeqCst), text.as_ptr(), text.len()); }\n"
        "}\n")),
}


@pytest.mark.parametrize("language", PROGRAM_LANGUAGES)
async def test_hiding_the_harness_output_and_printing_after_it_earns_nothing(language):
    got = await verdict(language, INT_N, HIDE_THEN_PRINT[language], TESTS)
    assert not got["passed"] and got["hidden_test_pass_rate"] == 0.0, got["tests"]
    assert got["status"] == "wrong_answer", got["tests"]


FINALLY_EXIT = {
    "python": "    import sys\n    try:\n        return 0\n    finally:\n"
    "        print(n * 2)\n        sys.exit(0)\n",
    "javascript": "  try {\n    return 0;\n  } finally {\n    console.log(String(n * 2));\n"
    "    process.exit(0);\n  }\n",
    "csharp": "        try\n        {\n            return 0;\n        }\n"
    "        finally\n        {\n            Console.WriteLine(n * 2);\n"
    "            Environment.Exit(0);\n        }\n",
}


@pytest.mark.parametrize("language", sorted(FINALLY_EXIT))
async def test_printing_and_exiting_in_a_finally_block_earns_nothing(language):
    got = await verdict(language, INT_N, source(language, INT_N, FINALLY_EXIT[language]), TESTS)
    assert_no_result(got, "finally")


@pytest.mark.parametrize("language", PROGRAM_LANGUAGES)
async def test_a_correct_program_that_prints_debug_output_passes(language):
    """Debug output on stdout (with or without a line end) and stderr does not change the
    verdict of a correct result: only the harness's framed result is compared."""
    debug = printing(language, "debug: n = 3\nno line end")
    body = debug + returning(language, "n * 2")
    got = await verdict(language, INT_N, source(language, INT_N, body,
                                                OUTPUT_HEADERS.get(language, "")), TESTS)
    assert got["passed"], (language, got["reason"], got["tests"])
    assert got["tests"][0]["stdout"] == "6", got["tests"]
    assert "debug: n = 3" in got["tests"][0]["program_output"], got["tests"]


async def test_through_the_rubric_an_early_exit_scores_zero(tmp_path, monkeypatch):
    completions = ["    return n + 1\n",
                   "    import sys\n    print(n + 1)\n    sys.exit(0)\n",
                   "    print('debug', n)\n    return n + 1\n"]
    rewards = await rubric_rewards(tmp_path / "data", monkeypatch, completions)
    assert rewards == [1.0, 0.0, 1.0]
