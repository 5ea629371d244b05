"""Lexical scope extractors: where does a definition that starts at a given offset end?

Used by `assemble.py` to keep the first completed function/class body of a model's
continuation and drop what follows. These are constrained completion delimiters, not
parsers: they only skip what can hide a delimiter (strings, comments, character literals,
regex/raw/verbatim strings) and count the delimiters that open and close a scope.

- Python: indentation tokens from the standard `tokenize` module.
- Braced languages (JavaScript, C, C++, C#, Rust, CSS): `{`/`}` counting driven by a small
  per-language `LexSpec` (registered in `LEXICAL_SPECS`, one row per language).
- Lua: block keywords (`function`, `if`, `do`, `repeat` open; `end`, `until` close).

Every extractor is `(code, start) -> end | None`: `end` is the offset just past the
definition that begins at `start`; None means the definition never closes (unfinished
text, or a malformed one), in which case callers keep the text as it is: nothing is repaired.
"""

from __future__ import annotations

import io
import re
import tokenize
from collections.abc import Callable, Iterator
from dataclasses import dataclass

ScopeEnd = Callable[[str, int], "int | None"]

# --------------------------------------------------------------------------- Python


def _line_offsets(code: str) -> list[int]:
    """Offsets of the start of each 1-based line (index 0 unused)."""
    offsets = [0, 0]
    for i, ch in enumerate(code):
        if ch == "\n":
            offsets.append(i + 1)
    return offsets


def _offset(lines: list[int], pos: tuple[int, int], code: str) -> int:
    row, col = pos
    return len(code) if row >= len(lines) else lines[row] + col


def _python_statement_ends(code: str, start: int) -> Iterator[tuple[int, int, str]]:
    """Yield (start, end offset, first token) of each complete top-level statement from `start`.

    `start` must be at the beginning of a line of a top-level statement. A compound
    statement ends when its indented block is closed by a DEDENT back to column 0 (or by the
    end of the text); a simple statement ends at its NEWLINE token. Stops silently at the first
    tokenizer error or at an unfinished statement: those are left for the sandbox to reject.
    """
    text = code[start:]
    lines = _line_offsets(text)
    depth = 0
    first: str | None = None
    first_at = 0
    last_newline_end: int | None = None
    expects_block = False
    prev_significant = ""
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            kind = tok.type
            if kind in (tokenize.COMMENT, tokenize.NL, tokenize.ENCODING):
                continue
            if kind == tokenize.ERRORTOKEN and first is None and not tok.string.strip():
                continue
            if kind == tokenize.INDENT:
                depth += 1
                expects_block = False
                continue
            if expects_block:
                return  # a header without an indented block: malformed, left as is
            if kind == tokenize.DEDENT:
                depth -= 1
                if depth == 0 and first is not None and last_newline_end is not None:
                    yield start + first_at, start + last_newline_end, first
                    first = None
                continue
            if kind == tokenize.ENDMARKER:
                if depth == 0 and first is not None and last_newline_end is not None:
                    yield start + first_at, start + last_newline_end, first
                return
            if kind == tokenize.NEWLINE:
                last_newline_end = _offset(lines, tok.end, text)
                if tok.string == "":
                    last_newline_end = len(text)
                expects_block = prev_significant == ":"
                if depth == 0 and first is not None and not expects_block:
                    yield start + first_at, start + last_newline_end, first
                    first = None
                continue
            if first is None:
                if depth != 0 or tok.start[1] != 0:
                    return
                first = tok.string
                first_at = _offset(lines, tok.start, text)
            prev_significant = tok.string
            if kind == tokenize.ERRORTOKEN:
                # Prose with a stray quote or backtick: never part of a definition.
                return
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return


def python_scope_end(code: str, start: int) -> int | None:
    """End offset of the top-level Python definition starting at line offset `start`."""
    for _start, end, _first in _python_statement_ends(code, start):
        return end
    return None


def python_helpers_end(code: str, start: int, entry_point: str) -> int:
    """Extend a definition ending at `start` over following module-level helpers.

    Keeps consecutive top-level `def`/`class`/`import`/`from`/decorated statements (a
    redefinition of `entry_point` stops it: it would replace the first definition) and
    returns the new end offset, or `start` when the next statement is anything else.
    """
    end = start
    redefinition = re.compile(rf"(?:async\s+)?def\s+{re.escape(entry_point)}\b")
    for stmt_start, stmt_end, first in _python_statement_ends(code, start):
        if first not in ("def", "class", "import", "from", "async", "@"):
            break
        if redefinition.match(code, stmt_start):
            break
        end = stmt_end
    return end


# --------------------------------------------------------------------------- braced


