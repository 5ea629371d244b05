"""Golden assembly cases: messy model text -> the exact code the sandbox receives (or a rejection).

Each case is (task, raw text, expected code or None, why). The raw texts are the failure
kinds small models produce: fences around a whole program, bodies that stop at their last
line, special tokens, nested helpers, delimiters hidden in literals, CRLF, tabs, prose.
"""

from __future__ import annotations

import pytest
from smolscript.assemble import (
    assemble_completion,
    assemble_prediction,
    body_of_reference,
    code_head,
    normalize,
    sources_equal,
)

pytestmark = pytest.mark.unit

PY = {"id": "py", "language": "python", "prefix": "def solve(n):\n", "entry_point": "solve",
      "imports": ["import math"]}
PY_NOIMP = {**PY, "imports": []}
JS = {"id": "js", "language": "javascript", "prefix": "function solve(s) {\n",
      "entry_point": "solve", "imports": []}
C = {"id": "c", "language": "c", "prefix": "int solve(int n) {\n", "entry_point": "solve",
     "imports": ["#include <string.h>"]}
CPP = {"id": "cpp", "language": "cpp", "prefix": "int solve(int n) {\n", "entry_point": "solve",
       "imports": ["#include <string>"]}
CS = {"id": "cs", "language": "csharp",
      "prefix": "public class Solution {\n    public static int Solve(int n) {\n",
      "entry_point": "Solve", "imports": ["using System;"]}
RS = {"id": "rs", "language": "rust", "prefix": "fn solve(n: i32) -> i32 {\n",
      "entry_point": "solve", "imports": []}
LUA = {"id": "lua", "language": "lua", "prefix": "local function solve(n)\n",
       "entry_point": "solve", "imports": []}
HTML = {"id": "html", "language": "html", "prefix": "<", "entry_point": None, "imports": []}
CSS = {"id": "css", "language": "css", "prefix": "", "entry_point": None, "imports": []}

PYH = "import math\ndef solve(n):\n"

