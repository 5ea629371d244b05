"""Harness templates: real code per language that feeds a candidate's entry point from stdin.

A job's source file is the candidate's complete source with the language's harness appended.
Each template is ordinary code in the target language with three named slots, written
``@@SOURCE@@``, ``@@READ_ARGS@@`` and ``@@CALL_AND_PRINT@@`` on lines of their own. The
per-type snippets below fill the slots: arguments are read in the line format of
``smolscript.types.encode_stdin`` and the result is printed as ``canonical_output`` spells it.
Harness identifiers carry a ``smol`` prefix so that they do not collide with candidate code.
"""

# Harness snippets keep one target-language statement per line, so some lines are long.
# ruff: noqa: E501
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from smolscript.types import validate_signature

SLOTS = ("@@SOURCE@@", "@@READ_ARGS@@", "@@CALL_AND_PRINT@@")


@dataclass(frozen=True)
class HarnessSpec:
    """One language's harness: template, per-type argument readers and result printers.

    ``read`` maps a value type to a statement template with ``{var}`` (the argument variable).
    ``arg`` maps a value type to how that variable is passed (``{var}``; C adds a length).
    ``call_and_print`` maps a return type to statements with ``{call}`` (entry-point call
    without the trailing result out-parameter) and ``{extra}`` (C's ``&smol_r_len`` slot).
    ``call`` is the call expression with ``{entry}`` and ``{args}``.
    """

    template: str
    read: Mapping[str, str]
    arg: Mapping[str, str]
    call: str
    call_and_print: Mapping[str, str]
    indent: str


def _block(indent: str, text: str) -> str:
    return "\n".join(indent + line if line else line for line in text.split("\n"))


def render_harnessed_source(
    harness: HarnessSpec, source: str, entry_point: str, signature: Mapping[str, Any]
) -> str:
    """Return ``source`` followed by ``harness`` filled for ``signature`` (pure).

    Raises SignatureError for a malformed signature.
    """
    validate_signature(signature)
    reads, args = [], []
    for index, param in enumerate(signature["params"]):
        var = f"smol_a{index}"
        reads.append(harness.read[param["type"]].format(var=var))
        args.append(harness.arg[param["type"]].format(var=var))
    returns = signature["returns"]
    call = harness.call.format(entry=entry_point, args=", ".join(args))
    printing = harness.call_and_print[returns].format(call=call)
    text = harness.template
    text = text.replace("@@READ_ARGS@@", _block(harness.indent, "\n".join(reads)))
    text = text.replace("@@CALL_AND_PRINT@@", _block(harness.indent, printing))
    return text.replace("@@SOURCE@@", source.rstrip("\n"), 1)


PYTHON = HarnessSpec(
    template="""@@SOURCE@@


def _smol_main():
    import sys as smol_sys

    smol_lines = smol_sys.stdin.read().split("\\n")
    smol_pos = [0]

    def smol_line():
        smol_pos[0] += 1
        return smol_lines[smol_pos[0] - 1] if smol_pos[0] <= len(smol_lines) else ""

@@READ_ARGS@@
@@CALL_AND_PRINT@@


_smol_main()
""",
    read={
        "int": "{var} = int(smol_line())",
        "bool": '{var} = smol_line() == "true"',
        "str": "{var} = smol_line()",
        "list[int]": "{var} = [int(smol_line()) for _ in range(int(smol_line()))]",
        "list[str]": "{var} = [smol_line() for _ in range(int(smol_line()))]",
    },
    arg={t: "{var}" for t in ("int", "bool", "str", "list[int]", "list[str]")},
    call="{entry}({args})",
    call_and_print={
        "int": "print({call})",
        "bool": 'smol_r = {call}\nprint("true" if smol_r is True else "false" if smol_r is False else smol_r)',
        "str": "print({call})",
        "list[int]": 'print(" ".join(str(smol_x) for smol_x in {call}))',
    },
    indent="    ",
)

JAVASCRIPT = HarnessSpec(
    template="""@@SOURCE@@

const smolLines = require("fs").readFileSync(0, "utf8").split("\\n");
let smolPos = 0;
function smolLine() {
  smolPos += 1;
  return smolPos <= smolLines.length ? smolLines[smolPos - 1] : "";
}
function smolInt() {
  return parseInt(smolLine(), 10);
}
(function smolMain() {
@@READ_ARGS@@
@@CALL_AND_PRINT@@
})();
""",
    read={
        "int": "const {var} = smolInt();",
        "bool": 'const {var} = smolLine() === "true";',
        "str": "const {var} = smolLine();",
        "list[int]": "const {var} = [];\nfor (let i = 0, n = smolInt(); i < n; i++) {var}.push(smolInt());",
        "list[str]": "const {var} = [];\nfor (let i = 0, n = smolInt(); i < n; i++) {var}.push(smolLine());",
    },
    arg={t: "{var}" for t in ("int", "bool", "str", "list[int]", "list[str]")},
    call="{entry}({args})",
    call_and_print={
        "int": 'process.stdout.write(String({call}) + "\\n");',
        "bool": 'const smolR = {call};\nprocess.stdout.write((smolR === true ? "true" : smolR === false ? "false" : String(smolR)) + "\\n");',
        "str": 'process.stdout.write(String({call}) + "\\n");',
        "list[int]": 'process.stdout.write({call}.join(" ") + "\\n");',
    },
    indent="  ",
)

