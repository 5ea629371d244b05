"""Drivers: the per-language test harness programs that feed a candidate's entry point from stdin.

(Named "drivers" so that "harness" is left to the verifiers harness the package exports; the
code below still calls each driver's template and spec a harness.)

A job's source file is the candidate's complete source with the language's harness appended.
Each harness template is an ordinary source file in its language (``drivers/python.py``,
``c.c``, ``cpp.cpp``, ``csharp.cs``, ``rust.rs``, ``lua.lua``, ``javascript.js``, read as
package data) with three named slots, each a comment line of its own: ``@@SOURCE@@``,
``@@READ_ARGS@@`` and ``@@CALL_AND_PRINT@@`` (for example ``    // @@READ_ARGS@@``). A slot line
is replaced whole; its indentation is the indentation of what fills it. The per-type snippets
below fill the slots: every template first reads the job's result nonce (the first stdin
line, ``smolscript.frames``), arguments are read in the line format of
``smolscript.types.encode_stdin``, and once the entry point has returned the result is written
as ``canonical_output`` spells it, framed with the nonce (``smol_emit`` / ``smolEmit`` /
``SmolEmit``; C's ``smol_begin`` and ``smol_end``), so that nothing the candidate prints stands
in for it. Harness identifiers carry a
``smol`` prefix so that they do not collide with candidate code. The templates of the
dynamically typed languages also check the result's declared type before printing it
(``HarnessSpec.checks_types``), and every template checks that a ``str`` result is printable
ASCII (and, in C and C#, not NULL/null) before printing it; the policy and the mismatch report
are in ``types.py``.
"""

# Harness snippets keep one target-language statement per line, so some lines are long.
# ruff: noqa: E501
from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

from smolscript.types import validate_signature

# A slot line: indentation, a line-comment opener (#, //, --), the slot name.
_SLOT_LINE = re.compile(r"(?P<indent>[ \t]*)(?:#|//|--) (?P<slot>@@[A-Z_]+@@)")


@cache
def template(name: str) -> str:
    """The text of harness template ``drivers/<name>`` (package data).

    Raises FileNotFoundError for an unknown file name.
    """
    return resources.files(__package__).joinpath("drivers", name).read_text(encoding="utf-8")


@dataclass(frozen=True)
class HarnessSpec:
    """One language's harness: template file, per-type argument readers and result printers.

    ``template_file`` names the template under ``drivers/``. ``read`` maps a value type to a
    statement template with ``{var}`` (the argument variable).
    ``arg`` maps a value type to how that variable is passed (``{var}``; C adds a length).
    ``call_and_print`` maps a return type to statements with ``{call}`` (entry-point call
    without the trailing result out-parameter) and ``{extra}`` (C's ``&smol_r_len`` slot).
    ``call`` is the call expression with ``{entry}`` and ``{args}``; ``{returns}`` in
    ``call_and_print`` is the return type's name (``types.RETURN_TYPES``). Its statements
    evaluate the call before writing anything and write the result only through the
    template's frame writer (``frames.py``), with the nonce variable the template's main
    function read first (``smol_nonce``; JavaScript and C# ``smolNonce``).
    ``checks_types``: the language is dynamically typed, so its template checks the result's
    type at run time (``smol_checked(value, type)`` or its spelling in the language, driven by
    the type name): a mismatch is reported on stderr as ``types.parse_type_mismatch`` reads
    it and the run exits with ``types.TYPE_MISMATCH_EXIT``. Statically typed languages leave
    it False: their compilers reject a wrong result type. Every template, whatever this flag,
    checks a ``str`` result's characters (printable ASCII: ``smol_checked_str`` in C, C++ and
    Rust, ``SmolCheckedStr`` in C#, part of the type check in the others).
    """

    template_file: str
    read: Mapping[str, str]
    arg: Mapping[str, str]
    call: str
    call_and_print: Mapping[str, str]
    checks_types: bool = False

    @property
    def template(self) -> str:
        """The template's text."""
        return template(self.template_file)


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
    fills = {
        "@@SOURCE@@": source.rstrip("\n"),
        "@@READ_ARGS@@": "\n".join(reads),
        "@@CALL_AND_PRINT@@": harness.call_and_print[returns].format(call=call, returns=returns),
    }
    lines = []
    for line in harness.template.split("\n"):
        slot = _SLOT_LINE.fullmatch(line)
        if slot is None:
            lines.append(line)
        elif slot["slot"] == "@@SOURCE@@":  # the candidate's text, exactly as given
            lines.append(fills["@@SOURCE@@"])
        else:
            lines.append(_block(slot["indent"], fills[slot["slot"]]))
    return "\n".join(lines)


