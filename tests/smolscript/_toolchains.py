"""Test helper: syntax/compile checks and unsandboxed runs of generated program sources.

Only for tests of generated references (trusted code): model output is never run this way.
Each checker writes the harnessed sources into a temp folder and compiles them in as few
compiler invocations as the toolchain allows, returning ``{task id: error text}`` for failures.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from smolscript.frames import harness_stdin, new_nonce, read_result
from smolscript.languages import get_language, render_job_files
from smolscript_sandbox.runtimes import C_FLAGS, CPP_FLAGS, RUNTIMES, expand_argv
from smolscript_sandbox.verdict import normalize_stdout

RUSTC = "/opt/rust/bin/rustc" if os.path.exists("/opt/rust/bin/rustc") else shutil.which("rustc")
TOOLS = {
    "javascript": "/usr/bin/node",
    "c": "/usr/bin/gcc",
    "cpp": "/usr/bin/g++",
    "lua": "/usr/bin/luac5.4",
    "csharp": "/usr/bin/mcs",
    "rust": RUSTC,
    "python": "/usr/bin/python3",
}


def missing_tools(languages: Sequence[str]) -> list[str]:
    """Languages whose toolchain is absent on this machine."""
    return [lang for lang in languages if not (TOOLS[lang] and os.path.exists(TOOLS[lang]))]


def _write(
    folder: Path, items: Sequence[tuple[str, str, Mapping[str, Any], str]]
) -> list[tuple[str, Path]]:
    paths = []
    for index, (identifier, language, signature, source) in enumerate(items):
        spec = get_language(language)
        (folder / f"t{index}").mkdir()
        files = render_job_files(language, source, signature)
        path = folder / f"t{index}" / spec.source_name
        path.write_text(files[spec.source_name])
        paths.append((identifier, path))
    return paths


def _run(argv: list[str]) -> tuple[int, str]:
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=300)
    return proc.returncode, proc.stdout + proc.stderr


def _per_file(paths: list[tuple[str, Path]], make_argv, workers: int = 2) -> dict[str, str]:
    def one(item: tuple[str, Path]) -> tuple[str, int, str]:
        identifier, path = item
        code, text = _run(make_argv(path))
        return identifier, code, text

    with ThreadPoolExecutor(workers) as pool:
        results = list(pool.map(one, paths))
    return {identifier: text for identifier, code, text in results if code != 0}


def _combined(language: str, paths: list[tuple[str, Path]], folder: Path) -> Path:
    """One file holding every harnessed source in its own block/namespace/module."""
    parts: list[str] = []
    hoisted: list[str] = []
    for index, (_, path) in enumerate(paths):
        lines = path.read_text().split("\n")
        if language == "cpp":
            hoisted += [ln for ln in lines if ln.startswith("#include")]
            body = "\n".join(ln for ln in lines if not ln.startswith("#include"))
            parts.append(f"namespace t{index} {{\n{body}\n}}\n")
        elif language == "csharp":
            usings = [ln for ln in lines if ln.startswith("using ")]
            body = "\n".join(ln for ln in lines if not ln.startswith("using "))
            parts.append(f"namespace T{index} {{\n" + "\n".join(usings) + f"\n{body}\n}}\n")
        elif language == "javascript":  # a block scopes each file's let/const declarations
            parts.append("{\n" + "\n".join(lines) + "\n}\n")
        else:  # rust
            parts.append(f"mod t{index} {{\n#![allow(warnings)]\n" + "\n".join(lines) + "\n}\n")
    head = "\n".join(sorted(set(hoisted))) + "\n" if hoisted else ""
    tail = (
        "int main() { return 0; }\n"
        if language == "cpp"
        else ("fn main() {}\n" if language == "rust" else "")
    )
    names = {"cpp": "all.cpp", "csharp": "all.cs", "rust": "all.rs", "javascript": "all.js"}
    target = folder / names[language]
    target.write_text(head + "\n".join(parts) + tail)
    return target


def _single_argv(language: str) -> callable:
    if language == "c":
        return lambda p: [TOOLS["c"], *C_FLAGS, "-fsyntax-only", str(p)]
    if language == "cpp":
        return lambda p: [TOOLS["cpp"], *CPP_FLAGS, "-fsyntax-only", str(p)]
    if language == "csharp":
        return lambda p: [
            TOOLS["csharp"],
            "-langversion:7.2",
            "-nowarn:219,162,168",
            "-r:System.Numerics.dll",
            f"-out:{p.with_suffix('.exe')}",
            str(p),
        ]
    if language == "rust":
        return lambda p: [
            TOOLS["rust"],
            "--edition",
            "2021",
            "--emit=metadata",
            "-o",
            str(p.with_suffix(".rmeta")),
            str(p),
        ]
    if language == "lua":
        return lambda p: [TOOLS["lua"], "-p", str(p)]
    return lambda p: [TOOLS["javascript"], "--check", str(p)]


def compile_check(
    language: str, items: Sequence[tuple[str, Mapping[str, Any], str]]
) -> dict[str, str]:
    """Compile-check harnessed sources ``(id, signature, source)``; returns failures by id.

    The flags are the scoring service's (`smolscript_sandbox.runtimes`). Python: compile()
    (the interpreter's compiler, as the service's compile step). C: one gcc -fsyntax-only
    over all files. Lua: luac5.4 -p per file (luac 5.4.4 crashes on many files at once).
    JavaScript (node --check), C++, C# and Rust:
    one file with every source in its own block/namespace/module (C# as a library); only when
    that fails are the files checked one by one to name the culprits.
    """
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        paths = _write(folder, [(i, language, sig, src) for i, sig, src in items])
        if language == "python":
            errors = {}
            for identifier, path in paths:
                try:
                    compile(path.read_text(), str(path), "exec")
                except SyntaxError as exc:
                    errors[identifier] = str(exc)
            return errors
        if language == "lua":
            return _per_file(paths, _single_argv("lua"))
        if language == "c":
            code, text = _run(_single_argv("c")(paths[0][1])[:-1] + [str(p) for _, p in paths])
        else:
            target = _combined(language, paths, folder)
            argv = _single_argv(language)(target)
            if language == "csharp":
                argv.insert(1, "-target:library")
            code, text = _run(argv)
        if code == 0:
            return {}
        return _per_file(paths, _single_argv(language)) or {"combined": text}


def run_tests(
    language: str, signature: Mapping[str, Any], source: str, stdins: Sequence[str]
) -> list[str] | str:
    """Compile once and run each stdin (unsandboxed, after a result nonce); per test the
    harness's framed result (`frames.read_result`: None when there is none), or the compile
    error."""
    runtime = RUNTIMES[language]
    with tempfile.TemporaryDirectory() as tmp:
        files = render_job_files(language, source, signature)
        for name, text in files.items():
            Path(tmp, name).write_text(text)
        env = {"PATH": "/usr/bin:/bin", "HOME": tmp}
        if runtime.compile_argv and language not in ("python",):
            argv = expand_argv(runtime.compile_argv, tmp)
            if argv[0] == "/opt/rust/bin/rustc" and not os.path.exists(argv[0]):
                argv[0] = RUSTC
            env_c = {**env, "PATH": f"{os.path.dirname(argv[0])}:/usr/bin:/bin"}
            proc = subprocess.run(argv, capture_output=True, text=True, env=env_c, timeout=120)
            if proc.returncode != 0:
                return proc.stderr
        outputs = []
        nonce = new_nonce()
        for stdin in stdins:
            proc = subprocess.run(
                expand_argv(runtime.run_argv, tmp),
                input=harness_stdin(nonce, stdin),
                capture_output=True,
                text=True,
                env=env,
                timeout=20,
            )
            outputs.append(read_result(normalize_stdout(proc.stdout), nonce)[0])
        return outputs
