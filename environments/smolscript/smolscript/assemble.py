"""Assembly: turn a model's raw text into the source code that the sandbox evaluates.

Two entry points, both pure and answer-independent:

- `assemble_completion(task, continuation)`: the task's supplied head (imports + prefix) is
  joined to the raw continuation and the first completed definition is kept (see `scopes.py`);
  trailing prose is dropped. A single fenced block, or a complete entry-point definition
  written from scratch, is accepted instead of a bare body.
- `assemble_prediction(task, code)`: complete source from elsewhere (raw, or one fenced block),
  used by the standalone evaluator; the prefix is not attached.

Nothing is repaired: no delimiter, indentation, return or closing suffix is ever invented.
A definition that never closes is kept as written (the sandbox then reports it); several or
unfinished fences are rejected (code None, with a reason). Normalisation is limited to
CRLF/CR -> LF and removing end-of-turn markers at the very end of the text (the collection's one
table, `smol_envs_core.adapters.markers`); a marker that is legal source text in the task's language
(`</s>` in HTML) is never removed, and markers inside the code are never cut.

Web tasks (stop rules, documented in the README):
- HTML: prefix + continuation, cut at the first fence line and after the first `</html>`;
  trailing text after the last `>` that holds no further `<` (prose) is dropped.
- CSS: prefix + continuation, cut at the first fence line; trailing text after the last
  top-level `}` that opens no further `{` (prose) is dropped.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from smol_envs_core.adapters.markers import strip_end_of_turn

from smolscript import scopes

ASSEMBLY_VERSION = "smolscript-assembly-v1"

# End-of-turn markers that are legal source text in a language, never stripped from its code.
LEGAL_MARKERS: dict[str, tuple[str, ...]] = {"html": ("</s>",)}
_FENCE_LINE = re.compile(r"^[ \t]*(?:```+|~~~+)[^\n]*$", re.M)

# Where a complete definition of the entry point starts, per program language.
# `{ep}` is the entry point name, `{cls}` the class the C# prefix opens.
DEFINITION_PATTERNS: dict[str, str] = {
    "python": r"^(?:async[ \t]+)?def[ \t]+{ep}[ \t]*\(",
    "javascript": (r"^[ \t]*(?:export[ \t]+)?(?:async[ \t]+)?function[ \t]*\*?[ \t]*{ep}[ \t]*\("
                   r"|^[ \t]*(?:export[ \t]+)?(?:const|let|var)[ \t]+{ep}[ \t]*="),
    "c": r"^[A-Za-z_][^\n;(]*\b{ep}[ \t]*\([^;]*?\)[ \t\n]*\{{",
    "cpp": r"^[A-Za-z_][^\n;(]*\b{ep}[ \t]*\([^;]*?\)[ \t\n]*(?:const[ \t\n]*)?\{{",
    "csharp": r"^[ \t]*(?:(?:public|internal|static|sealed|partial)[ \t]+)*class[ \t]+{cls}\b",
    "rust": r"^[ \t]*(?:pub(?:\([^)\n]*\))?[ \t]+)?fn[ \t]+{ep}\b",
    "lua": (r"^[ \t]*(?:local[ \t]+)?function[ \t]+{ep}[ \t]*\("
            r"|^[ \t]*(?:local[ \t]+)?{ep}[ \t]*=[ \t]*function\b"),
}
WEB_LANGUAGES = frozenset(("html", "css"))


@dataclass(frozen=True)
class Assembly:
    """The result of assembly.

    code: the evaluated source (ends with one newline), or None when rejected.
    mode: "continuation" (prefix + body), "fenced_body", "from_scratch", "prediction",
      "markup" (web) or "rejected".
    note: why it was rejected, or a remark such as "unclosed" (kept as written).
    """

    code: str | None
    mode: str
    note: str = ""

    @property
    def ok(self) -> bool:
        """True when the completion assembled into a program (no rejection reason)."""
        return self.code is not None


# --------------------------------------------------------------------------- helpers


def normalize(text: str, language: str) -> str:
    """CRLF/CR -> LF, then end-of-turn markers removed from the very end (except the markers
    that are legal text in `language`)."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    return strip_end_of_turn(text, keep=LEGAL_MARKERS.get(language, ()))


def _finish(code: str) -> str:
    return code if code.endswith("\n") else code + "\n"