C = HarnessSpec(
    template="""@@SOURCE@@

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char smol_buf[65536];

static char *smol_line(void) {
    if (fgets(smol_buf, sizeof smol_buf, stdin) == NULL) {
        smol_buf[0] = '\\0';
    }
    size_t n = strlen(smol_buf);
    if (n > 0 && smol_buf[n - 1] == '\\n') {
        smol_buf[--n] = '\\0';
    }
    char *copy = malloc(n + 1);
    memcpy(copy, smol_buf, n + 1);
    return copy;
}

static int smol_int(void) {
    char *text = smol_line();
    int value = atoi(text);
    free(text);
    return value;
}

static int *smol_ints(int n) {
    int *items = malloc(sizeof(int) * (size_t)(n + 1));
    for (int i = 0; i < n; i++) {
        items[i] = smol_int();
    }
    return items;
}

static char **smol_strs(int n) {
    char **items = malloc(sizeof(char *) * (size_t)(n + 1));
    for (int i = 0; i < n; i++) {
        items[i] = smol_line();
    }
    return items;
}

static void smol_print_ints(const int *items, int n) {
    for (int i = 0; i < n; i++) {
        printf(i == 0 ? "%d" : " %d", items[i]);
    }
    printf("\\n");
}

int main(void) {
@@READ_ARGS@@
@@CALL_AND_PRINT@@
    return 0;
}
""",
    read={
        "int": "int {var} = smol_int();",
        "bool": 'char *{var}_text = smol_line();\nbool {var} = strcmp({var}_text, "true") == 0;',
        "str": "char *{var} = smol_line();",
        "list[int]": "int {var}_len = smol_int();\nint *{var} = smol_ints({var}_len);",
        "list[str]": "int {var}_len = smol_int();\nchar **{var} = smol_strs({var}_len);",
    },
    arg={
        "int": "{var}",
        "bool": "{var}",
        "str": "{var}",
        "list[int]": "{var}, {var}_len",
        "list[str]": "{var}, {var}_len",
    },
    call="{entry}({args}",
    call_and_print={
        "int": 'printf("%d\\n", {call}));',
        "bool": 'printf("%s\\n", {call}) ? "true" : "false");',
        "str": 'const char *smol_r = {call});\nprintf("%s\\n", smol_r == NULL ? "(null)" : smol_r);',
        "list[int]": "int smol_r_len = 0;\nint *smol_r = {call}, &smol_r_len);\nsmol_print_ints(smol_r, smol_r_len);",
    },
    indent="    ",
)

CPP = HarnessSpec(
    template="""@@SOURCE@@

#include <iostream>
#include <string>
#include <vector>

static std::string smol_line() {
    std::string line;
    if (!std::getline(std::cin, line)) {
        line.clear();
    }
    return line;
}

static int smol_int() {
    return std::stoi(smol_line());
}

int main() {
@@READ_ARGS@@
@@CALL_AND_PRINT@@
    return 0;
}
""",
    read={
        "int": "int {var} = smol_int();",
        "bool": 'bool {var} = smol_line() == "true";',
        "str": "std::string {var} = smol_line();",
        "list[int]": "std::vector<int> {var};\nfor (int i = 0, n = smol_int(); i < n; i++) {var}.push_back(smol_int());",
        "list[str]": "std::vector<std::string> {var};\nfor (int i = 0, n = smol_int(); i < n; i++) {var}.push_back(smol_line());",
    },
    arg={t: "{var}" for t in ("int", "bool", "str", "list[int]", "list[str]")},
    call="{entry}({args})",
    call_and_print={
        "int": 'std::cout << {call} << "\\n";',
        "bool": 'std::cout << ({call} ? "true" : "false") << "\\n";',
        "str": 'std::cout << {call} << "\\n";',
        "list[int]": 'std::vector<int> smol_r = {call};\nfor (size_t i = 0; i < smol_r.size(); i++) std::cout << (i ? " " : "") << smol_r[i];\nstd::cout << "\\n";',
    },
    indent="    ",
)

