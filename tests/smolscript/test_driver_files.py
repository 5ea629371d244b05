"""The harness templates are real source files: each compiles in its language as it stands."""

from __future__ import annotations

import ast
import subprocess

import pytest
from smolscript import drivers
from smolscript.languages import LANGUAGES, PROGRAM_LANGUAGES

from tests.smolscript._toolchains import RUSTC

pytestmark = pytest.mark.integration


HARNESS_CHECKS = {  # each template file, as it is on disk, is valid code in its language
    "python.py": None,
    "javascript.js": ["/usr/bin/node", "--check", "{path}"],
    "c.c": ["/usr/bin/gcc", "-std=c11", "-fsyntax-only", "{path}"],
    "cpp.cpp": ["/usr/bin/g++", "-std=c++17", "-fsyntax-only", "{path}"],
    "lua.lua": ["/usr/bin/luac5.4", "-p", "{path}"],
    "csharp.cs": ["/usr/bin/mcs", "-out:{dir}/h.exe", "{path}"],
    "rust.rs": [RUSTC, "--edition", "2021", "--emit=metadata", "-o", "{dir}/h.rmeta", "{path}"],
}


@pytest.mark.parametrize("name", sorted(HARNESS_CHECKS))
def test_harness_templates_are_real_source_files(name, tmp_path):
    """A reviewer of the language reads the template as code: it compiles as it stands (its
    slots are comment lines), and every program language's harness names its file."""
    text = drivers.template(name)
    assert [line.strip() for line in text.splitlines() if "@@" in line][0].endswith("@@SOURCE@@")
    path = tmp_path / name
    path.write_text(text)
    argv = HARNESS_CHECKS[name]
    if argv is None:
        ast.parse(text)
        return
    argv = [a.replace("{path}", str(path)).replace("{dir}", str(tmp_path)) for a in argv]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    assert name in {LANGUAGES[lang].harness.template_file for lang in PROGRAM_LANGUAGES}