@dataclass(frozen=True)
class LexSpec:
    """What can hide a brace in one braced language.

    quotes: string delimiters with backslash escapes. char_literal: regex of a character
    literal (tried where a `'` is not a string quote). raw: regexes whose whole match is an
    opaque literal (raw strings, verbatim strings, C++ raw strings are handled by `cpp_raw`).
    template: JavaScript template literals with `${...}` code holes. regex_literals: JavaScript
    `/.../flags` in expression position. interpolated: C# `$"..."` with `{...}` code holes.
    """

    line_comment: str | None = "//"
    block_comment: tuple[str, str] | None = ("/*", "*/")
    nested_block_comments: bool = False
    quotes: tuple[str, ...] = ('"',)
    char_literal: re.Pattern[str] | None = None
    raw: tuple[re.Pattern[str], ...] = ()
    cpp_raw: bool = False
    template: bool = False
    regex_literals: bool = False
    interpolated: bool = False
    open: str = "{"
    close: str = "}"


_C_CHAR = re.compile(r"'(?:\\.|[^\\'\n])+'")
_RUST_CHAR = re.compile(r"'(?:\\(?:u\{[0-9a-fA-F]{1,6}\}|x[0-9a-fA-F]{2}|.)|[^\\'\n])'")
_RUST_RAW = re.compile(r'(?<![A-Za-z0-9_])b?r(#*)"(?:.|\n)*?"\1')
_CS_VERBATIM = re.compile(r'(?<![A-Za-z0-9_$])@"(?:[^"]|"")*"')
_CPP_RAW_OPEN = re.compile(r'(?<![A-Za-z0-9_])(?:u8|[uUL])?R"([^()\\\s]{0,16})\(')
_IDENT_CHAR = re.compile(r"[A-Za-z0-9_$]")
_JS_REGEX_AFTER_WORDS = frozenset(
    "return typeof case do else in of new delete void throw instanceof yield await".split()
)
_JS_REGEX_AFTER_CHARS = frozenset("(,=:[!&|?{};+-*%<>~^")

LEXICAL_SPECS: dict[str, LexSpec] = {
    "javascript": LexSpec(quotes=('"', "'"), template=True, regex_literals=True),
    "c": LexSpec(char_literal=_C_CHAR),
    "cpp": LexSpec(char_literal=_C_CHAR, cpp_raw=True),
    "csharp": LexSpec(char_literal=_C_CHAR, raw=(_CS_VERBATIM,), interpolated=True),
    "rust": LexSpec(char_literal=_RUST_CHAR, raw=(_RUST_RAW,), nested_block_comments=True),
    "css": LexSpec(line_comment=None, quotes=('"', "'")),
}


def _skip_quoted(code: str, i: int, quote: str) -> int:
    """Index just past the string opened by `quote` at i (backslash escapes); len on EOF."""
    j = i + 1
    while j < len(code):
        ch = code[j]
        if ch == "\\":
            j += 2
            continue
        if ch == quote:
            return j + 1
        j += 1
    return len(code)


def _skip_block_comment(code: str, i: int, spec: LexSpec) -> int:
    opener, closer = spec.block_comment  # type: ignore[misc]
    depth = 1
    j = i + len(opener)
    while j < len(code):
        if spec.nested_block_comments and code.startswith(opener, j):
            depth += 1
            j += len(opener)
        elif code.startswith(closer, j):
            depth -= 1
            j += len(closer)
            if depth == 0:
                return j
        else:
            j += 1
    return len(code)


def _skip_with_holes(code: str, i: int, spec: LexSpec, quote: str, hole: str,
                     verbatim: bool) -> int:
    """Skip a JS template literal or C# interpolated string whose `hole` opens code."""
    j = i
    while j < len(code):
        ch = code[j]
        if ch == "\\" and not verbatim:
            j += 2
            continue
        if verbatim and code.startswith(quote * 2, j):
            j += 2
            continue
        if ch == quote:
            return j + 1
        if hole == "{" and code.startswith("{{", j):
            j += 2
            continue
        if code.startswith(hole, j):
            j = _skip_code_hole(code, j + len(hole), spec)
            continue
        j += 1
    return len(code)


def _skip_code_hole(code: str, i: int, spec: LexSpec) -> int:
    """Skip the code inside an interpolation hole up to and past its closing brace."""
    depth = 0
    for delta, end in _brace_events(code, i, spec):
        depth += delta
        if depth < 0:
            return end
    return len(code)


def _js_regex_allowed(code: str, i: int) -> bool:
    j = i - 1
    while j >= 0 and code[j] in " \t\n":
        j -= 1
    if j < 0:
        return True
    if code[j] in _JS_REGEX_AFTER_CHARS:
        return True
    k = j
    while k >= 0 and _IDENT_CHAR.match(code[k]):
        k -= 1
    return code[k + 1:j + 1] in _JS_REGEX_AFTER_WORDS


def _skip_js_regex(code: str, i: int) -> int | None:
    """Index past a regex literal starting at i, or None when it is not one (no closing `/`)."""
    j = i + 1
    in_class = False
    while j < len(code) and code[j] != "\n":
        ch = code[j]
        if ch == "\\":
            j += 2
            continue
        if ch == "[":
            in_class = True
        elif ch == "]":
            in_class = False
        elif ch == "/" and not in_class:
            j += 1
            while j < len(code) and code[j].isalpha():
                j += 1
            return j
        j += 1
    return None