CSHARP = HarnessSpec(
    template="""@@SOURCE@@

public static class SmolHarness
{
    private static string SmolLine()
    {
        string line = System.Console.In.ReadLine();
        return line ?? "";
    }

    private static int SmolInt()
    {
        return int.Parse(SmolLine(), System.Globalization.CultureInfo.InvariantCulture);
    }

    public static void Main()
    {
@@READ_ARGS@@
@@CALL_AND_PRINT@@
    }
}
""",
    read={
        "int": "int {var} = SmolInt();",
        "bool": 'bool {var} = SmolLine() == "true";',
        "str": "string {var} = SmolLine();",
        "list[int]": "var {var} = new System.Collections.Generic.List<int>();\nfor (int i = 0, n = SmolInt(); i < n; i++) {var}.Add(SmolInt());",
        "list[str]": "var {var} = new System.Collections.Generic.List<string>();\nfor (int i = 0, n = SmolInt(); i < n; i++) {var}.Add(SmolLine());",
    },
    arg={t: "{var}" for t in ("int", "bool", "str", "list[int]", "list[str]")},
    call="Solution.{entry}({args})",
    call_and_print={
        "int": 'System.Console.Out.Write({call}.ToString(System.Globalization.CultureInfo.InvariantCulture) + "\\n");',
        "bool": 'System.Console.Out.Write(({call} ? "true" : "false") + "\\n");',
        "str": 'System.Console.Out.Write({call} + "\\n");',
        "list[int]": 'System.Console.Out.Write(string.Join(" ", {call}) + "\\n");',
    },
    indent="        ",
)

RUST = HarnessSpec(
    template="""@@SOURCE@@

#[allow(unused_mut)]
fn main() {
    let mut smol_input = String::new();
    std::io::Read::read_to_string(&mut std::io::stdin(), &mut smol_input).unwrap();
    let mut smol_lines = smol_input.split('\\n');
    let mut smol_line = move || -> String { smol_lines.next().unwrap_or("").to_string() };
@@READ_ARGS@@
@@CALL_AND_PRINT@@
}
""",
    read={
        "int": "let {var}: i32 = smol_line().trim().parse().unwrap();",
        "bool": 'let {var}: bool = smol_line() == "true";',
        "str": "let {var}: String = smol_line();",
        "list[int]": "let mut {var}: Vec<i32> = Vec::new();\nlet {var}_n: usize = smol_line().trim().parse().unwrap();\nfor _ in 0..{var}_n {{\n    {var}.push(smol_line().trim().parse().unwrap());\n}}",
        "list[str]": "let mut {var}: Vec<String> = Vec::new();\nlet {var}_n: usize = smol_line().trim().parse().unwrap();\nfor _ in 0..{var}_n {{\n    {var}.push(smol_line());\n}}",
    },
    arg={
        "int": "{var}",
        "bool": "{var}",
        "str": "&{var}",
        "list[int]": "&{var}",
        "list[str]": "&{var}",
    },
    call="{entry}({args})",
    call_and_print={
        "int": 'println!("{{}}", {call});',
        "bool": 'println!("{{}}", {call});',
        "str": 'println!("{{}}", {call});',
        "list[int]": 'let smol_r: Vec<String> = {call}.iter().map(|x| x.to_string()).collect();\nprintln!("{{}}", smol_r.join(" "));',
    },
    indent="    ",
)

LUA = HarnessSpec(
    template="""@@SOURCE@@

local function smol_line()
  return io.read("l") or ""
end

local function smol_int()
  return math.tointeger(tonumber(smol_line()))
end

-- Lua has one number type with two subtypes; an integral float counts as that integer.
local function smol_int_text(v)
  if math.type(v) == "float" and v == math.floor(v) then
    return string.format("%d", v)
  end
  return tostring(v)
end

local function smol_main()
@@READ_ARGS@@
@@CALL_AND_PRINT@@
end

smol_main()
""",
    read={
        "int": "local {var} = smol_int()",
        "bool": 'local {var} = smol_line() == "true"',
        "str": "local {var} = smol_line()",
        "list[int]": "local {var} = {{}}\nfor i = 1, smol_int() do {var}[i] = smol_int() end",
        "list[str]": "local {var} = {{}}\nfor i = 1, smol_int() do {var}[i] = smol_line() end",
    },
    arg={t: "{var}" for t in ("int", "bool", "str", "list[int]", "list[str]")},
    call="{entry}({args})",
    call_and_print={
        "int": 'io.write(smol_int_text({call}), "\\n")',
        "bool": 'io.write(tostring({call}), "\\n")',
        "str": 'io.write({call}, "\\n")',
        "list[int]": 'local smol_r = {call}\nlocal smol_parts = {{}}\nfor i, v in ipairs(smol_r) do smol_parts[i] = smol_int_text(v) end\nio.write(table.concat(smol_parts, " "), "\\n")',
    },
    indent="  ",
)
