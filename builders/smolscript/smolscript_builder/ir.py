"""The operation IR: a tiny imperative language that every reference solution is written in.

The grammar (``grammar.py``) builds a task's body as IR; the generic emitter (``emit.py``)
spells it in each program language through that language's syntax table (``syntax.py``).
Values: ``int`` (32-bit), ``bool``, ``str`` (a string or string builder), ``word`` (one item of a
``list[str]``), ``list[int]`` and ``list[str]``. Division and modulo are only ever applied to a
non-negative left operand and a positive constant, where every target language agrees.
"""

from __future__ import annotations

from dataclasses import dataclass

BIN_OPS = ("add", "sub", "mul", "div", "mod", "eq", "ne", "lt", "le", "gt", "ge", "and", "or")
UN_OPS = ("neg", "not", "abs")
CALL2_OPS = ("min", "max")


@dataclass(frozen=True)
class Lit:
    """An int or bool literal."""

    value: int | bool


@dataclass(frozen=True)
class Var:
    """A variable reference (the emitter spells it as is)."""

    name: str


@dataclass(frozen=True)
class Bin:
    """A binary operation, ``op`` in BIN_OPS."""

    op: str
    a: Expr
    b: Expr


@dataclass(frozen=True)
class Un:
    """A unary operation, ``op`` in UN_OPS."""

    op: str
    a: Expr


@dataclass(frozen=True)
class Call2:
    """min/max of two ints."""

    op: str
    a: Expr
    b: Expr


@dataclass(frozen=True)
class Cond:
    """``a`` if ``c`` else ``b`` (ints)."""

    c: Expr
    a: Expr
    b: Expr


@dataclass(frozen=True)
class Len:
    """Length of the variable ``name`` of type ``typ`` (str, word, list[int], list[str])."""

    name: str
    typ: str


@dataclass(frozen=True)
class CodeAt:
    """ASCII code of character ``index`` of string/word variable ``name``."""

    name: str
    index: Expr


@dataclass(frozen=True)
class ItemAt:
    """Item ``index`` of list variable ``name`` of type ``typ``."""

    name: str
    index: Expr
    typ: str


@dataclass(frozen=True)
class StrEq:
    """Equality of two word variables."""

    a: str
    b: str


Expr = Lit | Var | Bin | Un | Call2 | Cond | Len | CodeAt | ItemAt | StrEq


@dataclass(frozen=True)
class Decl:
    """Declare ``name`` of ``typ``: int/bool/word with ``init``; str/list types start empty."""

    name: str
    typ: str
    init: Expr | None = None


@dataclass(frozen=True)
class Set:
    """Assign an int/bool variable."""

    name: str
    value: Expr


@dataclass(frozen=True)
class Push:
    """Append to a builder: ``typ`` is list[int] (int), list[str] (word var), str (char code)
    or ``strcat`` (append the text of a word variable to a str builder)."""

    name: str
    typ: str
    value: Expr


@dataclass(frozen=True)
class ForEach:
    """Loop ``var`` over ``seq`` of ``typ``: list[int] items, str char codes, list[str] words."""

    var: str
    seq: str
    typ: str
    body: tuple[Stmt, ...]


@dataclass(frozen=True)
class ForRange:
    """Loop int ``var`` from ``lo`` up to ``hi`` exclusive."""

    var: str
    lo: Expr
    hi: Expr
    body: tuple[Stmt, ...]


@dataclass(frozen=True)
class While:
    """Loop while ``cond`` holds."""

    cond: Expr
    body: tuple[Stmt, ...]


@dataclass(frozen=True)
class If:
    """Conditional with an optional else branch."""

    cond: Expr
    body: tuple[Stmt, ...]
    orelse: tuple[Stmt, ...] = ()


@dataclass(frozen=True)
class Return:
    """Return ``value`` of return type ``typ``; str/list results are always builder variables."""

    value: Expr
    typ: str


Stmt = Decl | Set | Push | ForEach | ForRange | While | If | Return


def lit(value: int | bool) -> Lit:
    """Shorthand for a literal."""
    return Lit(value)


def v(name: str) -> Var:
    """Shorthand for a variable."""
    return Var(name)


def b(op: str, a: Expr | int, c: Expr | int) -> Bin:
    """Shorthand for a binary operation; plain ints become literals."""
    return Bin(op, Lit(a) if isinstance(a, int) else a, Lit(c) if isinstance(c, int) else c)