PYTHON = HarnessSpec(
    template_file="python.py",
    read={
        "int": "{var} = smol_b.int(smol_line())",
        "bool": '{var} = smol_line() == "true"',
        "str": "{var} = smol_line()",
        "list[int]": "{var} = [smol_b.int(smol_line()) for _ in smol_b.range(smol_b.int(smol_line()))]",
        "list[str]": "{var} = [smol_line() for _ in smol_b.range(smol_b.int(smol_line()))]",
    },
    arg={t: "{var}" for t in ("int", "bool", "str", "list[int]", "list[str]")},
    call="{entry}({args})",
    call_and_print={
        "int": 'smol_emit(smol_int_text(smol_checked({call}, "{returns}")))',
        "bool": 'smol_emit("true" if smol_checked({call}, "{returns}") else "false")',
        "str": 'smol_emit(smol_checked({call}, "{returns}"))',
        "list[int]": 'smol_emit(" ".join(smol_int_text(smol_x) for smol_x in smol_checked({call}, "{returns}")))',
    },
    checks_types=True,
)

JAVASCRIPT = HarnessSpec(
    template_file="javascript.js",
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
        "int": 'smolEmit(smolNonce, String(smolChecked({call}, "{returns}")));',
        "bool": 'smolEmit(smolNonce, smolChecked({call}, "{returns}") ? "true" : "false");',
        "str": 'smolEmit(smolNonce, smolChecked({call}, "{returns}"));',
        "list[int]": 'smolEmit(smolNonce, smolJoin(smolChecked({call}, "{returns}")));',
    },
    checks_types=True,
)

C = HarnessSpec(
    template_file="c.c",
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
        "int": 'int smol_r = {call});\nsmol_begin(smol_nonce);\nprintf("%d", smol_r);\nsmol_end(smol_nonce);',
        "bool": 'bool smol_r = {call});\nsmol_begin(smol_nonce);\nprintf("%s", smol_r ? "true" : "false");\nsmol_end(smol_nonce);',
        "str": 'const char *smol_r = smol_checked_str({call}));\nsmol_begin(smol_nonce);\nprintf("%s", smol_r);\nsmol_end(smol_nonce);',
        "list[int]": "int smol_r_len = 0;\nint *smol_r = {call}, &smol_r_len);\nsmol_begin(smol_nonce);\nsmol_print_ints(smol_r, smol_r_len);\nsmol_end(smol_nonce);",
    },
)

CPP = HarnessSpec(
    template_file="cpp.cpp",
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
        "int": "smol_emit(smol_nonce, std::to_string({call}));",
        "bool": 'smol_emit(smol_nonce, {call} ? "true" : "false");',
        "str": "smol_emit(smol_nonce, smol_checked_str({call}));",
        "list[int]": "smol_emit(smol_nonce, smol_join({call}));",
    },
)

CSHARP = HarnessSpec(
    template_file="csharp.cs",
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
        "int": "SmolEmit(smolNonce, {call}.ToString(System.Globalization.CultureInfo.InvariantCulture));",
        "bool": 'SmolEmit(smolNonce, {call} ? "true" : "false");',
        "str": "SmolEmit(smolNonce, SmolCheckedStr({call}));",
        "list[int]": 'SmolEmit(smolNonce, string.Join(" ", {call}));',
    },
)

RUST = HarnessSpec(
    template_file="rust.rs",
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
        "int": "smol_emit(&smol_nonce, &{call}.to_string());",
        "bool": "smol_emit(&smol_nonce, &{call}.to_string());",
        "str": "smol_emit(&smol_nonce, &smol_checked_str({call}));",
        "list[int]": 'let smol_r: Vec<String> = {call}.iter().map(|x| x.to_string()).collect();\nsmol_emit(&smol_nonce, &smol_r.join(" "));',
    },
)

LUA = HarnessSpec(
    template_file="lua.lua",
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
        "int": 'smol_emit(smol_nonce, smol_int_text(smol_checked({call}, "{returns}")))',
        "bool": 'smol_emit(smol_nonce, tostring(smol_checked({call}, "{returns}")))',
        "str": 'smol_emit(smol_nonce, smol_checked({call}, "{returns}"))',
        "list[int]": 'local smol_r = smol_checked({call}, "{returns}")\nlocal smol_parts = {{}}\nfor i = 1, #smol_r do smol_parts[i] = smol_int_text(smol_r[i]) end\nsmol_emit(smol_nonce, table.concat(smol_parts, " "))',
    },
    checks_types=True,
)