COMPLETIONS = [
    # --- Python
    (PY, "```python\nimport math\ndef solve(n):\n    return abs(n * 2) % 10\n```\nThis works.",
     "import math\ndef solve(n):\n    return abs(n * 2) % 10\n",
     "fence, then imports, then the whole definition: accepted from scratch"),
    (PY, "    return n * 2", PYH + "    return n * 2\n",
     "body ends exactly at its last line, no newline, no stop"),
    (PY, "    return n * 2\n<|endoftext|>", PYH + "    return n * 2\n", "trailing special token"),
    (PY, "    return n * 2\n<|endof", PYH + "    return n * 2\n", "half a special token"),
    (PY, "    def helper(x):\n        return x + 1\n    return helper(n)\n\nprint(solve(3))\n",
     PYH + "    def helper(x):\n        return x + 1\n    return helper(n)\n",
     "nested helper kept; module-level call dropped"),
    (PY, "    return helper(n)\n\n\ndef helper(x):\n    return x * 3\n\nExplanation: it triples.",
     PYH + "    return helper(n)\n\n\ndef helper(x):\n    return x * 3\n",
     "valid module-level helper after the body is kept, prose dropped"),
    (PY, "    return n\n\ndef solve(n):\n    return 0\n", PYH + "    return n\n",
     "a second definition of the entry point would replace the first: dropped"),
    (PY, "    s = '}'  # }\n    return n\nThat's it: the function \"doubles\".",
     PYH + "    s = '}'  # }\n    return n\n", "prose with stray quotes after the body"),
    (PY, "    if n > 0:\r\n        return n\r\n    return -n\r\n", PYH +
     "    if n > 0:\n        return n\n    return -n\n", "CRLF line ends"),
    (PY, "\tif n > 0:\n\t\treturn n\n\treturn -n\n",
     PYH + "\tif n > 0:\n\t\treturn n\n\treturn -n\n", "tab indentation is kept as written"),
    (PY, "    return (n +", PYH + "    return (n +\n", "unfinished body kept as is, not closed"),
    (PY, "return n\n", PYH + "return n\n", "missing indentation is not invented"),
    (PY, "  return n\n More prose", PYH + "  return n\n More prose\n",
     "malformed dedent: kept as written for the sandbox to reject"),
    (PY, "```python\n    return n + 1\n```", PYH + "    return n + 1\n",
     "a fenced body keeps its indentation"),
    (PY, "```python\n    return n\n```\nor\n```python\n    return -n\n```", None,
     "several fences are rejected"),
    (PY, "```python\ndef solve(n):\n    return n", None, "an unfinished fence is rejected"),
    (PY_NOIMP, "def solve(n):\n    return n * 2\n\nsolve(3)",
     "def solve(n):\n    return n * 2\n", "complete definition written from scratch, no fence"),
    (PY, "def solve(n):\n    return math.floor(n)\n",
     "import math\ndef solve(n):\n    return math.floor(n)\n",
     "from scratch without the supplied import: the import is supplied"),
    # --- braced languages
    (C, "    const char *s = \"}\"; char c = '}'; /* } */ // }\n    return n;\n}\nThis returns n {",
     "#include <string.h>\nint solve(int n) {\n    const char *s = \"}\"; char c = '}'; "
     "/* } */ // }\n    return n;\n}\n", "braces in strings, comments and char literals"),
    (C, "    if (n < 0) {\r\n        return -n;\r\n    }\r\n    return n;\r\n}\r\n\r\nint main",
     "#include <string.h>\nint solve(int n) {\n    if (n < 0) {\n        return -n;\n    }\n"
     "    return n;\n}\n", "CRLF in a braced language, trailing code dropped"),
    (C, "    return n;", "#include <string.h>\nint solve(int n) {\n    return n;\n",
     "missing closing brace is not invented"),
    (C, "```c\n#include <string.h>\nint solve(int n) {\n    return n;\n}\n```\n",
     "#include <string.h>\nint solve(int n) {\n    return n;\n}\n", "fenced program from scratch"),
    (CPP, "    std::string s = R\"x(}})x\";\n    return (int)s.size() + n;\n}\n// done",
     "#include <string>\nint solve(int n) {\n    std::string s = R\"x(}})x\";\n"
     "    return (int)s.size() + n;\n}\n", "C++ raw string with braces"),
    (JS, "  const r = /[}]{2}/g;\n  const t = `${s.replace(r, \"}\")}}`;\n  return t;\n}\n"
         "console.log(solve('a'));",
     "function solve(s) {\n  const r = /[}]{2}/g;\n  const t = `${s.replace(r, \"}\")}}`;\n"
     "  return t;\n}\n", "JavaScript regex literal and template literal with braces"),
    (JS, "  return s.length / 2 / 1;\n}\n\nExplanation", "function solve(s) {\n"
     "  return s.length / 2 / 1;\n}\n", "division is not a regex"),
    (JS, "  return s;\n};\nmore", "function solve(s) {\n  return s;\n};\n",
     "a semicolon right after the closing brace is kept"),
    (CS, "        string v = @\"a\"\"}\"; string w = $\"{n}}}\";\n        char c = '{';\n"
         "        return n;\n    }\n}\nThe class above...",
     "using System;\npublic class Solution {\n    public static int Solve(int n) {\n"
     "        string v = @\"a\"\"}\"; string w = $\"{n}}}\";\n        char c = '{';\n"
     "        return n;\n    }\n}\n", "C# verbatim and interpolated strings; class closed"),
    (CS, "        return n;\n    }\n\n    static int Helper() { return 1; }\n}\n",
     "using System;\npublic class Solution {\n    public static int Solve(int n) {\n"
     "        return n;\n    }\n\n    static int Helper() { return 1; }\n}\n",
     "C# helper method inside the class is kept"),
    (RS, "    let c = '}';\n    let s = r#\"}\"#;\n    fn h<'a>(x: &'a str) -> &'a str { x }\n"
         "    n + h(s).len() as i32\n}\n\nfn main() {}",
     "fn solve(n: i32) -> i32 {\n    let c = '}';\n    let s = r#\"}\"#;\n"
     "    fn h<'a>(x: &'a str) -> &'a str { x }\n    n + h(s).len() as i32\n}\n",
     "Rust char, raw string, lifetimes and a nested fn"),
    (RS, "    /* a /* nested } */ comment } */\n    n\n}\n", "fn solve(n: i32) -> i32 {\n"
     "    /* a /* nested } */ comment } */\n    n\n}\n", "Rust nested block comments"),
    # --- Lua
    (LUA, "  local s = \"end\" .. 'end' .. [[end]] .. [==[ end ]==] -- end\n"
          "  if n > 0 then return n end\n  for i = 1, 2 do n = n + i end\n"
          "  repeat n = n - 1 until n < 5\n  return n\nend\nprint(solve(1))",
     "local function solve(n)\n  local s = \"end\" .. 'end' .. [[end]] .. [==[ end ]==] -- end\n"
     "  if n > 0 then return n end\n  for i = 1, 2 do n = n + i end\n"
     "  repeat n = n - 1 until n < 5\n  return n\nend\n", "Lua end inside strings and comments"),
    (LUA, "  --[[ end\n  end ]]\n  return n\nend", "local function solve(n)\n  --[[ end\n  end ]]\n"
     "  return n\nend\n", "Lua block comment, body ends at its last line"),
    (LUA, "  return n\n", "local function solve(n)\n  return n\n",
     "missing end is not invented"),
    # --- web
    (HTML, "ul>\n  <li>One</li>\n</ul>\nThis list has one item.",
     "<ul>\n  <li>One</li>\n</ul>\n", "HTML trailing prose dropped"),
    (HTML, "p>a</p>\n```\nmore", "<p>a</p>\n", "HTML cut at a fence line"),
    (HTML, "html><body></body></html>\n<p>x</p>", "<html><body></body></html>\n",
     "HTML cut after </html>"),
    (CSS, ".a { color: red; }\n.b { content: \"}\"; }\nThat styles it.",
     ".a { color: red; }\n.b { content: \"}\"; }\n", "CSS trailing prose dropped, brace in string"),
    (CSS, ".a { color: red;", ".a { color: red;\n", "unfinished CSS rule kept as written"),
]


