"""The runtimes the service runs: a main file, a compile command, a run command, limits.

This is all the service knows about languages. A job brings complete files (whatever harness
it needs is already in them); the runtime says which file to compile and how to run it.
Commands use only sandbox-visible paths (`/usr/bin`, `/opt`) and the `{dir}` placeholder (the
job folder, mounted at /job); binaries are checked before a job takes a slot.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Mapping
from dataclasses import dataclass, field

from smolscript_sandbox.errors import JobRejected, SandboxInfraError
from smolscript_sandbox.isolation import JOB_MOUNT
from smolscript_sandbox.limits import COMPILE_LIMITS, RUN_LIMITS, Limits
from smolscript_sandbox.prebuilt import Preamble, current
from smolscript_sandbox.schema import ProgramJob


@dataclass(frozen=True)
class Runtime:
    """One runtime: the file it compiles/runs, its argv templates (`{dir}` = the job folder),
    the environment its commands need, the limits of one compile and of one test run, and the
    leading directive blocks precompiled at start-up (`prebuilt.py`; C++ only)."""

    id: str
    main_file: str
    compile_argv: tuple[str, ...] | None
    run_argv: tuple[str, ...]
    env: Mapping[str, str] = field(default_factory=dict)
    compile_limits: Limits = COMPILE_LIMITS
    run_limits: Limits = RUN_LIMITS
    preambles: tuple[Preamble, ...] = ()


# C and C++ verdicts must not depend on the compiler's defaults: gcc 14 made implicit function
# declarations, implicit int, int-conversion and incompatible-pointer-type errors where gcc 12
# only warns. These flags make them errors on every gcc the service may run (warnings stay in
# the compile record's stderr).
C_FLAGS = (
    "-std=c11",
    "-O1",
    "-Werror=implicit-function-declaration",
    "-Werror=implicit-int",
    "-Werror=int-conversion",
    "-Werror=incompatible-pointer-types",
    # gcc 14's -Wreturn-mismatch (`return;` in an int function) is part of -Wreturn-type on
    # gcc 12, which also covers falling off the end of a non-void function: an error here.
    "-Werror=return-type",
)
CPP_FLAGS = ("-std=c++17", "-O1")
# Python's compile step: the interpreter's compiler on the file, reporting only the error
# (as the interpreter itself would print it), never a traceback of this one-liner.
PYTHON_COMPILE = (
    "import sys, traceback\n"
    "try:\n"
    "    compile(open(sys.argv[1], 'rb').read(), sys.argv[1], 'exec')\n"
    "except (SyntaxError, ValueError) as exc:\n"
    "    sys.stderr.write(''.join(traceback.format_exception_only(exc)))\n"
    "    sys.exit(1)\n"
)
# What every C++ file of smolscript's harness (drivers/cpp.cpp) opens with: its rename of the
# candidate's `main`, then the task's imports (the same four headers in every C++ task).
# Precompiled at start-up (prebuilt.py), it takes about a third off a C++ compile.
CPP_PREAMBLES = (
    Preamble(defines=(("main", "smol_candidate_main"),),
             headers=("algorithm", "cstdlib", "string", "vector")),
)
# The class of smolscript's C# harness (drivers/csharp.cs) that holds the entry point.
CSHARP_HARNESS_CLASS = "SmolHarness"

RUNTIMES: dict[str, Runtime] = {
    "python": Runtime(
        id="python",
        main_file="main.py",
        # The interpreter's own compiler with the run's flags: `compile()` runs the parser,
        # the symbol table and the code generator, so errors that `ast.parse` accepts
        # (`break` outside a loop, `nonlocal` at module level, `return` outside a function)
        # are compile errors here and never surface as runtime errors.
        compile_argv=(
            "/usr/bin/python3",
            "-I",
            "-S",
            "-c",
            PYTHON_COMPILE,
            "{dir}/main.py",
        ),
        run_argv=("/usr/bin/python3", "-I", "-S", "{dir}/main.py"),
    ),
    "javascript": Runtime(
        id="javascript",
        main_file="main.js",
        compile_argv=("/usr/bin/node", "--check", "{dir}/main.js"),
        run_argv=("/usr/bin/node", "{dir}/main.js"),
    ),
    "cpp": Runtime(
        id="cpp",
        main_file="main.cpp",
        compile_argv=("/usr/bin/g++", *CPP_FLAGS, "-o", "{dir}/main", "{dir}/main.cpp"),
        run_argv=("{dir}/main",),
        env={"PATH": "/usr/bin:/bin"},
        preambles=CPP_PREAMBLES,
    ),
    "c": Runtime(
        id="c",
        main_file="main.c",
        compile_argv=("/usr/bin/gcc", *C_FLAGS, "-o", "{dir}/main", "{dir}/main.c", "-lm"),
        run_argv=("{dir}/main",),
        env={"PATH": "/usr/bin:/bin"},
    ),
    "lua": Runtime(
        id="lua",
        main_file="main.lua",
        compile_argv=("/usr/bin/luac5.4", "-p", "{dir}/main.lua"),
        run_argv=("/usr/bin/lua5.4", "{dir}/main.lua"),
    ),
    "csharp": Runtime(
        id="csharp",
        main_file="main.cs",
        compile_argv=(
            "/usr/bin/mcs",
            "-langversion:7.2",
            "-nowarn:219,162,168",
            # The harness's class is the entry point even when the candidate writes a Main.
            f"-main:{CSHARP_HARNESS_CLASS}",
            # What `dotnet new console` references beyond mcs's defaults (System, System.Core
            # with LINQ): BigInteger and Complex live in System.Numerics.
            "-r:System.Numerics.dll",
            "-out:{dir}/main.exe",
            "{dir}/main.cs",
        ),
        run_argv=("/usr/bin/mono", "{dir}/main.exe"),
        env={"PATH": "/usr/bin:/bin", "HOME": "{dir}"},
    ),
    "rust": Runtime(
        id="rust",
        main_file="main.rs",
        compile_argv=(
            "/opt/rust/bin/rustc",
            "--edition",
            "2021",
            "-C",
            "opt-level=1",
            "-C",
            "debuginfo=0",
            "-o",
            "{dir}/main",
            "{dir}/main.rs",
        ),
        run_argv=("{dir}/main",),
        env={"PATH": "/opt/rust/bin:/usr/bin:/bin"},
    ),
}


@dataclass(frozen=True)
class Program:
    """What one job folder holds and runs: files (name -> text), compile argv, run argv, env,
    and the runtime's limits."""

    files: dict[str, str]
    compile_argv: tuple[str, ...] | None
    run_argv: tuple[str, ...]
    env: dict[str, str] = field(default_factory=dict)
    compile_limits: Limits = COMPILE_LIMITS
    run_limits: Limits = RUN_LIMITS
    compile_binds: dict[str, str] = field(default_factory=dict)


