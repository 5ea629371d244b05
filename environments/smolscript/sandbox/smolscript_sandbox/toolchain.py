"""Adapter from the one language table (`smolscript.languages`) to what a job folder needs.

The table owns file names, harness templates, compile/run argv and environment (with the
`{dir}` placeholder); this module expands them for the sandbox's /job folder and checks that
the toolchain binaries exist before a job takes a slot.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass, field
from typing import Any

from smolscript_sandbox.isolation import JOB_MOUNT


class ToolchainMissing(RuntimeError):
    """A compiler or runtime named by the language table is absent here (an infra_error)."""


@dataclass(frozen=True)
class Program:
    """What one job folder holds and runs: files (name -> text), compile argv, run argv, env."""

    files: dict[str, str]
    compile_argv: tuple[str, ...] | None
    run_argv: tuple[str, ...]
    env: dict[str, str] = field(default_factory=dict)


def program_languages() -> dict[str, Any]:
    """The program (non-browser) entries of the language table, keyed by language id."""
    from smolscript.languages import LANGUAGES  # lazy: nothing happens at import time

    return {key: spec for key, spec in LANGUAGES.items() if spec.modality == "program"}


def check_binary(path: str) -> None:
    """Raise ToolchainMissing unless `path` (absolute, or on PATH) is an executable file."""
    found = path if os.path.isabs(path) else shutil.which(path)
    if not found or not os.access(found, os.X_OK):
        raise ToolchainMissing(f"toolchain binary not found: {path}")


def build_program(
    language: str, source: str, entry_point: str | None, signature: dict | None
) -> Program:
    """The files and commands for one job; the harness is appended unless entry_point is None
    (then `source` is a complete stdin/stdout program).

    Raises ValueError for an unknown language or a missing signature (SignatureError, a
    ValueError, for a bad one), ToolchainMissing when a binary of the language is absent.
    """
    from smolscript.languages import expand_argv, render_job_files

    specs = program_languages()
    if language not in specs:
        raise ValueError(f"unknown program language {language!r}; valid: {sorted(specs)}")
    spec = specs[language]
    if entry_point is None:
        files = {spec.source_name: source}
    elif signature is None:
        raise ValueError("a harnessed job needs a signature")
    else:
        files = render_job_files(language, source, signature, entry_point)
    compile_argv = tuple(expand_argv(spec.compile_argv, JOB_MOUNT)) if spec.compile_argv else None
    run_argv = tuple(expand_argv(spec.run_argv, JOB_MOUNT))
    for argv in (compile_argv, run_argv):
        if argv and not argv[0].startswith(f"{JOB_MOUNT}/"):
            check_binary(argv[0])
    env = {key: value.replace("{dir}", JOB_MOUNT) for key, value in spec.env.items()}
    return Program(files=files, compile_argv=compile_argv, run_argv=run_argv, env=env)
