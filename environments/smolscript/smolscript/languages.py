"""The one smolscript language table: ids, display names, job files, harnesses, signatures.

Everything about a language that is not emitted code lives here: scoring renders the complete
job files with :func:`render_job_files` (candidate source + harness) and sends them to the
scoring service, which runs them under the runtime of the same id (``smolscript_sandbox.
runtimes``: compile and run commands, limits); the dataset builder reads the signature
spelling (``prefix``, ``imports``, ``closing``); prompts read ``comment``. The code-emission
syntax of each program language is the builder's (``smolscript_builder.syntax``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from smolscript import drivers as _drivers
from smolscript.types import validate_signature

PROGRAM_LANGUAGES: tuple[str, ...] = ("python", "javascript", "cpp", "c", "lua", "csharp", "rust")
LANGUAGE_ORDER: tuple[str, ...] = (
    "python",
    "javascript",
    "html",
    "css",
    "cpp",
    "c",
    "lua",
    "csharp",
    "rust",
)


@dataclass(frozen=True)
class Signature:
    """How one language spells an entry point: parameter/return types and the opening lines.

    ``param`` maps a value type to a declaration template with ``{name}``; ``returns`` maps a
    return type to its spelling; ``extra_params`` adds trailing parameters for a return type
    (C's ``int *out_len``); ``header`` has ``{ret}``, ``{entry}`` and ``{params}``.
    """

    param: Mapping[str, str]
    returns: Mapping[str, str]
    header: str
    closing: str
    body_indent: str
    extra_params: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class LanguageSpec:
    """One row of the language table (program languages fill every field)."""

    id: str
    display_name: str
    modality: str  # "program" or "browser"
    comment: str  # line-comment opener used for task comments ("<!--"/"/*" for browser ones)
    extension: str
    source_name: str | None = None  # the job's main file (the runtime compiles/runs it)
    harness: _drivers.HarnessSpec | None = None
    signature: Signature | None = None
    imports: str = ""
    entry_point: str = "solve"

    def entry_header(self, signature: Mapping[str, Any]) -> str:
        """The function opening for ``signature`` (ends with a newline), e.g. ``def solve(n):``."""
        sig = self._require_signature()
        validate_signature(signature)
        params = [sig.param[p["type"]].format(name=p["name"]) for p in signature["params"]]
        extra = sig.extra_params.get(signature["returns"])
        if extra:
            params.append(extra)
        return sig.header.format(
            ret=sig.returns[signature["returns"]], entry=self.entry_point, params=", ".join(params)
        )

    def closing(self) -> str:
        """Text that closes the entry point after its body ('' for Python)."""
        return self._require_signature().closing

    def body_indent(self) -> str:
        """Indentation of the entry point's body statements."""
        return self._require_signature().body_indent

    def _require_signature(self) -> Signature:
        if self.signature is None:
            raise ValueError(f"{self.id} is a browser language without an entry point")
        return self.signature


_C_LIKE_RET = {"int": "int", "bool": "bool"}

LANGUAGES: dict[str, LanguageSpec] = {
    "python": LanguageSpec(
        id="python",
        display_name="Python",
        modality="program",
        comment="#",
        extension="py",
        source_name="main.py",
        harness=_drivers.PYTHON,
        signature=Signature(
            param={t: "{name}" for t in ("int", "bool", "str", "list[int]", "list[str]")},
            returns={t: "" for t in ("int", "bool", "str", "list[int]")},
            header="def {entry}({params}):\n",
            closing="",
            body_indent="    ",
        ),
    ),
    "javascript": LanguageSpec(
        id="javascript",
        display_name="JavaScript",
        modality="program",
        comment="//",
        extension="js",
        source_name="main.js",
        harness=_drivers.JAVASCRIPT,
        signature=Signature(
            param={t: "{name}" for t in ("int", "bool", "str", "list[int]", "list[str]")},
            returns={t: "" for t in ("int", "bool", "str", "list[int]")},
            header="function {entry}({params}) {{\n",
            closing="}\n",
            body_indent="  ",
        ),
    ),
    "html": LanguageSpec(
        id="html", display_name="HTML", modality="browser", comment="<!--", extension="html"
    ),
    "css": LanguageSpec(
        id="css", display_name="CSS", modality="browser", comment="/*", extension="css"
    ),
    "cpp": LanguageSpec(
        id="cpp",
        display_name="C++",
        modality="program",
        comment="//",
        extension="cpp",
        source_name="main.cpp",
        harness=_drivers.CPP,
        imports="#include <algorithm>\n#include <cstdlib>\n#include <string>\n#include <vector>\n",
        signature=Signature(
            param={
                "int": "int {name}",
                "bool": "bool {name}",
                "str": "std::string {name}",
                "list[int]": "std::vector<int> {name}",
                "list[str]": "std::vector<std::string> {name}",
            },
            returns={**_C_LIKE_RET, "str": "std::string", "list[int]": "std::vector<int>"},
            header="{ret} {entry}({params}) {{\n",
            closing="}\n",
            body_indent="    ",
        ),
    ),
    "c": LanguageSpec(
        id="c",
        display_name="C",
        modality="program",
        comment="//",
        extension="c",
        source_name="main.c",
        harness=_drivers.C,
        imports="#include <stdbool.h>\n#include <stdlib.h>\n#include <string.h>\n",
        signature=Signature(
            param={
                "int": "int {name}",
                "bool": "bool {name}",
                "str": "const char *{name}",
                "list[int]": "const int *{name}, int {name}_len",
                "list[str]": "char **{name}, int {name}_len",
            },
            returns={"int": "int ", "bool": "bool ", "str": "char *", "list[int]": "int *"},
            extra_params={"list[int]": "int *out_len"},
            header="{ret}{entry}({params}) {{\n",
            closing="}\n",
            body_indent="    ",
        ),
    ),
    "lua": LanguageSpec(
        id="lua",
        display_name="Lua",
        modality="program",
        comment="--",
        extension="lua",
        source_name="main.lua",
        harness=_drivers.LUA,
        signature=Signature(
            param={t: "{name}" for t in ("int", "bool", "str", "list[int]", "list[str]")},
            returns={t: "" for t in ("int", "bool", "str", "list[int]")},
            header="local function {entry}({params})\n",
            closing="end\n",
            body_indent="  ",
        ),
    ),
    "csharp": LanguageSpec(
        id="csharp",
        display_name="C#",
        modality="program",
        comment="//",
        extension="cs",
        source_name="main.cs",
        harness=_drivers.CSHARP,
        imports="using System;\nusing System.Collections.Generic;\nusing System.Linq;\n",
        entry_point="Solve",
        signature=Signature(
            param={
                "int": "int {name}",
                "bool": "bool {name}",
                "str": "string {name}",
                "list[int]": "List<int> {name}",
                "list[str]": "List<string> {name}",
            },
            returns={**_C_LIKE_RET, "str": "string", "list[int]": "List<int>"},
            header="public static class Solution\n{{\n    public static {ret} {entry}({params})\n"
            "    {{\n",
            closing="    }\n}\n",
            body_indent="        ",
        ),
    ),
    "rust": LanguageSpec(
        id="rust",
        display_name="Rust",
        modality="program",
        comment="//",
        extension="rs",
        source_name="main.rs",
        harness=_drivers.RUST,
        signature=Signature(
            param={
                "int": "{name}: i32",
                "bool": "{name}: bool",
                "str": "{name}: &str",
                "list[int]": "{name}: &[i32]",
                "list[str]": "{name}: &[String]",
            },
            returns={"int": "i32", "bool": "bool", "str": "String", "list[int]": "Vec<i32>"},
            header="fn {entry}({params}) -> {ret} {{\n",
            closing="}\n",
            body_indent="    ",
        ),
    ),
}


def get_language(language: str) -> LanguageSpec:
    """Look up a language id; raises KeyError naming the valid ids."""
    try:
        return LANGUAGES[language]
    except KeyError:
        raise KeyError(f"unknown language {language!r}; valid: {sorted(LANGUAGES)}") from None


def render_job_files(
    language: str, source: str, signature: Mapping[str, Any], entry_point: str | None = None
) -> dict[str, str]:
    """Files of one program job: ``{source_name: candidate source + harness}`` (pure).

    ``source`` is the complete candidate source (imports, header, body). Raises KeyError for an
    unknown language, ValueError for a browser language, SignatureError for a bad signature.
    """
    spec = get_language(language)
    if spec.harness is None or spec.source_name is None:
        raise ValueError(f"{language} is not a program language")
    entry = entry_point or spec.entry_point
    return {
        spec.source_name: _drivers.render_harnessed_source(spec.harness, source, entry, signature)
    }
