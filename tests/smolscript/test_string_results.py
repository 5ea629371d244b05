"""Exact string results (issue 25): a `str` result passes only when it is the expected
printable-ASCII text itself, in every program language.

Attacks (each tried first on main, where the trailing carriage return passed everywhere): a
string that differs from the expected one by a carriage return, another control character, a
line end, a look-alike Unicode character or a trailing space, and C's NULL / C#'s null, which
the harnesses printed as "(null)" / "". Each case goes through the real scoring service and host
judge (`verdict.score_code`); one through the real rubric of `load_environment`.
"""

from __future__ import annotations

import pytest
from smolscript.languages import LANGUAGES, PROGRAM_LANGUAGES
from smolscript.types import TYPE_MISMATCH_EXIT, TYPE_MISMATCH_PREFIX
from smolscript_sandbox.client import SandboxClient
from smolscript_sandbox.schema import JobTest, ProgramJob
from smolscript_sandbox.testing import TEST_URL

from tests.smolscript.test_verdict_policies import source, verdict
from tests.support.smolscript_edition import rubric_rewards

pytestmark = [pytest.mark.integration, pytest.mark.usefixtures("scoring_service")]

STR_N = {"params": [{"name": "n", "type": "int"}], "returns": "str"}


def literal(language: str, text: str) -> str:
    """`text` as a string literal of `language` (non-printable and non-ASCII characters
    escaped, so that the source itself stays printable ASCII)."""
    out = []
    for ch in text:
        if 32 <= ord(ch) < 127 and ch not in "\"\\":
            out.append(ch)
        elif ch in "\"\\":
            out.append("\\" + ch)
        elif language in ("c", "cpp"):  # octal bytes of the UTF-8 spelling (3 digits: no run-on)
            out.extend(f"\\{b:03o}" for b in ch.encode())
        elif language == "lua":  # decimal bytes (3 digits)
            out.extend(f"\\{b:03d}" for b in ch.encode())
        elif language in ("javascript", "rust"):
            out.append(f"\\u{{{ord(ch):x}}}")
        else:  # python, csharp
            out.append(f"\\u{ord(ch):04x}" if ord(ch) < 0x10000 else f"\\U{ord(ch):08x}")
    return '"' + "".join(out) + '"'


def returning(language: str, text: str) -> str:
    """A complete candidate `solve(n) -> str` that returns `text` (embedded NULs kept where
    the language's strings can hold them)."""
    lit = literal(language, text)
    body = {
        "python": f"    return {lit}\n",
        "javascript": f"  return {lit};\n",
        "c": f"    return {lit};\n",
        "cpp": f"    return std::string({lit}, sizeof({lit}) - 1);\n",
        "csharp": f"        return {lit};\n",
        "rust": f"    String::from({lit})\n",
        "lua": f"  return {lit}\n",
    }[language]
    return source(language, STR_N, body)


# (returned text, expected text, why it must fail); each returned text differs from the
# expected one only by what a reader of the printed output may not see.
NOT_PRINTABLE = [
    ("6\r", "6", "trailing carriage return (CRLF folded to LF by the service)"),
    ("6\r\n", "6", "CRLF line end inside the value"),
    ("\r6", "6", "leading carriage return"),
    ("6\n", "6", "a line feed inside the value"),
    ("6\t", "6", "trailing tab"),
    ("6\x1b[0m", "6", "ANSI escape sequence"),
    ("6\x7f", "6", "DEL"),
    ("6\x00", "6", "NUL (C's strings end there: not a C case)"),
    ("\uff16", "6", "FULLWIDTH DIGIT SIX, a look-alike"),
    ("\u0430bc", "abc", "Cyrillic a, a look-alike"),
    ("6\u200b", "6", "zero-width space"),
    ("6\U0001f600", "6", "a character outside the BMP"),
]
CASES = [(language, *case) for language in PROGRAM_LANGUAGES
         if LANGUAGES[language].modality == "program" for case in NOT_PRINTABLE
         if not (language == "c" and "\x00" in case[0])]