def _skip_literal(code: str, i: int, spec: LexSpec) -> int | None:
    """If a comment or literal starts at i, the index just past it; else None."""
    ch = code[i]
    if spec.line_comment and code.startswith(spec.line_comment, i):
        nl = code.find("\n", i)
        return len(code) if nl < 0 else nl
    if spec.block_comment and code.startswith(spec.block_comment[0], i):
        return _skip_block_comment(code, i, spec)
    for pattern in spec.raw:
        m = pattern.match(code, i)
        if m:
            return m.end()
    if spec.cpp_raw:
        m = _CPP_RAW_OPEN.match(code, i)
        if m:
            close = code.find(f"){m.group(1)}\"", m.end())
            return len(code) if close < 0 else close + len(m.group(1)) + 2
    if spec.interpolated and ch in "$@":
        m = re.compile(r'(?<![A-Za-z0-9_])(\$@|@\$|\$)"').match(code, i)
        if m:
            return _skip_with_holes(code, m.end(), spec, '"', "{", "@" in m.group(1))
    if spec.template and ch == "`":
        return _skip_with_holes(code, i + 1, spec, "`", "${", False)
    if ch in spec.quotes:
        return _skip_quoted(code, i, ch)
    if ch == "'" and spec.char_literal is not None:
        m = spec.char_literal.match(code, i)
        if m:
            return m.end()
    if spec.regex_literals and ch == "/" and _js_regex_allowed(code, i):
        return _skip_js_regex(code, i)
    return None


def _brace_events(code: str, start: int, spec: LexSpec) -> Iterator[tuple[int, int]]:
    """Yield (+1 | -1, offset just past the brace) for each brace outside literals."""
    i = start
    n = len(code)
    while i < n:
        skipped = _skip_literal(code, i, spec)
        if skipped is not None:
            i = skipped
            continue
        ch = code[i]
        if ch == spec.open:
            yield 1, i + 1
        elif ch == spec.close:
            yield -1, i + 1
        i += 1


def braced_scope_end(spec: LexSpec) -> ScopeEnd:
    """Scope extractor for one braced language: the first time depth returns to zero."""

    def scope_end(code: str, start: int) -> int | None:
        depth = 0
        for delta, end in _brace_events(code, start, spec):
            depth += delta
            if depth <= 0:
                return end if delta < 0 and depth == 0 else None
        return None

    return scope_end


def braced_top_level_ends(code: str, start: int, spec: LexSpec) -> list[int]:
    """Offsets just past every brace that brings the depth back to zero (CSS rules)."""
    ends: list[int] = []
    depth = 0
    for delta, end in _brace_events(code, start, spec):
        depth = max(0, depth + delta)
        if delta < 0 and depth == 0:
            ends.append(end)
    return ends


# --------------------------------------------------------------------------- Lua

_LUA_LONG_OPEN = re.compile(r"\[(=*)\[")
_LUA_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_LUA_NUMBER = re.compile(r"\d[\w.]*(?:[eEpP][+-]\d+)?")
_LUA_OPENERS = frozenset(("function", "if", "do", "repeat"))
_LUA_CLOSERS = frozenset(("end", "until"))


def _lua_skip_long(code: str, i: int) -> int | None:
    m = _LUA_LONG_OPEN.match(code, i)
    if not m:
        return None
    close = code.find("]" + m.group(1) + "]", m.end())
    return len(code) if close < 0 else close + len(m.group(1)) + 2


def _lua_block_events(code: str, start: int) -> Iterator[tuple[int, int]]:
    """Yield (+1 | -1, offset past the keyword) for Lua block keywords outside literals."""
    i = start
    n = len(code)
    while i < n:
        ch = code[i]
        if code.startswith("--", i):
            long_end = _lua_skip_long(code, i + 2)
            if long_end is not None:
                i = long_end
            else:
                nl = code.find("\n", i)
                i = n if nl < 0 else nl
            continue
        if ch in "\"'":
            i = _skip_quoted(code, i, ch)
            continue
        if ch == "[":
            long_end = _lua_skip_long(code, i)
            if long_end is not None:
                i = long_end
                continue
        m = _LUA_WORD.match(code, i) if (ch.isalpha() or ch == "_") else None
        if m:
            word = m.group(0)
            if word in _LUA_OPENERS:
                yield 1, m.end()
            elif word in _LUA_CLOSERS:
                yield -1, m.end()
            i = m.end()
            continue
        m = _LUA_NUMBER.match(code, i) if ch.isdigit() else None
        i = m.end() if m else i + 1


def lua_scope_end(code: str, start: int) -> int | None:
    """End offset of the Lua definition starting at `start` (block keyword counting)."""
    depth = 0
    for delta, end in _lua_block_events(code, start):
        depth += delta
        if depth <= 0:
            return end if delta < 0 and depth == 0 else None
    return None


# --------------------------------------------------------------------------- table

SCOPE_EXTRACTORS: dict[str, ScopeEnd] = {
    "python": python_scope_end,
    "lua": lua_scope_end,
    **{lang: braced_scope_end(spec) for lang, spec in LEXICAL_SPECS.items() if lang != "css"},
}
