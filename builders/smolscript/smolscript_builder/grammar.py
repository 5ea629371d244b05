"""The operation grammar: typed pipeline stages with phrase, Python oracle and IR emission.

A programming task is a pipeline of 1-4 stages applied to one input (``n``, ``s``, ``xs`` or
``words``). Each stage is an operation of :data:`OPS` with an optional argument (a predicate,
a mapping or a constant). Every operation has three faces that are written independently: the
English phrase of the task comment, a Python oracle on values, and IR statements from which the
seven reference solutions are emitted. Tests check that the Python emission of the IR agrees
with the oracle on every hidden input.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from smolscript_builder import ir
from smolscript_builder.ir import b, lit, v

# ---------------------------------------------------------------- predicates and mappings

VOWELS = "aeiouAEIOU"


@dataclass(frozen=True)
class Pred:
    """A predicate on an int (or char code, or word); ``phrase`` completes 'that are ...'."""

    phrase: str
    fn: Callable[[Any], bool]
    ir: Callable[[ir.Expr | str], ir.Expr]
    near: str | None = None  # key of a plausible near-miss predicate


@dataclass(frozen=True)
class IMap:
    """An int -> int mapping with phrases for 'it' and for 'each number'."""

    it: str
    each: str
    fn: Callable[[int], int]
    ir: Callable[[ir.Expr], ir.Expr]


def _any_eq(x: ir.Expr, codes: str) -> ir.Expr:
    out: ir.Expr = b("eq", x, ord(codes[0]))
    for ch in codes[1:]:
        out = b("or", out, b("eq", x, ord(ch)))
    return out


def _between(x: ir.Expr, lo: int, hi: int) -> ir.Expr:
    return b("and", b("ge", x, lo), b("le", x, hi))


@functools.cache  # pure in its key; the interpreters ask per element
def int_pred(key: str) -> Pred:
    """Integer predicates: even, odd, pos, neg, nonzero, gt:K, ge:K, lt:K, le:K, div:K."""
    name, _, arg = key.partition(":")
    k = int(arg) if arg else 0
    table: dict[str, Pred] = {
        "even": Pred(
            "even", lambda x: x % 2 == 0, lambda x: b("eq", b("mod", ir.Un("abs", x), 2), 0)
        ),
        "odd": Pred(
            "odd", lambda x: x % 2 != 0, lambda x: b("eq", b("mod", ir.Un("abs", x), 2), 1)
        ),
        "pos": Pred("positive", lambda x: x > 0, lambda x: b("gt", x, 0), "nonneg"),
        "nonneg": Pred("zero or positive", lambda x: x >= 0, lambda x: b("ge", x, 0)),
        "neg": Pred("negative", lambda x: x < 0, lambda x: b("lt", x, 0), "nonpos"),
        "nonpos": Pred("zero or negative", lambda x: x <= 0, lambda x: b("le", x, 0)),
        "nonzero": Pred("not zero", lambda x: x != 0, lambda x: b("ne", x, 0)),
        "gt": Pred(f"greater than {k}", lambda x: x > k, lambda x: b("gt", x, k), f"ge:{k}"),
        "ge": Pred(f"at least {k}", lambda x: x >= k, lambda x: b("ge", x, k)),
        "lt": Pred(f"less than {k}", lambda x: x < k, lambda x: b("lt", x, k), f"le:{k}"),
        "le": Pred(f"at most {k}", lambda x: x <= k, lambda x: b("le", x, k)),
        "div": Pred(
            f"divisible by {k}",
            lambda x: x % k == 0,
            lambda x: b("eq", b("mod", ir.Un("abs", x), k), 0),
        ),
    }
    return table[name]


@functools.cache  # pure in its key; the interpreters ask per element
def char_pred(key: str) -> Pred:
    """Character-code predicates; ``phrase`` is a plural noun ('vowels', 'digits')."""
    table: dict[str, Pred] = {
        "vowel": Pred(
            "vowels (a, e, i, o, u in either case)",
            lambda c: chr(c) in VOWELS,
            lambda c: _any_eq(c, VOWELS),
            "lvowel",
        ),
        "lvowel": Pred(
            "lowercase vowels", lambda c: chr(c) in "aeiou", lambda c: _any_eq(c, "aeiou")
        ),
        "upper": Pred("uppercase letters", lambda c: 65 <= c <= 90, lambda c: _between(c, 65, 90)),
        "lower": Pred(
            "lowercase letters", lambda c: 97 <= c <= 122, lambda c: _between(c, 97, 122)
        ),
        "digit": Pred("digits", lambda c: 48 <= c <= 57, lambda c: _between(c, 48, 57)),
        "letter": Pred(
            "letters",
            lambda c: chr(c).isascii() and chr(c).isalpha(),
            lambda c: b("or", _between(c, 65, 90), _between(c, 97, 122)),
            "lower",
        ),
        "space": Pred("spaces", lambda c: c == 32, lambda c: b("eq", c, 32)),
        "other": Pred(
            "characters that are not letters, digits or spaces",
            lambda c: not (chr(c).isalnum() or c == 32),
            lambda c: ir.Un(
                "not",
                b(
                    "or",
                    b("or", _between(c, 65, 90), _between(c, 97, 122)),
                    b("or", _between(c, 48, 57), b("eq", c, 32)),
                ),
            ),
        ),
    }
    return table[key]


@functools.cache  # pure in its key; the interpreters ask per element
def word_pred(key: str) -> Pred:
    """Word predicates over a word variable name; ``phrase`` completes 'the words ...'."""
    name, _, arg = key.partition(":")
    k = int(arg) if arg else 0
    table: dict[str, Pred] = {
        "longer": Pred(
            f"longer than {k} letters",
            lambda w: len(w) > k,
            lambda w: b("gt", ir.Len(w, "word"), k),
            f"atleast:{k}",
        ),
        "atleast": Pred(
            f"with at least {k} letters",
            lambda w: len(w) >= k,
            lambda w: b("ge", ir.Len(w, "word"), k),
        ),
        "shorter": Pred(
            f"shorter than {k} letters",
            lambda w: len(w) < k,
            lambda w: b("lt", ir.Len(w, "word"), k),
            f"atmost:{k}",
        ),
        "atmost": Pred(
            f"with at most {k} letters",
            lambda w: len(w) <= k,
            lambda w: b("le", ir.Len(w, "word"), k),
        ),
        "vstart": Pred(
            "that start with a vowel",
            lambda w: w[0] in "aeiou",
            lambda w: _any_eq(ir.CodeAt(w, lit(0)), "aeiou"),
        ),
        "evenlen": Pred(
            "with an even number of letters",
            lambda w: len(w) % 2 == 0,
            lambda w: b("eq", b("mod", ir.Len(w, "word"), 2), 0),
        ),
        "vend": Pred(
            "that end with a vowel",
            lambda w: w[-1] in "aeiou",
            lambda w: _any_eq(ir.CodeAt(w, b("sub", ir.Len(w, "word"), 1)), "aeiou"),
        ),
    }
    return table[name]


@functools.cache  # pure in its key; the interpreters ask per element
def int_map(key: str) -> IMap:
    """Int mappings: add:K sub:K mul:K neg abs sq last half dist:K clamp:LO:HI collatz
    max:K min:K."""
    name, *args = key.split(":")
    k = int(args[0]) if args else 0
    hi = int(args[1]) if len(args) > 1 else 0
    times = {2: "double", 3: "triple"}.get(k)
    table: dict[str, IMap] = {
        "add": IMap(
            f"add {k}", f"add {k} to each number", lambda x: x + k, lambda x: b("add", x, k)
        ),
        "sub": IMap(
            f"subtract {k}",
            f"subtract {k} from each number",
            lambda x: x - k,
            lambda x: b("sub", x, k),
        ),
        "mul": IMap(
            f"{times} it" if times else f"multiply it by {k}",
            f"{times} each number" if times else f"multiply each number by {k}",
            lambda x: x * k,
            lambda x: b("mul", x, k),
        ),
        "neg": IMap("negate it", "negate each number", lambda x: -x, lambda x: ir.Un("neg", x)),
        "abs": IMap(
            "take its absolute value",
            "replace each number by its absolute value",
            abs,
            lambda x: ir.Un("abs", x),
        ),
        "sq": IMap("square it", "square each number", lambda x: x * x, lambda x: b("mul", x, x)),
        "last": IMap(
            "keep only the last digit of its absolute value",
            "replace each number by the last decimal digit of its absolute value",
            lambda x: abs(x) % 10,
            lambda x: b("mod", ir.Un("abs", x), 10),
        ),
        "half": IMap(
            "take half of its absolute value, rounded down",
            "replace each number by half of its absolute value, rounded down",
            lambda x: abs(x) // 2,
            lambda x: b("div", ir.Un("abs", x), 2),
        ),
        "dist": IMap(
            f"take its distance from {k}",
            f"replace each number by its distance from {k}",
            lambda x: abs(x - k),
            lambda x: ir.Un("abs", b("sub", x, k)),
        ),
        "clamp": IMap(
            f"clamp it into the range {k} to {hi}",
            f"clamp each number into the range {k} to {hi}",
            lambda x: min(max(x, k), hi),
            lambda x: ir.Call2("min", ir.Call2("max", x, lit(k)), lit(hi)),
        ),
        "collatz": IMap(
            "halve it if it is even, otherwise multiply it by 3 and add 1",
            "halve each even number and replace each odd number x by 3 * x + 1",
            lambda x: x // 2 if x % 2 == 0 else 3 * x + 1,
            lambda x: ir.Cond(
                b("eq", b("mod", ir.Un("abs", x), 2), 0),
                b("div", x, 2),
                b("add", b("mul", x, 3), 1),
            ),
        ),
        "max": IMap(
            f"replace it by {k} if it is smaller than {k}",
            f"replace each number smaller than {k} by {k}",
            lambda x: max(x, k),
            lambda x: ir.Call2("max", x, lit(k)),
        ),
        "min": IMap(
            f"replace it by {k} if it is larger than {k}",
            f"replace each number larger than {k} by {k}",
            lambda x: min(x, k),
            lambda x: ir.Call2("min", x, lit(k)),
        ),
    }
    return table[name]


def _shift(c: ir.Expr, base: int, k: int) -> ir.Expr:
    return b("add", b("mod", b("add", b("sub", c, base), k), 26), base)


@functools.cache  # pure in its key; the interpreters ask per element
def char_map(key: str) -> IMap:
    """Char-code mappings (``it`` is unused); ``each`` is the full phrase."""
    name, _, arg = key.partition(":")
    k = int(arg) if arg else 0
    lower = lambda c: _between(c, 97, 122)  # noqa: E731
    upper = lambda c: _between(c, 65, 90)  # noqa: E731

    def caesar(c: int) -> int:
        if 97 <= c <= 122:
            return (c - 97 + k) % 26 + 97
        if 65 <= c <= 90:
            return (c - 65 + k) % 26 + 65
        return c

    table: dict[str, IMap] = {
        "upper": IMap(
            "",
            "convert every lowercase letter to uppercase",
            lambda c: c - 32 if 97 <= c <= 122 else c,
            lambda c: ir.Cond(lower(c), b("sub", c, 32), c),
        ),
        "lower": IMap(
            "",
            "convert every uppercase letter to lowercase",
            lambda c: c + 32 if 65 <= c <= 90 else c,
            lambda c: ir.Cond(upper(c), b("add", c, 32), c),
        ),
        "swap": IMap(
            "",
            "swap the case of every letter",
            lambda c: c - 32 if 97 <= c <= 122 else c + 32 if 65 <= c <= 90 else c,
            lambda c: ir.Cond(lower(c), b("sub", c, 32), ir.Cond(upper(c), b("add", c, 32), c)),
        ),
        "caesar": IMap(
            "",
            f"shift every letter {k} places forward in the alphabet, wrapping "
            "around from z to a and keeping its case",
            caesar,
            lambda c: ir.Cond(lower(c), _shift(c, 97, k), ir.Cond(upper(c), _shift(c, 65, k), c)),
        ),
        "maskdigit": IMap(
            "",
            "replace every digit with '#'",
            lambda c: 35 if 48 <= c <= 57 else c,
            lambda c: ir.Cond(_between(c, 48, 57), lit(35), c),
        ),
        "space": IMap(
            "",
            "replace every space with '_'",
            lambda c: 95 if c == 32 else c,
            lambda c: ir.Cond(b("eq", c, 32), lit(95), c),
        ),
        "vstar": IMap(
            "",
            "replace every vowel (a, e, i, o, u in either case) with '*'",
            lambda c: 42 if chr(c) in VOWELS else c,
            lambda c: ir.Cond(_any_eq(c, VOWELS), lit(42), c),
        ),
    }
    return table[name]


# ---------------------------------------------------------------- emission context


class Names:
    """Fresh variable names for one function body (deterministic counters)."""

    def __init__(self) -> None:
        self.counts: dict[str, int] = {}

    def fresh(self, prefix: str) -> str:
        """Return ``prefix`` followed by the next number for that prefix (x1, x2, ...)."""
        self.counts[prefix] = self.counts.get(prefix, 0) + 1
        return f"{prefix}{self.counts[prefix]}"


Emitted = tuple[list[ir.Stmt], str]


def _inc(name: str, by: ir.Expr | int = 1) -> ir.Set:
    return ir.Set(name, b("add", v(name), by))


def _count_equal(names: Names, src: str, typ: str, index: str, out: str) -> list[ir.Stmt]:
    """``out`` = how many items of ``src`` equal item ``index`` (nested scan)."""
    j = names.fresh("j")
    return [
        ir.Decl(out, "int", lit(0)),
        ir.ForRange(
            j,
            lit(0),
            ir.Len(src, typ),
            (ir.If(_items_equal(names, src, typ, j, index), (_inc(out),)),),
        ),
    ]


def _items_equal(names: Names, src: str, typ: str, i: str, j: str) -> ir.Expr:
    if typ == "str":
        return b("eq", ir.CodeAt(src, v(i)), ir.CodeAt(src, v(j)))
    if typ == "list[int]":
        return b("eq", ir.ItemAt(src, v(i), typ), ir.ItemAt(src, v(j), typ))
    raise ValueError(typ)


def _seen_before(names: Names, src: str, typ: str, i: str, flag: str) -> list[ir.Stmt]:
    """``flag`` = item ``i`` of ``src`` occurred at an earlier index."""
    j = names.fresh("j")
    if typ == "list[str]":
        wi, wj = names.fresh("w"), names.fresh("w")
        return [
            ir.Decl(flag, "bool", lit(False)),
            ir.Decl(wi, "word", ir.ItemAt(src, v(i), typ)),
            ir.ForRange(
                j,
                lit(0),
                v(i),
                (
                    ir.Decl(wj, "word", ir.ItemAt(src, v(j), typ)),
                    ir.If(ir.StrEq(wi, wj), (ir.Set(flag, lit(True)),)),
                ),
            ),
        ]
    return [
        ir.Decl(flag, "bool", lit(False)),
        ir.ForRange(
            j,
            lit(0),
            v(i),
            (ir.If(_items_equal(names, src, typ, j, i), (ir.Set(flag, lit(True)),)),),
        ),
    ]


def _word_count(names: Names, src: str, i: str, out: str) -> list[ir.Stmt]:
    j, wi, wj = names.fresh("j"), names.fresh("w"), names.fresh("w")
    return [
        ir.Decl(out, "int", lit(0)),
        ir.Decl(wi, "word", ir.ItemAt(src, v(i), "list[str]")),
        ir.ForRange(
            j,
            lit(0),
            ir.Len(src, "list[str]"),
            (
                ir.Decl(wj, "word", ir.ItemAt(src, v(j), "list[str]")),
                ir.If(ir.StrEq(wi, wj), (_inc(out),)),
            ),
        ),
    ]


def _count_of(names: Names, src: str, typ: str, i: str, out: str) -> list[ir.Stmt]:
    if typ == "list[str]":
        return _word_count(names, src, i, out)
    return _count_equal(names, src, typ, i, out)


def _item(src: str, typ: str, i: str) -> ir.Expr:
    return ir.CodeAt(src, v(i)) if typ == "str" else ir.ItemAt(src, v(i), typ)


# ---------------------------------------------------------------- operations


@dataclass(frozen=True)
class Op:
    """One pipeline operation.

    ``phrase(arg)`` -> task comment fragment; ``run(arg, value)`` -> oracle value;
    ``emit(arg, names, src)`` -> (IR statements, output variable). ``args`` lists the argument
    keys the generator may draw; ``family`` is the operation's own family and ``category`` its
    kind. ``near`` gives the argument of a near-miss variant (a weakened predicate), if any.
    """

    in_type: str
    out_type: str
    family: str
    category: str
    phrase: Callable[[str], str]
    run: Callable[[str, Any], Any]
    emit: Callable[[str, Names, str], Emitted]
    args: tuple[str, ...] = ("",)
    near: Callable[[str], str | None] = lambda arg: None


def _decl_int(names: Names, expr: ir.Expr, prefix: str = "t") -> Emitted:
    out = names.fresh(prefix)
    return [ir.Decl(out, "int", expr)], out


def _loop_build(
    names: Names, src: str, src_type: str, out_type: str, body: Callable[[str, str], list[ir.Stmt]]
) -> Emitted:
    """Declare a builder ``out`` and loop over ``src``; ``body(item, out)`` fills it."""
    out = names.fresh("t")
    item = names.fresh({"list[int]": "x", "str": "c", "list[str]": "w"}[src_type])
    return [ir.Decl(out, out_type), ir.ForEach(item, src, src_type, tuple(body(item, out)))], out


def _fold(
    names: Names,
    src: str,
    src_type: str,
    init: ir.Expr,
    step: Callable[[str, str], list[ir.Stmt]],
    prefix: str = "total",
) -> Emitted:
    out = names.fresh(prefix)
    item = names.fresh({"list[int]": "x", "str": "c", "list[str]": "w"}[src_type])
    return [ir.Decl(out, "int", init), ir.ForEach(item, src, src_type, tuple(step(item, out)))], out


def _digits(kind: str) -> Callable[[str, Names, str], Emitted]:
    def emit(arg: str, names: Names, src: str) -> Emitted:
        m, out = names.fresh("m"), names.fresh("t")
        stmts: list[ir.Stmt] = [ir.Decl(m, "int", ir.Un("abs", v(src)))]
        if kind == "sum":
            stmts += [
                ir.Decl(out, "int", lit(0)),
                ir.While(
                    b("gt", v(m), 0), (_inc(out, b("mod", v(m), 10)), ir.Set(m, b("div", v(m), 10)))
                ),
            ]
        elif kind == "count":
            stmts += [
                ir.Decl(out, "int", lit(1)),
                ir.While(b("ge", v(m), 10), (ir.Set(m, b("div", v(m), 10)), _inc(out))),
            ]
        else:
            stmts += [
                ir.Decl(out, "int", lit(0)),
                ir.While(
                    b("gt", v(m), 0),
                    (
                        ir.Set(out, b("add", b("mul", v(out), 10), b("mod", v(m), 10))),
                        ir.Set(m, b("div", v(m), 10)),
                    ),
                ),
            ]
        return stmts, out

    return emit


def _digit_run(kind: str) -> Callable[[str, int], int]:
    def run(arg: str, x: int) -> int:
        digits = str(abs(x))
        if kind == "sum":
            return sum(int(d) for d in digits)
        if kind == "count":
            return len(digits)
        return int(digits[::-1])

    return run


def _filter_emit(src_type: str, keep: bool, pred: Callable[[str], Pred]) -> Callable:
    def emit(arg: str, names: Names, src: str) -> Emitted:
        def body(item: str, out: str) -> list[ir.Stmt]:
            cond = pred(arg).ir(item if src_type == "list[str]" else v(item))
            cond = cond if keep else ir.Un("not", cond)
            push_typ = "str" if src_type == "str" else src_type
            value = v(item)
            return [ir.If(cond, (ir.Push(out, push_typ, value),))]

        return _loop_build(names, src, src_type, src_type, body)

    return emit


def _map_emit(src_type: str, fn: Callable[[str], IMap]) -> Callable:
    push_typ = "str" if src_type == "str" else "list[int]"

    def emit(arg: str, names: Names, src: str) -> Emitted:
        return _loop_build(
            names,
            src,
            src_type,
            src_type,
            lambda item, out: [ir.Push(out, push_typ, fn(arg).ir(v(item)))],
        )

    return emit


def _index_build(
    names: Names,
    src: str,
    src_type: str,
    body: Callable[[str, str], list[ir.Stmt]],
    hi: ir.Expr | None = None,
) -> Emitted:
    out, i = names.fresh("t"), names.fresh("i")
    hi = hi if hi is not None else ir.Len(src, src_type)
    return [ir.Decl(out, src_type), ir.ForRange(i, lit(0), hi, tuple(body(i, out)))], out


def _reverse_emit(src_type: str) -> Callable:
    push_typ = "str" if src_type == "str" else src_type

    def emit(arg: str, names: Names, src: str) -> Emitted:
        def body(i: str, out: str) -> list[ir.Stmt]:
            j = b("sub", b("sub", ir.Len(src, src_type), 1), v(i))
            item = ir.CodeAt(src, j) if src_type == "str" else ir.ItemAt(src, j, src_type)
            return [ir.Push(out, push_typ, item)]

        return _index_build(names, src, src_type, body)

    return emit


def _take_emit(arg: str, names: Names, src: str) -> Emitted:
    return _index_build(
        names,
        src,
        "str",
        lambda i, out: [ir.Push(out, "str", ir.CodeAt(src, v(i)))],
        hi=ir.Call2("min", lit(int(arg)), ir.Len(src, "str")),
    )


def _uniq_emit(src_type: str) -> Callable:
    push_typ = "str" if src_type == "str" else src_type

    def emit(arg: str, names: Names, src: str) -> Emitted:
        def body(i: str, out: str) -> list[ir.Stmt]:
            flag = names.fresh("seen")
            stmts = _seen_before(names, src, src_type, i, flag)
            if src_type == "list[str]":
                word = stmts[1].name  # the word variable declared by _seen_before
                return stmts + [ir.If(ir.Un("not", v(flag)), (ir.Push(out, push_typ, v(word)),))]
            return stmts + [
                ir.If(ir.Un("not", v(flag)), (ir.Push(out, push_typ, _item(src, src_type, i)),))
            ]

        return _index_build(names, src, src_type, body)

    return emit


def _singles_emit(arg: str, names: Names, src: str) -> Emitted:
    def body(i: str, out: str) -> list[ir.Stmt]:
        cnt = names.fresh("count")
        return _count_equal(names, src, "list[int]", i, cnt) + [
            ir.If(b("eq", v(cnt), 1), (ir.Push(out, "list[int]", _item(src, "list[int]", i)),))
        ]

    return _index_build(names, src, "list[int]", body)


def _freq_fold(src_type: str, kind: str) -> Callable:
    """distinct / maxfreq / dupcount / mode over str, list[int] or list[str]."""

    def emit(arg: str, names: Names, src: str) -> Emitted:
        out, i = names.fresh("result"), names.fresh("i")
        body: list[ir.Stmt] = []
        if kind in ("distinct", "dupcount"):
            flag = names.fresh("seen")
            body += _seen_before(names, src, src_type, i, flag)
            if kind == "distinct":
                body.append(ir.If(ir.Un("not", v(flag)), (_inc(out),)))
            else:
                cnt = names.fresh("count")
                body += _count_of(names, src, src_type, i, cnt)
                body.append(
                    ir.If(b("and", ir.Un("not", v(flag)), b("gt", v(cnt), 1)), (_inc(out),))
                )
            stmts: list[ir.Stmt] = [ir.Decl(out, "int", lit(0))]
        elif kind == "maxfreq":
            cnt = names.fresh("count")
            body += _count_of(names, src, src_type, i, cnt)
            body.append(ir.Set(out, ir.Call2("max", v(out), v(cnt))))
            stmts = [ir.Decl(out, "int", lit(0))]
        else:  # mode of list[int]: most frequent, smallest on ties, 0 when empty
            cnt, best = names.fresh("count"), names.fresh("best")
            body += _count_of(names, src, src_type, i, cnt)
            item = _item(src, src_type, i)
            better = b(
                "or",
                b("gt", v(cnt), v(best)),
                b("and", b("eq", v(cnt), v(best)), b("lt", item, v(out))),
            )
            body.append(ir.If(better, (ir.Set(out, item), ir.Set(best, v(cnt)))))
            stmts = [ir.Decl(out, "int", lit(0)), ir.Decl(best, "int", lit(0))]
        stmts.append(ir.ForRange(i, lit(0), ir.Len(src, src_type), tuple(body)))
        return stmts, out

    return emit


def _wmode_emit(arg: str, names: Names, src: str) -> Emitted:
    out, i, best, at = names.fresh("t"), names.fresh("i"), names.fresh("best"), names.fresh("at")
    cnt, word = names.fresh("count"), names.fresh("w")
    body = _word_count(names, src, i, cnt) + [
        ir.If(b("gt", v(cnt), v(best)), (ir.Set(best, v(cnt)), ir.Set(at, v(i))))
    ]
    return [
        ir.Decl(out, "str"),
        ir.Decl(best, "int", lit(0)),
        ir.Decl(at, "int", lit(-1)),
        ir.ForRange(i, lit(0), ir.Len(src, "list[str]"), tuple(body)),
        ir.If(
            b("ge", v(at), 0),
            (
                ir.Decl(word, "word", ir.ItemAt(src, v(at), "list[str]")),
                ir.Push(out, "strcat", v(word)),
            ),
        ),
    ], out


def _first_max(arg: str, names: Names, src: str, smaller: bool) -> Emitted:
    out, i = names.fresh("best"), names.fresh("i")
    item = ir.ItemAt(src, v(i), "list[int]")
    better = b("lt" if smaller else "gt", item, v(out))
    return [
        ir.Decl(out, "int", lit(0)),
        ir.ForRange(
            i,
            lit(0),
            ir.Len(src, "list[int]"),
            (ir.If(b("or", b("eq", v(i), 0), better), (ir.Set(out, item),)),),
        ),
    ], out


def _wjoin_emit(arg: str, names: Names, src: str) -> Emitted:
    out, i, word = names.fresh("t"), names.fresh("i"), names.fresh("w")
    return [
        ir.Decl(out, "str"),
        ir.ForRange(
            i,
            lit(0),
            ir.Len(src, "list[str]"),
            (
                ir.If(b("gt", v(i), 0), (ir.Push(out, "str", lit(ord(arg))),)),
                ir.Decl(word, "word", ir.ItemAt(src, v(i), "list[str]")),
                ir.Push(out, "strcat", v(word)),
            ),
        ),
    ], out


def _palindrome_emit(arg: str, names: Names, src: str) -> Emitted:
    out, i = names.fresh("ok"), names.fresh("i")
    mirror = b("sub", b("sub", ir.Len(src, "str"), 1), v(i))
    return [
        ir.Decl(out, "bool", lit(True)),
        ir.ForRange(
            i,
            lit(0),
            ir.Len(src, "str"),
            (
                ir.If(
                    b("ne", ir.CodeAt(src, v(i)), ir.CodeAt(src, mirror)),
                    (ir.Set(out, lit(False)),),
                ),
            ),
        ),
    ], out


def _sorted_emit(arg: str, names: Names, src: str) -> Emitted:
    out, i = names.fresh("ok"), names.fresh("i")
    prev = ir.ItemAt(src, b("sub", v(i), 1), "list[int]")
    return [
        ir.Decl(out, "bool", lit(True)),
        ir.ForRange(
            i,
            lit(1),
            ir.Len(src, "list[int]"),
            (ir.If(b("gt", prev, ir.ItemAt(src, v(i), "list[int]")), (ir.Set(out, lit(False)),)),),
        ),
    ], out


def _quant_emit(src_type: str, every: bool, pred: Callable[[str], Pred]) -> Callable:
    def emit(arg: str, names: Names, src: str) -> Emitted:
        out = names.fresh("ok")
        item = names.fresh("c" if src_type == "str" else "x")
        cond = pred(arg).ir(v(item))
        hit = ir.If(ir.Un("not", cond) if every else cond, (ir.Set(out, lit(not every)),))
        return [ir.Decl(out, "bool", lit(every)), ir.ForEach(item, src, src_type, (hit,))], out

    return emit


def _altsum_emit(arg: str, names: Names, src: str) -> Emitted:
    out, i = names.fresh("total"), names.fresh("i")
    item = ir.ItemAt(src, v(i), "list[int]")
    return [
        ir.Decl(out, "int", lit(0)),
        ir.ForRange(
            i,
            lit(0),
            ir.Len(src, "list[int]"),
            (
                ir.If(
                    b("eq", b("mod", v(i), 2), 0),
                    (_inc(out, item),),
                    (ir.Set(out, b("sub", v(out), item)),),
                ),
            ),
        ),
    ], out


def _prefix_emit(arg: str, names: Names, src: str) -> Emitted:
    acc = names.fresh("acc")
    stmts, out = _loop_build(
        names,
        src,
        "list[int]",
        "list[int]",
        lambda item, out: [_inc(acc, v(item)), ir.Push(out, "list[int]", v(acc))],
    )
    return [ir.Decl(acc, "int", lit(0))] + stmts, out


def _mode(xs: list[Any], smallest: bool) -> Any:
    best, best_count = None, 0
    for x in xs:
        count = xs.count(x)
        if count > best_count or (smallest and count == best_count and x < best):
            best, best_count = x, count
    return best


def _first_unique(xs: Any) -> list[Any]:
    out: list[Any] = []
    for x in xs:
        if x not in out:
            out.append(x)
    return out


def _near_pred(table: Callable[[str], Pred]) -> Callable[[str], str | None]:
    return lambda arg: table(arg).near


INT_PRED_ARGS = (
    "even",
    "odd",
    "pos",
    "neg",
    "nonzero",
    "gt:5",
    "gt:-3",
    "lt:10",
    "lt:-2",
    "div:3",
    "div:4",
    "div:5",
)
INT_MAP_ARGS = (
    "add:7",
    "add:12",
    "sub:4",
    "sub:9",
    "mul:2",
    "mul:3",
    "mul:5",
    "neg",
    "abs",
    "sq",
    "last",
    "half",
    "dist:10",
    "dist:-4",
    "clamp:-10:10",
    "clamp:0:50",
    "collatz",
    "max:0",
    "min:25",
)
CHAR_PRED_ARGS = ("vowel", "upper", "lower", "digit", "letter", "space", "other")
CHAR_MAP_ARGS = (
    "upper",
    "lower",
    "swap",
    "caesar:1",
    "caesar:3",
    "caesar:13",
    "maskdigit",
    "space",
    "vstar",
)
WORD_PRED_ARGS = ("longer:3", "longer:4", "shorter:4", "shorter:3", "vstart", "evenlen", "vend")


def _s(text: str) -> Callable[[str], str]:
    return lambda arg: text


def _char_fold(pred_arg_fn: Callable[[str, int], bool]) -> Callable:
    return lambda arg, s: sum(1 for ch in s if pred_arg_fn(arg, ord(ch)))


OPS: dict[str, Op] = {
    # -- arithmetic and conditions (int -> int / bool)
    "imap": Op(
        "int",
        "int",
        "arithmetic",
        "mapping",
        lambda a: int_map(a).it,
        lambda a, x: int_map(a).fn(x),
        lambda a, names, src: _decl_int(names, int_map(a).ir(v(src))),
        INT_MAP_ARGS,
    ),
    "digitsum": Op(
        "int",
        "int",
        "arithmetic",
        "digits",
        _s("replace it by the sum of the decimal digits of its absolute value"),
        _digit_run("sum"),
        _digits("sum"),
    ),
    "digitcount": Op(
        "int",
        "int",
        "arithmetic",
        "digits",
        _s("replace it by the number of decimal digits of its absolute value (0 has one digit)"),
        _digit_run("count"),
        _digits("count"),
    ),
    "revdigits": Op(
        "int",
        "int",
        "arithmetic",
        "digits",
        _s("reverse the decimal digits of its absolute value (leading zeros vanish)"),
        _digit_run("rev"),
        _digits("rev"),
    ),
    "itest": Op(
        "int",
        "bool",
        "arithmetic",
        "condition",
        lambda a: f"check whether it is {int_pred(a).phrase}",
        lambda a, x: int_pred(a).fn(x),
        lambda a, names, src: (
            [ir.Decl(o := names.fresh("ok"), "bool", int_pred(a).ir(v(src)))],
            o,
        ),
        INT_PRED_ARGS,
        _near_pred(int_pred),
    ),
    # -- ASCII string transformations
    "cmap": Op(
        "str",
        "str",
        "strings",
        "transform",
        lambda a: char_map(a).each,
        lambda a, s: "".join(chr(char_map(a).fn(ord(ch))) for ch in s),
        _map_emit("str", char_map),
        CHAR_MAP_ARGS,
    ),
    "keep": Op(
        "str",
        "str",
        "strings",
        "filter",
        lambda a: f"keep only the {char_pred(a).phrase}",
        lambda a, s: "".join(ch for ch in s if char_pred(a).fn(ord(ch))),
        _filter_emit("str", True, char_pred),
        CHAR_PRED_ARGS,
        _near_pred(char_pred),
    ),
    "drop": Op(
        "str",
        "str",
        "strings",
        "filter",
        lambda a: f"remove all {char_pred(a).phrase}",
        lambda a, s: "".join(ch for ch in s if not char_pred(a).fn(ord(ch))),
        _filter_emit("str", False, char_pred),
        CHAR_PRED_ARGS,
        _near_pred(char_pred),
    ),
    "sreverse": Op(
        "str",
        "str",
        "strings",
        "reorder",
        _s("reverse the string"),
        lambda a, s: s[::-1],
        _reverse_emit("str"),
    ),
    "take": Op(
        "str",
        "str",
        "strings",
        "filter",
        lambda a: f"keep only its first {a} characters (all of them if it is shorter)",
        lambda a, s: s[: int(a)],
        _take_emit,
        ("3", "5", "8"),
    ),
    "ccount": Op(
        "str",
        "int",
        "strings",
        "count",
        lambda a: f"count the {char_pred(a).phrase}",
        lambda a, s: sum(1 for ch in s if char_pred(a).fn(ord(ch))),
        lambda a, names, src: _fold(
            names,
            src,
            "str",
            lit(0),
            lambda c, out: [ir.If(char_pred(a).ir(v(c)), (_inc(out),))],
            "count",
        ),
        CHAR_PRED_ARGS,
        _near_pred(char_pred),
    ),
    "slength": Op(
        "str",
        "int",
        "strings",
        "count",
        _s("take its length"),
        lambda a, s: len(s),
        lambda a, names, src: _decl_int(names, ir.Len(src, "str"), "count"),
    ),
    "cany": Op(
        "str",
        "bool",
        "strings",
        "condition",
        lambda a: f"check whether it contains any {char_pred(a).phrase}",
        lambda a, s: any(char_pred(a).fn(ord(ch)) for ch in s),
        _quant_emit("str", False, char_pred),
        CHAR_PRED_ARGS,
        _near_pred(char_pred),
    ),
    "call": Op(
        "str",
        "bool",
        "strings",
        "condition",
        lambda a: (
            f"check whether all its characters are {char_pred(a).phrase} (true for an empty string)"
        ),
        lambda a, s: all(char_pred(a).fn(ord(ch)) for ch in s),
        _quant_emit("str", True, char_pred),
        ("letter", "lower", "digit", "upper"),
    ),
    "palindrome": Op(
        "str",
        "bool",
        "strings",
        "condition",
        _s("check whether it reads the same forwards and backwards"),
        lambda a, s: s == s[::-1],
        _palindrome_emit,
    ),
    # -- filtered collection reductions (list[int])
    "filter": Op(
        "list[int]",
        "list[int]",
        "collections",
        "filter",
        lambda a: f"keep only the numbers that are {int_pred(a).phrase}",
        lambda a, xs: [x for x in xs if int_pred(a).fn(x)],
        _filter_emit("list[int]", True, int_pred),
        INT_PRED_ARGS,
        _near_pred(int_pred),
    ),
    "reject": Op(
        "list[int]",
        "list[int]",
        "collections",
        "filter",
        lambda a: f"remove the numbers that are {int_pred(a).phrase}",
        lambda a, xs: [x for x in xs if not int_pred(a).fn(x)],
        _filter_emit("list[int]", False, int_pred),
        INT_PRED_ARGS,
        _near_pred(int_pred),
    ),
    "map": Op(
        "list[int]",
        "list[int]",
        "collections",
        "transform",
        lambda a: int_map(a).each,
        lambda a, xs: [int_map(a).fn(x) for x in xs],
        _map_emit("list[int]", int_map),
        INT_MAP_ARGS,
    ),
    "lreverse": Op(
        "list[int]",
        "list[int]",
        "collections",
        "reorder",
        _s("reverse the list"),
        lambda a, xs: xs[::-1],
        _reverse_emit("list[int]"),
    ),
    "prefix": Op(
        "list[int]",
        "list[int]",
        "collections",
        "reorder",
        _s("replace each number by the running total up to and including it"),
        lambda a, xs: [sum(xs[: i + 1]) for i in range(len(xs))],
        _prefix_emit,
    ),
    "sum": Op(
        "list[int]",
        "int",
        "collections",
        "reduce",
        _s("add up the numbers (0 if none)"),
        lambda a, xs: sum(xs),
        lambda a, names, src: _fold(
            names, src, "list[int]", lit(0), lambda x, out: [_inc(out, v(x))]
        ),
    ),
    "count": Op(
        "list[int]",
        "int",
        "collections",
        "reduce",
        _s("count the numbers"),
        lambda a, xs: len(xs),
        lambda a, names, src: _decl_int(names, ir.Len(src, "list[int]"), "count"),
    ),
    "max0": Op(
        "list[int]",
        "int",
        "collections",
        "extremum",
        _s("take the largest number (0 if there are none)"),
        lambda a, xs: max(xs) if xs else 0,
        lambda a, names, src: _first_max(a, names, src, False),
    ),
    "min0": Op(
        "list[int]",
        "int",
        "collections",
        "extremum",
        _s("take the smallest number (0 if there are none)"),
        lambda a, xs: min(xs) if xs else 0,
        lambda a, names, src: _first_max(a, names, src, True),
    ),
    "countif": Op(
        "list[int]",
        "int",
        "collections",
        "reduce",
        lambda a: f"count the numbers that are {int_pred(a).phrase}",
        lambda a, xs: sum(1 for x in xs if int_pred(a).fn(x)),
        lambda a, names, src: _fold(
            names,
            src,
            "list[int]",
            lit(0),
            lambda x, out: [ir.If(int_pred(a).ir(v(x)), (_inc(out),))],
            "count",
        ),
        INT_PRED_ARGS,
        _near_pred(int_pred),
    ),
    "sumif": Op(
        "list[int]",
        "int",
        "collections",
        "reduce",
        lambda a: f"add up the numbers that are {int_pred(a).phrase} (0 if none)",
        lambda a, xs: sum(x for x in xs if int_pred(a).fn(x)),
        lambda a, names, src: _fold(
            names,
            src,
            "list[int]",
            lit(0),
            lambda x, out: [ir.If(int_pred(a).ir(v(x)), (_inc(out, v(x)),))],
        ),
        INT_PRED_ARGS,
        _near_pred(int_pred),
    ),
    "altsum": Op(
        "list[int]",
        "int",
        "collections",
        "reduce",
        _s(
            "compute the alternating sum: add the 1st, 3rd, 5th... numbers and "
            "subtract the 2nd, 4th... (0 if none)"
        ),
        lambda a, xs: sum(x if i % 2 == 0 else -x for i, x in enumerate(xs)),
        _altsum_emit,
    ),
    "lany": Op(
        "list[int]",
        "bool",
        "collections",
        "condition",
        lambda a: f"check whether any number is {int_pred(a).phrase}",
        lambda a, xs: any(int_pred(a).fn(x) for x in xs),
        _quant_emit("list[int]", False, int_pred),
        INT_PRED_ARGS,
        _near_pred(int_pred),
    ),
    "lall": Op(
        "list[int]",
        "bool",
        "collections",
        "condition",
        lambda a: f"check whether every number is {int_pred(a).phrase} (true for an empty list)",
        lambda a, xs: all(int_pred(a).fn(x) for x in xs),
        _quant_emit("list[int]", True, int_pred),
        INT_PRED_ARGS,
        _near_pred(int_pred),
    ),
    "sorted": Op(
        "list[int]",
        "bool",
        "collections",
        "condition",
        _s("check whether the numbers are in non-decreasing order"),
        lambda a, xs: all(xs[i - 1] <= xs[i] for i in range(1, len(xs))),
        _sorted_emit,
    ),
    # -- word lists (list[str])
    "wfilter": Op(
        "list[str]",
        "list[str]",
        "collections",
        "filter",
        lambda a: f"keep only the words {word_pred(a).phrase}",
        lambda a, ws: [w for w in ws if word_pred(a).fn(w)],
        _filter_emit("list[str]", True, word_pred),
        WORD_PRED_ARGS,
        _near_pred(word_pred),
    ),
    "wreject": Op(
        "list[str]",
        "list[str]",
        "collections",
        "filter",
        lambda a: f"remove the words {word_pred(a).phrase}",
        lambda a, ws: [w for w in ws if not word_pred(a).fn(w)],
        _filter_emit("list[str]", False, word_pred),
        WORD_PRED_ARGS,
        _near_pred(word_pred),
    ),
    "wcount": Op(
        "list[str]",
        "int",
        "collections",
        "reduce",
        _s("count the words"),
        lambda a, ws: len(ws),
        lambda a, names, src: _decl_int(names, ir.Len(src, "list[str]"), "count"),
    ),
    "wletters": Op(
        "list[str]",
        "int",
        "collections",
        "reduce",
        _s("count the letters in all the words together"),
        lambda a, ws: sum(len(w) for w in ws),
        lambda a, names, src: _fold(
            names, src, "list[str]", lit(0), lambda w, out: [_inc(out, ir.Len(w, "word"))]
        ),
    ),
    "wlongest": Op(
        "list[str]",
        "int",
        "collections",
        "extremum",
        _s("take the length of the longest word (0 if there are none)"),
        lambda a, ws: max((len(w) for w in ws), default=0),
        lambda a, names, src: _fold(
            names,
            src,
            "list[str]",
            lit(0),
            lambda w, out: [ir.Set(out, ir.Call2("max", v(out), ir.Len(w, "word")))],
            "best",
        ),
    ),
    "wjoin": Op(
        "list[str]",
        "str",
        "collections",
        "join",
        lambda a: f"join the words with '{a}' between neighbours",
        lambda a, ws: a.join(ws),
        _wjoin_emit,
        ("-", "+", ",", "/"),
    ),
    "winitials": Op(
        "list[str]",
        "str",
        "collections",
        "join",
        _s("take the first letter of each word, in order, as a string"),
        lambda a, ws: "".join(w[0] for w in ws),
        lambda a, names, src: _loop_build(
            names,
            src,
            "list[str]",
            "str",
            lambda w, out: [ir.Push(out, "str", ir.CodeAt(w, lit(0)))],
        ),
    ),
    "wlens": Op(
        "list[str]",
        "list[int]",
        "collections",
        "transform",
        _s("replace each word by its number of letters"),
        lambda a, ws: [len(w) for w in ws],
        lambda a, names, src: _loop_build(
            names,
            src,
            "list[str]",
            "list[int]",
            lambda w, out: [ir.Push(out, "list[int]", ir.Len(w, "word"))],
        ),
    ),
    # -- frequency tables
    "distinct": Op(
        "list[int]",
        "int",
        "frequency",
        "distinct",
        _s("count how many different values there are"),
        lambda a, xs: len(set(xs)),
        _freq_fold("list[int]", "distinct"),
    ),
    "dupcount": Op(
        "list[int]",
        "int",
        "frequency",
        "duplicates",
        _s("count how many different values appear more than once"),
        lambda a, xs: sum(1 for x in set(xs) if xs.count(x) > 1),
        _freq_fold("list[int]", "dupcount"),
    ),
    "maxfreq": Op(
        "list[int]",
        "int",
        "frequency",
        "mode",
        _s("find how many times the most frequent value appears (0 if none)"),
        lambda a, xs: max((xs.count(x) for x in xs), default=0),
        _freq_fold("list[int]", "maxfreq"),
    ),
    "mode": Op(
        "list[int]",
        "int",
        "frequency",
        "mode",
        _s("find the most frequent value (the smallest one on a tie, 0 if none)"),
        lambda a, xs: _mode(xs, True) if xs else 0,
        _freq_fold("list[int]", "mode"),
    ),
    "uniq": Op(
        "list[int]",
        "list[int]",
        "frequency",
        "distinct",
        _s("remove repeated values, keeping the first occurrence of each"),
        lambda a, xs: _first_unique(xs),
        _uniq_emit("list[int]"),
    ),
    "singles": Op(
        "list[int]",
        "list[int]",
        "frequency",
        "duplicates",
        _s("keep only the values that appear exactly once"),
        lambda a, xs: [x for x in xs if xs.count(x) == 1],
        _singles_emit,
    ),
    "cdistinct": Op(
        "str",
        "int",
        "frequency",
        "distinct",
        _s("count how many different characters it contains"),
        lambda a, s: len(set(s)),
        _freq_fold("str", "distinct"),
    ),
    "cmaxfreq": Op(
        "str",
        "int",
        "frequency",
        "mode",
        _s("find how many times its most frequent character appears (0 if empty)"),
        lambda a, s: max((s.count(ch) for ch in s), default=0),
        _freq_fold("str", "maxfreq"),
    ),
    "cdup": Op(
        "str",
        "int",
        "frequency",
        "duplicates",
        _s("count how many different characters appear more than once"),
        lambda a, s: sum(1 for ch in set(s) if s.count(ch) > 1),
        _freq_fold("str", "dupcount"),
    ),
    "cuniq": Op(
        "str",
        "str",
        "frequency",
        "distinct",
        _s("remove repeated characters, keeping the first occurrence of each"),
        lambda a, s: "".join(_first_unique(s)),
        _uniq_emit("str"),
    ),
    "wdistinct": Op(
        "list[str]",
        "int",
        "frequency",
        "distinct",
        _s("count how many different words there are"),
        lambda a, ws: len(set(ws)),
        _freq_fold("list[str]", "distinct"),
    ),
    "wmaxfreq": Op(
        "list[str]",
        "int",
        "frequency",
        "mode",
        _s("find how many times the most frequent word appears (0 if none)"),
        lambda a, ws: max((ws.count(w) for w in ws), default=0),
        _freq_fold("list[str]", "maxfreq"),
    ),
    "wuniq": Op(
        "list[str]",
        "list[str]",
        "frequency",
        "distinct",
        _s("remove repeated words, keeping the first occurrence of each"),
        lambda a, ws: _first_unique(ws),
        _uniq_emit("list[str]"),
    ),
    "wmode": Op(
        "list[str]",
        "str",
        "frequency",
        "mode",
        _s(
            "find the most frequent word (the one appearing first on a tie, the empty "
            "string if there are no words)"
        ),
        lambda a, ws: _mode(ws, False) or "",
        _wmode_emit,
    ),
}


@dataclass(frozen=True)
class Stage:
    """One stage of a pipeline: an operation id and its argument key."""

    op: str
    arg: str = ""

    @property
    def spec(self) -> Op:
        """The operation definition; raises KeyError for an unknown op."""
        return OPS[self.op]


def run_pipeline(stages: tuple[Stage, ...], value: Any) -> tuple[Any, list[Any]]:
    """Oracle: apply the stages to ``value``; returns (result, intermediate values)."""
    trace = []
    for stage in stages:
        value = stage.spec.run(stage.arg, value)
        trace.append(value)
    return value, trace


def emit_pipeline(
    stages: tuple[Stage, ...], param: str, out_type: str, negative: bool = False
) -> list[ir.Stmt]:
    """IR body of the pipeline (ends with a Return). ``negative`` makes it deliberately wrong:
    +1 on ints, negated bools, an extra '#' or 0 appended to strings and lists."""
    names = Names()
    body: list[ir.Stmt] = []
    src = param
    for stage in stages:
        stmts, src = stage.spec.emit(stage.arg, names, src)
        body += stmts
    result: ir.Expr = v(src)
    if negative:
        if out_type == "int":
            result = b("add", result, 1)
        elif out_type == "bool":
            result = ir.Un("not", result)
        elif out_type == "str":
            body.append(ir.Push(src, "str", lit(35)))
        else:
            body.append(ir.Push(src, "list[int]", lit(0)))
    body.append(ir.Return(result, out_type))
    return body