def get_runtime(runtime: str) -> Runtime:
    """Look up a runtime; raises JobRejected naming the valid ones."""
    try:
        return RUNTIMES[runtime]
    except KeyError:
        raise JobRejected(f"unknown runtime {runtime!r}; valid: {sorted(RUNTIMES)}") from None


def expand_argv(argv: tuple[str, ...], job_dir: str) -> list[str]:
    """Substitute the job folder for `{dir}` in a compile/run argv template."""
    return [part.replace("{dir}", job_dir) for part in argv]


def check_binary(path: str) -> None:
    """Raise SandboxInfraError unless `path` (absolute, or on PATH) is an executable file."""
    found = path if os.path.isabs(path) else shutil.which(path)
    if not found or not os.access(found, os.X_OK):
        raise SandboxInfraError(f"toolchain binary not found: {path}")


def binaries(runtime: Runtime) -> list[str]:
    """The host binaries a runtime's commands start (not the job's own outputs)."""
    found = []
    for argv in (runtime.compile_argv, runtime.run_argv):
        if argv and not argv[0].startswith("{dir}") and "{" not in argv[0]:
            found.append(argv[0])
    return list(dict.fromkeys(found))


def build_program(job: ProgramJob) -> Program:
    """The files, commands and limits of one job.

    Raises JobRejected for an unknown runtime or a job without the runtime's main file, and
    SandboxInfraError when a binary of the runtime is absent here.
    """
    runtime = get_runtime(job.runtime)
    if runtime.main_file not in job.files:
        raise JobRejected(
            f"a {runtime.id} job needs its main file {runtime.main_file!r}; got "
            f"{sorted(job.files)}"
        )
    compile_argv = (
        tuple(expand_argv(runtime.compile_argv, JOB_MOUNT)) if runtime.compile_argv else None
    )
    binds: dict[str, str] = {}
    if compile_argv and runtime.preambles:
        extra = current().compile_args(runtime.id, job.files[runtime.main_file])
        if extra:  # after the compiler, before its other flags
            compile_argv = (compile_argv[0], *extra, *compile_argv[1:])
            binds = current().binds()
    run_argv = tuple(expand_argv(runtime.run_argv, JOB_MOUNT))
    for argv in (compile_argv, run_argv):
        if argv and not argv[0].startswith(f"{JOB_MOUNT}/"):
            check_binary(argv[0])
    env = {key: value.replace("{dir}", JOB_MOUNT) for key, value in runtime.env.items()}
    return Program(
        files=dict(job.files),
        compile_argv=compile_argv,
        run_argv=run_argv,
        env=env,
        compile_limits=runtime.compile_limits,
        run_limits=runtime.run_limits,
        compile_binds=binds,
    )


def precompile_specs() -> dict[str, tuple[str, tuple[str, ...], tuple[Preamble, ...]]]:
    """What `prebuilt.build_all` builds: runtime -> (compiler, its compile flags, preambles),
    the flags being the runtime's compile argv between the compiler and `-o`."""
    specs = {}
    for runtime in RUNTIMES.values():
        if runtime.preambles and runtime.compile_argv:
            argv = runtime.compile_argv
            specs[runtime.id] = (argv[0], tuple(argv[1:argv.index("-o")]), runtime.preambles)
    return specs