def test_every_program_harness_checks_string_results():
    """Every harness (the compiled languages' too) reports a rejected string as a type
    mismatch that the host reads back."""
    for language in PROGRAM_LANGUAGES:
        text = LANGUAGES[language].harness.template
        assert TYPE_MISMATCH_PREFIX in text and str(TYPE_MISMATCH_EXIT) in text, language


@pytest.mark.parametrize("language", PROGRAM_LANGUAGES)
async def test_printable_strings_of_the_expected_text_still_pass(language):
    """Every printable ASCII character, the empty string and a spaced string pass."""
    printable = "".join(chr(c) for c in range(32, 127))
    for text in (printable, "", " a b ", "6"):
        got = await verdict(language, STR_N, returning(language, text), [((3,), text)])
        assert got["passed"], (language, text, got["reason"], got["tests"])


@pytest.mark.parametrize(("language", "text", "expected", "why"), CASES,
                         ids=[f"{c[0]}-{c[3]}" for c in CASES])
async def test_a_string_that_only_looks_like_the_answer_earns_nothing(language, text,
                                                                     expected, why):
    got = await verdict(language, STR_N, returning(language, text), [((3,), expected)])
    assert not got["passed"] and got["hidden_test_pass_rate"] == 0.0, (why, got["tests"])
    assert got["status"] == "wrong_answer", (why, got["status"], got["tests"][0]["stderr"])
    assert "result type mismatch: expected str, got " in got["reason"], (why, got["reason"])
    assert "not printable ASCII" in got["reason"], (why, got["reason"])


@pytest.mark.parametrize("language", PROGRAM_LANGUAGES)
async def test_a_trailing_space_is_a_wrong_answer(language):
    """Printable, so no type mismatch: the exact comparison fails it."""
    got = await verdict(language, STR_N, returning(language, "6 "), [((3,), "6")])
    assert not got["passed"] and got["status"] == "wrong_answer", got["tests"]
    assert got["tests"][0]["stdout"] == "6 ", got["tests"]


@pytest.mark.parametrize(("language", "body", "prints"), [
    ("c", "    return NULL;\n", "(null)"),
    ("csharp", "        return null;\n", ""),
])
async def test_a_null_string_is_no_string(language, body, prints):
    """C's harness printed NULL as "(null)" and C#'s printed null as "": both are type
    mismatches, even where the expected string is that text."""
    got = await verdict(language, STR_N, source(language, STR_N, body), [((3,), prints)])
    assert not got["passed"] and got["status"] == "wrong_answer", got["tests"]
    assert "result type mismatch: expected str, got null" in got["reason"].lower(), got


async def test_the_service_reports_stdout_as_the_program_wrote_it():
    """A job without a harness writes CR, CRLF and a lone LF: stdout keeps every byte but one
    final LF (before issue 25 the service folded CRLF into LF, so "6\\r" printed as "6")."""
    program = "import sys\nsys.stdout.buffer.write(sys.stdin.buffer.read())\n"
    stdins = ["6\r\n", "6\r", "a\r\nb\n", "6\n\n", "6"]
    job = ProgramJob(runtime="python", files={"main.py": program},
                     tests=[JobTest(stdin=text) for text in stdins])
    async with SandboxClient(TEST_URL) as client:
        reply = await client.run_program_job(job)
    assert [t.status for t in reply.tests] == ["ok"] * len(stdins), reply
    assert [t.stdout for t in reply.tests] == ["6\r", "6\r", "a\r\nb", "6\n", "6"]


async def test_through_the_rubric_a_carriage_return_scores_zero(tmp_path, monkeypatch):
    completions = ["    return str(n + 1)\n", "    return str(n + 1) + '\\r'\n",
                   "    return str(n + 1) + '\\r\\n'\n", "    return str(n + 1) + ' '\n"]
    rewards = await rubric_rewards(tmp_path / "data", monkeypatch, completions, returns="str")
    assert rewards == [1.0, 0.0, 0.0, 0.0]
