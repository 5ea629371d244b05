"""The generic emitter: walks the operation IR and spells it through a language's syntax table.

One walker serves all seven program languages; it only asks ``syntax.SYNTAX[language]`` for
templates. A construct a template cannot express is a per-language override registered with
:func:`register_override` under a syntax key (for instance how a condition is bracketed).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from smolscript.languages import get_language

from smolscript_builder import ir
from smolscript_builder.syntax import SYNTAX, Block, Syntax

Override = Callable[["Emitter", Any], str]
_OVERRIDES: dict[tuple[str, str], Override] = {}


def register_override(language: str, key: str) -> Callable[[Override], Override]:
    """Register ``fn(emitter, node) -> text`` to replace the template ``key`` for ``language``."""

    def wrap(fn: Override) -> Override:
        _OVERRIDES[(language, key)] = fn
        return fn

    return wrap


def _strip_parens(text: str) -> str:
    """Drop one pair of outer parentheses when they enclose the whole text."""
    if not (text.startswith("(") and text.endswith(")")):
        return text
    depth = 0
    for index, ch in enumerate(text):
        depth += ch == "("
        depth -= ch == ")"
        if depth == 0 and index < len(text) - 1:
            return text
    return text[1:-1]


def _bare_condition(emitter: Emitter, node: ir.Expr) -> str:
    return _strip_parens(emitter.expr(node))


for _language in ("python", "rust", "lua"):
    # These languages need no brackets around an if/while condition (Rust warns about them).
    register_override(_language, "condition")(_bare_condition)


class Emitter:
    """Spells IR nodes for one language."""

    def __init__(self, language: str) -> None:
        if language not in SYNTAX:
            raise KeyError(f"no syntax for {language!r}; valid: {sorted(SYNTAX)}")
        self.language = language
        self.syntax: Syntax = SYNTAX[language]

    def _tmpl(self, key: str) -> str:
        return self.syntax.expr[key]

    def condition(self, node: ir.Expr) -> str:
        """A condition as written after ``if``/``while``."""
        override = _OVERRIDES.get((self.language, "condition"))
        return override(self, node) if override else self.expr(node)

    def expr(self, node: ir.Expr) -> str:
        """Spell an expression; raises TypeError for an unknown node."""
        e = self.expr
        match node:
            case ir.Lit(value=bool() as value):
                return self._tmpl("true" if value else "false")
            case ir.Lit(value=int() as value):
                text = self._tmpl("int").format(v=abs(value))
                return f"(-{text})" if value < 0 else text
            case ir.Var(name=name):
                return name
            case ir.Bin(op=op, a=a, b=b):
                return self._tmpl(op).format(a=e(a), b=e(b))
            case ir.Un(op=op, a=a):
                return self._tmpl(op).format(a=e(a))
            case ir.Call2(op=op, a=a, b=b):
                return self._tmpl(op).format(a=e(a), b=e(b))
            case ir.Cond(c=c, a=a, b=b):
                return self._tmpl("cond").format(c=e(c), a=e(a), b=e(b))
            case ir.Len(name=name, typ=typ):
                return self._tmpl(f"len:{typ}").format(n=name)
            case ir.CodeAt(name=name, index=index):
                return self._tmpl("code_at").format(n=name, i=e(index))
            case ir.ItemAt(name=name, index=index, typ=typ):
                return self._tmpl(f"item_at:{typ}").format(n=name, i=e(index))
            case ir.StrEq(a=a, b=b):
                return self._tmpl("str_eq").format(a=a, b=b)
        raise TypeError(f"not an IR expression: {node!r}")

    def _block(self, key: str, depth: int, body: Sequence[ir.Stmt], **fields: str) -> list[str]:
        block: Block = self.syntax.stmt[key]
        pad, inner = self.syntax.indent * depth, self.syntax.indent * (depth + 1)
        lines = [pad + line for line in block.header.format(**fields).split("\n")]
        lines += [inner + line.format(**fields) for line in block.prologue]
        lines += self.stmts(body, depth + 1)
        if block.footer:
            lines.append(pad + block.footer)
        return lines

    def _simple(self, key: str, depth: int, **fields: str) -> list[str]:
        pad = self.syntax.indent * depth
        return [pad + line for line in self.syntax.stmt[key].header.format(**fields).split("\n")]

    def stmt(self, node: ir.Stmt, depth: int) -> list[str]:
        """Spell one statement as lines indented for ``depth``; raises TypeError if unknown."""
        match node:
            case ir.Decl(name=name, typ=typ, init=init):
                init_text = _strip_parens(self.expr(init)) if init is not None else ""
                return self._simple(f"decl:{typ}", depth, n=name, e=init_text)
            case ir.Set(name=name, value=value):
                return self._simple("set", depth, n=name, e=_strip_parens(self.expr(value)))
            case ir.Push(name=name, typ=typ, value=value):
                return self._simple(f"push:{typ}", depth, n=name, e=self.expr(value))
            case ir.ForEach(var=var, seq=seq, typ=typ, body=body):
                return self._block(f"foreach:{typ}", depth, body, v=var, s=seq)
            case ir.ForRange(var=var, lo=lo, hi=hi, body=body):
                return self._block(
                    "for_range", depth, body, v=var, lo=self.expr(lo), hi=self.expr(hi)
                )
            case ir.While(cond=cond, body=body):
                return self._block("while", depth, body, c=self.condition(cond))
            case ir.If(cond=cond, body=body, orelse=orelse):
                lines = self._block("if", depth, body, c=self.condition(cond))
                if orelse:
                    footer = self.syntax.stmt["if"].footer
                    if footer:
                        lines.pop()
                    lines += self._simple("else", depth)
                    lines += self.stmts(orelse, depth + 1)
                    if footer:
                        lines.append(self.syntax.indent * depth + footer)
                return lines
            case ir.Return(value=value, typ=typ):
                return self._simple(f"return:{typ}", depth, e=_strip_parens(self.expr(value)))
        raise TypeError(f"not an IR statement: {node!r}")

    def stmts(self, nodes: Sequence[ir.Stmt], depth: int) -> list[str]:
        """Spell a statement sequence."""
        lines: list[str] = []
        for node in nodes:
            lines += self.stmt(node, depth)
        return lines


def emit_body(language: str, body: Sequence[ir.Stmt]) -> str:
    """The entry point's body lines (indented for the function, newline-terminated)."""
    spec = get_language(language)
    lines = Emitter(language).stmts(body, 0)
    return "".join(spec.body_indent() + line + "\n" for line in lines)


def emit_source(language: str, body: Sequence[ir.Stmt], signature: Mapping[str, Any]) -> str:
    """Complete source: imports, entry header, body, closing (pure).

    The result always starts with ``imports + entry_header(signature)``, so a completion prompt
    that ends with that prefix can be compared with the reference body.
    """
    spec = get_language(language)
    return spec.imports + spec.entry_header(signature) + emit_body(language, body) + spec.closing()
