"""Value types of smolscript program tasks and their wire format (stdin in, stdout out).

Every program job feeds a candidate's entry point through a harness (see ``drivers.py``): the
harness reads the arguments from stdin in the line format written by :func:`encode_stdin` and
prints the return value as :func:`canonical_output` spells it, framed with the job's nonce
(``smolscript.frames``: the nonce line comes before the arguments on stdin). The host compares
the expected value's canonical output exactly with the text of that frame in the job's stdout as
the scoring service reports it (invalid UTF-8 replaced, one final newline stripped, nothing
else changed: a carriage return stays, ``smolscript_sandbox.verdict``).

Wire format (one item per line, ``\\n`` line ends):
  * ``int``: the decimal number; ``bool``: ``true`` or ``false``; ``str``: the string itself;
  * ``list[int]`` / ``list[str]``: the item count, then one item per line.
Output: ints in decimal, bools as ``true``/``false``, strings verbatim, lists as their items
joined by single spaces (list[str] items never contain spaces and are never empty).

Typed results: the harnesses of the dynamically typed languages (``HarnessSpec.checks_types``:
Python, JavaScript, Lua) check the returned value against the declared return type before
printing it (exact types: a bool or a str is not an int, an int or a number is not a str, a
list's items are checked one by one, a dict, tuple, string or non-sequence table is not a
list; an integral float in the int32 range counts as an int, README "Numbers"). Every
harness, the statically typed languages' too, checks a ``str`` result's characters: printable
ASCII only (as :func:`check_value` defines ``str``; a carriage return, another control
character, a line end or a non-ASCII look-alike is a mismatch), and C's ``NULL`` / C#'s
``null`` is no string. A mismatch prints nothing: the harness writes one line
``TYPE_MISMATCH_PREFIX + "expected T, got U"`` to stderr and exits with status
``TYPE_MISMATCH_EXIT``; :func:`parse_type_mismatch` reads it back and the host judges that
test a ``wrong_answer`` naming both types. The line is trusted only to name why a test
failed: a candidate that prints it itself fails all the same.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from smolscript.errors import SignatureError

VALUE_TYPES: tuple[str, ...] = ("int", "bool", "str", "list[int]", "list[str]")
RETURN_TYPES: tuple[str, ...] = ("int", "bool", "str", "list[int]")
INT32_MIN = -(2**31)
INT32_MAX = 2**31 - 1
TYPE_MISMATCH_EXIT = 97
TYPE_MISMATCH_PREFIX = "smolscript-harness: result type mismatch: "
_TYPE_MISMATCH_LINE = re.compile(re.escape(TYPE_MISMATCH_PREFIX) + r"(expected [^\n]+)")


def validate_signature(signature: Mapping[str, Any]) -> None:
    """Check ``{"params": [{"name", "type"}...], "returns": type}``; raise SignatureError."""
    params = signature.get("params")
    if not isinstance(params, list) or not params:
        raise SignatureError("signature needs a non-empty 'params' list")
    names = set()
    for param in params:
        name, typ = param.get("name"), param.get("type")
        if not isinstance(name, str) or not name.isidentifier():
            raise SignatureError(f"bad parameter name {name!r}")
        if name in names:
            raise SignatureError(f"duplicate parameter name {name!r}")
        names.add(name)
        if typ not in VALUE_TYPES:
            raise SignatureError(
                f"parameter {name!r} has unknown type {typ!r}; valid: {VALUE_TYPES}"
            )
    if signature.get("returns") not in RETURN_TYPES:
        raise SignatureError(
            f"unknown return type {signature.get('returns')!r}; valid: {RETURN_TYPES}"
        )


def check_value(value: Any, typ: str) -> None:
    """Raise SignatureError unless ``value`` is a valid ``typ`` value (int32, printable ASCII)."""
    if typ == "int":
        if isinstance(value, bool) or not isinstance(value, int):
            raise SignatureError(f"expected int, got {value!r}")
        if not INT32_MIN <= value <= INT32_MAX:
            raise SignatureError(f"int {value} does not fit in 32 bits")
    elif typ == "bool":
        if not isinstance(value, bool):
            raise SignatureError(f"expected bool, got {value!r}")
    elif typ == "str":
        if not isinstance(value, str) or any(not (32 <= ord(ch) < 127) for ch in value):
            raise SignatureError(f"expected printable ASCII string, got {value!r}")
    elif typ == "list[int]":
        if not isinstance(value, list):
            raise SignatureError(f"expected list, got {value!r}")
        for item in value:
            check_value(item, "int")
    elif typ == "list[str]":
        if not isinstance(value, list):
            raise SignatureError(f"expected list, got {value!r}")
        for item in value:
            check_value(item, "str")
            if not item or " " in item:
                raise SignatureError(f"list[str] items must be non-empty without spaces: {item!r}")
    else:
        raise SignatureError(f"unknown type {typ!r}; valid: {VALUE_TYPES}")


def _encode_one(value: Any, typ: str) -> list[str]:
    if typ == "int":
        return [str(value)]
    if typ == "bool":
        return ["true" if value else "false"]
    if typ == "str":
        return [value]
    return [str(len(value))] + [str(item) for item in value]


def encode_stdin(args: Sequence[Any], signature: Mapping[str, Any]) -> str:
    """Encode positional ``args`` for the harness's stdin; raises SignatureError on a mismatch.

    Returns the lines described in the module docstring, each ended by ``\\n``.
    """
    validate_signature(signature)
    params = signature["params"]
    if len(args) != len(params):
        raise SignatureError(f"expected {len(params)} arguments, got {len(args)}")
    lines: list[str] = []
    for value, param in zip(args, params, strict=True):
        check_value(value, param["type"])
        lines.extend(_encode_one(value, param["type"]))
    return "".join(line + "\n" for line in lines)


def canonical_output(value: Any, typ: str) -> str:
    """The harness's stdout for ``value`` of return type ``typ``, after normalization.

    The service's stdout has one final newline stripped (and nothing else changed), so this
    string has no trailing newline. Raises SignatureError when the value does not match the type.
    """
    if typ not in RETURN_TYPES:
        raise SignatureError(f"unknown return type {typ!r}; valid: {RETURN_TYPES}")
    check_value(value, typ)
    if typ == "int":
        return str(value)
    if typ == "bool":
        return "true" if value else "false"
    if typ == "str":
        return value
    return " ".join(str(item) for item in value)


def parse_type_mismatch(exit_code: int | None, stderr: str) -> str | None:
    """``"expected T, got U"`` when a harness rejected a result's type, else None (pure).

    ``exit_code`` and ``stderr`` are one test run's; the last mismatch line of stderr counts,
    and only with exit status ``TYPE_MISMATCH_EXIT`` (module docstring).
    """
    if exit_code != TYPE_MISMATCH_EXIT:
        return None
    found = _TYPE_MISMATCH_LINE.findall(stderr or "")
    return found[-1].strip() if found else None