def _lines(value: Any) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [line for line in value.splitlines() if line.strip()]
    return [str(line) for line in value]


def code_head(task: Mapping[str, Any]) -> str:
    """The supplied import lines, one per line (the dataset's references start the same way)."""
    return "".join(line + "\n" for line in _lines(task.get("imports")))


@dataclass(frozen=True)
class _Fence:
    content: str | None
    error: str = ""


def _single_fence(text: str) -> _Fence | None:
    """The content of the one fenced block in `text`; None when there is no fence."""
    fences = list(_FENCE_LINE.finditer(text))
    if not fences:
        return None
    if len(fences) == 1:
        return _Fence(None, "unfinished_fence")
    if len(fences) > 2:
        return _Fence(None, "multiple_fences")
    return _Fence(text[fences[0].end() + 1: fences[1].start()])


def _definition(language: str, task: Mapping[str, Any], text: str) -> re.Match[str] | None:
    template = DEFINITION_PATTERNS[language]
    cls = re.search(r"\bclass[ \t]+(\w+)", str(task.get("prefix") or ""))
    pattern = template.format(ep=re.escape(str(task["entry_point"])),
                              cls=re.escape(cls.group(1)) if cls else r"\w+")
    return re.compile(pattern, re.M).search(text)


def _missing_imports(task: Mapping[str, Any], text: str) -> str:
    present = {line.strip() for line in text.splitlines()}
    missing = [line for line in _lines(task.get("imports")) if line.strip() not in present]
    return "".join(line + "\n" for line in missing)


def _cut_definition(language: str, code: str, start: int, entry_point: str) -> tuple[str, str]:
    """Keep `code` up to the end of the definition starting at `start`: (code, note)."""
    end = scopes.SCOPE_EXTRACTORS[language](code, start)
    if end is None:
        return _finish(code), "unclosed"
    if language == "python":
        extended = scopes.python_helpers_end(code, end, entry_point)
        if extended > end and _parses(code[:extended]):
            end = extended
    elif code[end:].lstrip(" \t").startswith(";"):
        end = code.index(";", end) + 1
    return _finish(code[:end]), ""


def _parses(source: str) -> bool:
    try:
        ast.parse(source)
    except (SyntaxError, ValueError):
        return False
    return True


def _from_scratch(language: str, task: Mapping[str, Any], text: str, mode: str) -> Assembly:
    code = _missing_imports(task, text) + text
    match = _definition(language, task, code)
    if match is None:
        return Assembly(_finish(code), mode, "no_definition")
    start = code.rfind("\n", 0, match.start()) + 1
    kept, note = _cut_definition(language, code, start, str(task["entry_point"]))
    return Assembly(kept, mode, note)


def _starts_from_scratch(language: str, task: Mapping[str, Any], text: str) -> bool:
    """True when the text is a complete definition rather than a body.

    Python: the first code line is at column 0 (a body is always indented) and the entry
    point is defined somewhere. Other languages: the definition follows directly after
    leading blank, import/include/using and comment lines.
    """
    match = _definition(language, task, text)
    if match is None:
        return False
    if language == "python":
        first = next((ln for ln in text.splitlines() if ln.strip() and not ln.startswith("#")), "")
        return first[:1] not in (" ", "\t")
    return match.start() <= _leading_code_len(text)


def _leading_code_len(text: str) -> int:
    """Length of leading blank, import/include/using and comment lines (file header)."""
    header = re.compile(
        r"(?:[ \t]*(?:$|#|//|--|/\*|\*|import\b|from\b|using\b|use\b|const\b[^\n]*require\()"
        r"[^\n]*\n)*"
    )
    return header.match(text).end()  # type: ignore[union-attr]


# --------------------------------------------------------------------------- program


def _assemble_program(task: Mapping[str, Any], continuation: str) -> Assembly:
    language = str(task["language"])
    prefix = str(task["prefix"])
    text = normalize(continuation, language)
    stripped = text.lstrip("\n")
    mode = "continuation"
    if _FENCE_LINE.match(stripped):
        fence = _single_fence(stripped)
        if fence is None or fence.content is None:
            return Assembly(None, "rejected", fence.error if fence else "fence")
        text = fence.content
        mode = "fenced_body"
        if _definition(language, task, text) is not None:
            return _from_scratch(language, task, text, "from_scratch")
    elif _starts_from_scratch(language, task, stripped):
        return _from_scratch(language, task, stripped, "from_scratch")
    head = code_head(task)
    code = head + prefix + text
    start = len(head) + (_python_definition_line(prefix) if language == "python" else 0)
    kept, note = _cut_definition(language, code, start, str(task["entry_point"]))
    return Assembly(kept, mode, note)


