"""Per-language spelling of the operation IR (``ir.py``), read by the generic emitter.

Each program language has one :class:`Syntax`: ``expr`` maps an IR expression key to a format
template, ``stmt`` maps a statement key to a :class:`Block` (header line, body prologue lines,
footer line). Keys are the names listed in :data:`EXPR_KEYS` and :data:`STMT_KEYS`; the
completeness test checks every language has all of them. Constructs that really differ (C's
list return through ``out_len``) are plain template entries; anything a template cannot say is
a per-language override registered in ``emit.py``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

EXPR_KEYS: tuple[str, ...] = (
    "int",
    "true",
    "false",
    "add",
    "sub",
    "mul",
    "div",
    "mod",
    "eq",
    "ne",
    "lt",
    "le",
    "gt",
    "ge",
    "and",
    "or",
    "neg",
    "not",
    "abs",
    "min",
    "max",
    "cond",
    "len:str",
    "len:word",
    "len:list[int]",
    "len:list[str]",
    "code_at",
    "item_at:list[int]",
    "item_at:list[str]",
    "str_eq",
)
STMT_KEYS: tuple[str, ...] = (
    "decl:int",
    "decl:bool",
    "decl:word",
    "decl:str",
    "decl:list[int]",
    "decl:list[str]",
    "set",
    "push:list[int]",
    "push:list[str]",
    "push:str",
    "push:strcat",
    "foreach:list[int]",
    "foreach:str",
    "foreach:list[str]",
    "for_range",
    "while",
    "if",
    "else",
    "return:int",
    "return:bool",
    "return:str",
    "return:list[int]",
)


@dataclass(frozen=True)
class Block:
    """A statement template: ``header`` (may span lines), body ``prologue`` lines, ``footer``."""

    header: str
    prologue: tuple[str, ...] = ()
    footer: str = ""


@dataclass(frozen=True)
class Syntax:
    """How one language spells the IR."""

    expr: Mapping[str, str]
    stmt: Mapping[str, Block]
    indent: str
    strip_condition_parens: bool = False


def _ops(and_: str, or_: str, not_: str, ne: str = "!=", eq: str = "==") -> dict[str, str]:
    return {
        "add": "({a} + {b})",
        "sub": "({a} - {b})",
        "mul": "({a} * {b})",
        "div": "({a} / {b})",
        "mod": "({a} % {b})",
        "eq": f"({{a}} {eq} {{b}})",
        "ne": f"({{a}} {ne} {{b}})",
        "lt": "({a} < {b})",
        "le": "({a} <= {b})",
        "gt": "({a} > {b})",
        "ge": "({a} >= {b})",
        "and": f"({{a}} {and_} {{b}})",
        "or": f"({{a}} {or_} {{b}})",
        "neg": "(-{a})",
        "not": not_,
        "int": "{v}",
        "true": "true",
        "false": "false",
    }


_C_EXPR = {**_ops("&&", "||", "(!{a})"), "cond": "({c} ? {a} : {b})"}
_C_STMT = {
    "set": Block("{n} = {e};"),
    "decl:int": Block("int {n} = {e};"),
    "decl:bool": Block("bool {n} = {e};"),
    "for_range": Block("for (int {v} = {lo}; {v} < {hi}; {v}++) {{", footer="}"),
    "while": Block("while ({c}) {{", footer="}"),
    "if": Block("if ({c}) {{", footer="}"),
    "else": Block("}} else {{"),
    "return:int": Block("return {e};"),
    "return:bool": Block("return {e};"),
    "return:str": Block("return {e};"),
    "return:list[int]": Block("return {e};"),
}

PYTHON = Syntax(
    indent="    ",
    expr={
        **_ops("and", "or", "(not {a})"),
        "div": "({a} // {b})",
        "true": "True",
        "false": "False",
        "abs": "abs({a})",
        "min": "min({a}, {b})",
        "max": "max({a}, {b})",
        "cond": "({a} if {c} else {b})",
        "len:str": "len({n})",
        "len:word": "len({n})",
        "len:list[int]": "len({n})",
        "len:list[str]": "len({n})",
        "code_at": "ord({n}[{i}])",
        "item_at:list[int]": "{n}[{i}]",
        "item_at:list[str]": "{n}[{i}]",
        "str_eq": "({a} == {b})",
    },
    stmt={
        "decl:int": Block("{n} = {e}"),
        "decl:bool": Block("{n} = {e}"),
        "decl:word": Block("{n} = {e}"),
        "decl:str": Block('{n} = ""'),
        "decl:list[int]": Block("{n} = []"),
        "decl:list[str]": Block("{n} = []"),
        "set": Block("{n} = {e}"),
        "push:list[int]": Block("{n}.append({e})"),
        "push:list[str]": Block("{n}.append({e})"),
        "push:str": Block("{n} += chr({e})"),
        "push:strcat": Block("{n} += {e}"),
        "foreach:list[int]": Block("for {v} in {s}:"),
        "foreach:str": Block("for {v}_ch in {s}:", ("{v} = ord({v}_ch)",)),
        "foreach:list[str]": Block("for {v} in {s}:"),
        "for_range": Block("for {v} in range({lo}, {hi}):"),
        "while": Block("while {c}:"),
        "if": Block("if {c}:"),
        "else": Block("else:"),
        **{f"return:{t}": Block("return {e}") for t in ("int", "bool", "str", "list[int]")},
    },
    strip_condition_parens=True,
)

JAVASCRIPT = Syntax(
    indent="  ",
    expr={
        **_C_EXPR,
        "eq": "({a} === {b})",
        "ne": "({a} !== {b})",
        "div": "Math.trunc({a} / {b})",
        "abs": "Math.abs({a})",
        "min": "Math.min({a}, {b})",
        "max": "Math.max({a}, {b})",
        "len:str": "{n}.length",
        "len:word": "{n}.length",
        "len:list[int]": "{n}.length",
        "len:list[str]": "{n}.length",
        "code_at": "{n}.charCodeAt({i})",
        "item_at:list[int]": "{n}[{i}]",
        "item_at:list[str]": "{n}[{i}]",
        "str_eq": "({a} === {b})",
    },
    stmt={
        **_C_STMT,
        "decl:int": Block("let {n} = {e};"),
        "decl:bool": Block("let {n} = {e};"),
        "decl:word": Block("const {n} = {e};"),
        "decl:str": Block('let {n} = "";'),
        "decl:list[int]": Block("const {n} = [];"),
        "decl:list[str]": Block("const {n} = [];"),
        "push:list[int]": Block("{n}.push({e});"),
        "push:list[str]": Block("{n}.push({e});"),
        "push:str": Block("{n} += String.fromCharCode({e});"),
        "push:strcat": Block("{n} += {e};"),
        "foreach:list[int]": Block("for (const {v} of {s}) {{", footer="}"),
        "foreach:str": Block(
            "for (let {v}_i = 0; {v}_i < {s}.length; {v}_i++) {{",
            ("const {v} = {s}.charCodeAt({v}_i);",),
            "}",
        ),
        "foreach:list[str]": Block("for (const {v} of {s}) {{", footer="}"),
        "for_range": Block("for (let {v} = {lo}; {v} < {hi}; {v}++) {{", footer="}"),
    },
)

C = Syntax(
    indent="    ",
    expr={
        **_C_EXPR,
        "abs": "abs({a})",
        "min": "({a} < {b} ? {a} : {b})",
        "max": "({a} > {b} ? {a} : {b})",
        "len:str": "(int)strlen({n})",
        "len:word": "(int)strlen({n})",
        "len:list[int]": "{n}_len",
        "len:list[str]": "{n}_len",
        "code_at": "(int)(unsigned char){n}[{i}]",
        "item_at:list[int]": "{n}[{i}]",
        "item_at:list[str]": "{n}[{i}]",
        "str_eq": "(strcmp({a}, {b}) == 0)",
    },
    stmt={
        **_C_STMT,
        "decl:word": Block("char *{n} = {e};"),
        "decl:str": Block("char *{n} = calloc(1024, 1);\nint {n}_n = 0;"),
        "decl:list[int]": Block("int *{n} = malloc(sizeof(int) * 256);\nint {n}_len = 0;"),
        "decl:list[str]": Block("char **{n} = malloc(sizeof(char *) * 256);\nint {n}_len = 0;"),
        "push:list[int]": Block("{n}[{n}_len++] = {e};"),
        "push:list[str]": Block("{n}[{n}_len++] = {e};"),
        "push:str": Block("{n}[{n}_n++] = (char){e};"),
        "push:strcat": Block("strcpy({n} + {n}_n, {e});\n{n}_n += (int)strlen({e});"),
        "foreach:list[int]": Block(
            "for (int {v}_i = 0; {v}_i < {s}_len; {v}_i++) {{", ("int {v} = {s}[{v}_i];",), "}"
        ),
        "foreach:str": Block(
            "for (int {v}_i = 0; {s}[{v}_i] != '\\0'; {v}_i++) {{",
            ("int {v} = (unsigned char){s}[{v}_i];",),
            "}",
        ),
        "foreach:list[str]": Block(
            "for (int {v}_i = 0; {v}_i < {s}_len; {v}_i++) {{", ("char *{v} = {s}[{v}_i];",), "}"
        ),
        "return:list[int]": Block("*out_len = {e}_len;\nreturn {e};"),
    },
)

CPP = Syntax(
    indent="    ",
    expr={
        **_C_EXPR,
        "abs": "std::abs({a})",
        "min": "std::min({a}, {b})",
        "max": "std::max({a}, {b})",
        "len:str": "(int){n}.size()",
        "len:word": "(int){n}.size()",
        "len:list[int]": "(int){n}.size()",
        "len:list[str]": "(int){n}.size()",
        "code_at": "(int)(unsigned char){n}[{i}]",
        "item_at:list[int]": "{n}[{i}]",
        "item_at:list[str]": "{n}[{i}]",
        "str_eq": "({a} == {b})",
    },
    stmt={
        **_C_STMT,
        "decl:word": Block("std::string {n} = {e};"),
        "decl:str": Block("std::string {n};"),
        "decl:list[int]": Block("std::vector<int> {n};"),
        "decl:list[str]": Block("std::vector<std::string> {n};"),
        "push:list[int]": Block("{n}.push_back({e});"),
        "push:list[str]": Block("{n}.push_back({e});"),
        "push:str": Block("{n} += (char){e};"),
        "push:strcat": Block("{n} += {e};"),
        "foreach:list[int]": Block("for (int {v} : {s}) {{", footer="}"),
        "foreach:str": Block(
            "for (char {v}_ch : {s}) {{", ("int {v} = (unsigned char){v}_ch;",), "}"
        ),
        "foreach:list[str]": Block("for (const std::string& {v} : {s}) {{", footer="}"),
    },
)

CSHARP = Syntax(
    indent="    ",
    expr={
        **_C_EXPR,
        "abs": "Math.Abs({a})",
        "min": "Math.Min({a}, {b})",
        "max": "Math.Max({a}, {b})",
        "len:str": "{n}.Length",
        "len:word": "{n}.Length",
        "len:list[int]": "{n}.Count",
        "len:list[str]": "{n}.Count",
        "code_at": "(int){n}[{i}]",
        "item_at:list[int]": "{n}[{i}]",
        "item_at:list[str]": "{n}[{i}]",
        "str_eq": "({a} == {b})",
    },
    stmt={
        **_C_STMT,
        "decl:word": Block("string {n} = {e};"),
        "decl:str": Block('string {n} = "";'),
        "decl:list[int]": Block("var {n} = new List<int>();"),
        "decl:list[str]": Block("var {n} = new List<string>();"),
        "push:list[int]": Block("{n}.Add({e});"),
        "push:list[str]": Block("{n}.Add({e});"),
        "push:str": Block("{n} += (char){e};"),
        "push:strcat": Block("{n} += {e};"),
        "foreach:list[int]": Block("foreach (int {v} in {s}) {{", footer="}"),
        "foreach:str": Block("foreach (char {v}_ch in {s}) {{", ("int {v} = {v}_ch;",), "}"),
        "foreach:list[str]": Block("foreach (string {v} in {s}) {{", footer="}"),
    },
)

RUST = Syntax(
    indent="    ",
    expr={
        **_C_EXPR,
        "cond": "(if {c} {{ {a} }} else {{ {b} }})",
        "abs": "({a}).abs()",
        "min": "std::cmp::min({a}, {b})",
        "max": "std::cmp::max({a}, {b})",
        "len:str": "({n}.len() as i32)",
        "len:word": "({n}.len() as i32)",
        "len:list[int]": "({n}.len() as i32)",
        "len:list[str]": "({n}.len() as i32)",
        "code_at": "({n}.as_bytes()[({i}) as usize] as i32)",
        "item_at:list[int]": "{n}[({i}) as usize]",
        "item_at:list[str]": "{n}[({i}) as usize]",
        "str_eq": "({a} == {b})",
    },
    stmt={
        **_C_STMT,
        "decl:int": Block("let mut {n}: i32 = {e};"),
        "decl:bool": Block("let mut {n}: bool = {e};"),
        "decl:word": Block("let {n} = &{e};"),
        "decl:str": Block("let mut {n} = String::new();"),
        "decl:list[int]": Block("let mut {n}: Vec<i32> = Vec::new();"),
        "decl:list[str]": Block("let mut {n}: Vec<String> = Vec::new();"),
        "push:list[int]": Block("{n}.push({e});"),
        "push:list[str]": Block("{n}.push({e}.clone());"),
        "push:str": Block("{n}.push(({e}) as u8 as char);"),
        "push:strcat": Block("{n}.push_str({e});"),
        "foreach:list[int]": Block("for &{v} in {s}.iter() {{", footer="}"),
        "foreach:str": Block("for {v}_b in {s}.bytes() {{", ("let {v} = {v}_b as i32;",), "}"),
        "foreach:list[str]": Block("for {v} in {s}.iter() {{", footer="}"),
        "for_range": Block("for {v} in {lo}..{hi} {{", footer="}"),
        "while": Block("while {c} {{", footer="}"),
        "if": Block("if {c} {{", footer="}"),
    },
    strip_condition_parens=True,
)

LUA = Syntax(
    indent="  ",
    expr={
        **_ops("and", "or", "(not {a})", ne="~="),
        "div": "({a} // {b})",
        "abs": "math.abs({a})",
        "min": "math.min({a}, {b})",
        "max": "math.max({a}, {b})",
        "cond": "({c} and {a} or {b})",
        "len:str": "#{n}",
        "len:word": "#{n}",
        "len:list[int]": "#{n}",
        "len:list[str]": "#{n}",
        "code_at": "string.byte({n}, {i} + 1)",
        "item_at:list[int]": "{n}[{i} + 1]",
        "item_at:list[str]": "{n}[{i} + 1]",
        "str_eq": "({a} == {b})",
    },
    stmt={
        "decl:int": Block("local {n} = {e}"),
        "decl:bool": Block("local {n} = {e}"),
        "decl:word": Block("local {n} = {e}"),
        "decl:str": Block('local {n} = ""'),
        "decl:list[int]": Block("local {n} = {{}}"),
        "decl:list[str]": Block("local {n} = {{}}"),
        "set": Block("{n} = {e}"),
        "push:list[int]": Block("{n}[#{n} + 1] = {e}"),
        "push:list[str]": Block("{n}[#{n} + 1] = {e}"),
        "push:str": Block("{n} = {n} .. string.char({e})"),
        "push:strcat": Block("{n} = {n} .. {e}"),
        "foreach:list[int]": Block("for _, {v} in ipairs({s}) do", footer="end"),
        "foreach:str": Block(
            "for {v}_i = 1, #{s} do", ("local {v} = string.byte({s}, {v}_i)",), "end"
        ),
        "foreach:list[str]": Block("for _, {v} in ipairs({s}) do", footer="end"),
        "for_range": Block("for {v} = {lo}, {hi} - 1 do", footer="end"),
        "while": Block("while {c} do", footer="end"),
        "if": Block("if {c} then", footer="end"),
        "else": Block("else"),
        **{f"return:{t}": Block("return {e}") for t in ("int", "bool", "str", "list[int]")},
    },
    strip_condition_parens=True,
)

SYNTAX: dict[str, Syntax] = {
    "python": PYTHON,
    "javascript": JAVASCRIPT,
    "c": C,
    "cpp": CPP,
    "csharp": CSHARP,
    "rust": RUST,
    "lua": LUA,
}