@pytest.mark.parametrize(("task", "raw", "expected", "why"), COMPLETIONS,
                         ids=[c[3] for c in COMPLETIONS])
def test_assemble_completion_golden(task, raw, expected, why):
    result = assemble_completion(task, raw)
    assert result.code == expected, why
    assert result.ok == (expected is not None)


PREDICTIONS = [
    (PY, "import math\n\ndef solve(n):\n    return n\n",
     "import math\n\ndef solve(n):\n    return n\n", "raw complete source"),
    (PY_NOIMP, "Here you go:\n```python\ndef solve(n):\n    return n\n```\nDone.",
     "def solve(n):\n    return n\n", "one fenced block among prose"),
    (PY, "```\ndef solve(n):\n```\n```\nx\n```", None, "several fences"),
    (C, "```c\nint solve(int n) {\n  return n;\n}\n", None, "unfinished fence"),
    (C, "int solve(int n) {\n  return n;\n}\nint main(void) { return 0; }\n",
     "#include <string.h>\nint solve(int n) {\n  return n;\n}\n",
     "supplied import added; trailing main dropped"),
    (HTML, "```html\n<p>x</p>\n```", "<p>x</p>\n", "fenced markup"),
]


@pytest.mark.parametrize(("task", "code", "expected", "why"), PREDICTIONS,
                         ids=[c[3] for c in PREDICTIONS])
def test_assemble_prediction_golden(task, code, expected, why):
    assert assemble_prediction(task, code).code == expected, why


def test_rejections_carry_a_reason():
    result = assemble_completion(PY, "```python\n    return 1\n```\n```\n```")
    assert result.code is None and result.mode == "rejected" and result.note == "multiple_fences"
    assert assemble_completion(PY, "```py\nx").note == "unfinished_fence"


@pytest.mark.parametrize(("text", "language", "expected"), [
    ("abc<|endoftext|>", "python", "abc"), ("abc<|im_end|>junk", "python", "abc<|im_end|>junk"),
    ("abc<|", "python", "abc"), ("abc<|im_e", "python", "abc"), ("a</s>", "python", "a"),
    ("<p>a</", "html", "<p>a</"), ("abc<", "python", "abc<"),
    ("<s>old</s>", "html", "<s>old</s>"), ("<s>old</s><|im_end|>", "html", "<s>old</s>"),
    ("a\r\nb<|im_end|>\n", "lua", "a\nb"),
])
def test_normalize_strips_end_markers_only_at_the_end(text, language, expected):
    assert normalize(text, language) == expected


def test_html_strikethrough_close_tag_is_code_not_a_stop_token():
    raw = 'p><s>old</s> <input type="text" id="q"></p>\n<|im_end|>'
    code = assemble_completion(HTML, raw).code
    assert code == '<p><s>old</s> <input type="text" id="q"></p>\n'


@pytest.mark.parametrize("task", [PY, C, CS, RS, LUA, JS, CPP])
def test_reference_roundtrip_on_handwritten_references(task):
    bodies = {
        "python": "    x = n * 2\n    return abs(x) % 10\n",
        "c": "    return n % 10;\n}\n",
        "cpp": "    return n % 10;\n}\n",
        "csharp": "        return n % 10;\n    }\n}\n",
        "rust": "    n % 10\n}\n",
        "lua": "  return n % 10\nend\n",
        "javascript": "  return s + '}';\n}\n",
    }
    reference = code_head(task) + task["prefix"] + bodies[task["language"]]
    body = body_of_reference(task, reference)
    assembled = assemble_completion(task, body)
    assert sources_equal(task["language"], assembled.code, reference)


def test_sources_equal_python_is_ast_equality():
    assert sources_equal("python", "def f():\n    return 1\n", "def f():\n  return (1)\n")
    assert not sources_equal("python", "def f():\n    return 1\n", "def f():\n    return 2\n")
    assert not sources_equal("c", "int x;", "int  x;")