def _python_definition_line(prefix: str) -> int:
    """Offset of the top-level `def`/`async def`/decorator line that the prefix opens."""
    starts = [m.start() for m in re.finditer(r"^(?:@|def\b|async\b|class\b)", prefix, re.M)]
    return starts[0] if starts else 0


# --------------------------------------------------------------------------- web


def _cut_at_fence(text: str) -> str:
    m = _FENCE_LINE.search(text)
    return text if m is None else text[: m.start()]


def _assemble_html(code: str) -> str:
    code = _cut_at_fence(code)
    end_html = re.search(r"</html\s*>", code, re.I)
    if end_html:
        code = code[: end_html.end()]
    last = code.rfind(">")
    if last >= 0 and "<" not in code[last + 1:]:
        code = code[: last + 1]
    return _finish(code)


def _assemble_css(code: str) -> str:
    code = _cut_at_fence(code)
    ends = scopes.braced_top_level_ends(code, 0, scopes.LEXICAL_SPECS["css"])
    if ends and "{" not in code[ends[-1]:]:
        code = code[: ends[-1]]
    return _finish(code)


_WEB_ASSEMBLERS = {"html": _assemble_html, "css": _assemble_css}


def _assemble_web(task: Mapping[str, Any], text: str, with_prefix: bool) -> Assembly:
    language = str(task["language"])
    text = normalize(text, language)
    stripped = text.lstrip("\n")
    # A completion may open with a fence; a prediction may hold its one fence anywhere.
    if _FENCE_LINE.match(stripped) or (not with_prefix and _FENCE_LINE.search(stripped)):
        fence = _single_fence(stripped)
        if fence is None or fence.content is None:
            return Assembly(None, "rejected", fence.error if fence else "fence")
        return Assembly(_WEB_ASSEMBLERS[language](fence.content), "fenced_body")
    source = (str(task.get("prefix") or "") if with_prefix else "") + text
    return Assembly(_WEB_ASSEMBLERS[language](source), "markup" if with_prefix else "prediction")


# --------------------------------------------------------------------------- public


def assemble_completion(task: Mapping[str, Any], continuation: str) -> Assembly:
    """Assemble a raw model continuation of the task's prompt into evaluated code.

    task: a dataset row with `language`, `prefix`, `entry_point` and `imports`.
    Raises KeyError when one of those fields is missing.
    """
    if task["language"] in WEB_LANGUAGES:
        return _assemble_web(task, continuation, with_prefix=True)
    return _assemble_program(task, continuation)


def assemble_prediction(task: Mapping[str, Any], code: str) -> Assembly:
    """Assemble externally supplied complete source (raw, or a single fenced block).

    The prefix is not attached; supplied imports the code lacks are added, and trailing
    prose after the entry-point definition is dropped as in `assemble_completion`.
    """
    language = str(task["language"])
    if language in WEB_LANGUAGES:
        return _assemble_web(task, code, with_prefix=False)
    text = normalize(code, language)
    fence = _single_fence(text)
    if fence is not None:
        if fence.content is None:
            return Assembly(None, "rejected", fence.error)
        text = fence.content
    return _from_scratch(language, task, text, "prediction")


def body_of_reference(task: Mapping[str, Any], reference: str) -> str:
    """The continuation a perfect model would write: the reference after the prefix.

    Raises ValueError when the reference does not contain the task's prefix.
    """
    prefix = str(task["prefix"])
    at = reference.find(prefix)
    if at < 0:
        raise ValueError(f"{task.get('id')}: reference does not contain the prefix")
    return reference[at + len(prefix):]


def sources_equal(language: str, left: str, right: str) -> bool:
    """Python: AST-equal; other languages: equal up to trailing whitespace at the end."""
    if language == "python":
        try:
            return ast.dump(ast.parse(left)) == ast.dump(ast.parse(right))
        except SyntaxError:
            return False
    return left.rstrip() == right.rstrip()
