"""Benchmark: compile CPU per check, by language, the plain compiler invocation vs the service's
(precompiled headers, `smolscript_sandbox/prebuilt.py`), measured in the same run on the same
sources: every program check of the full default validation (references, negative controls,
near-misses), rendered into its job file exactly as the validation sends it.

For each source the two invocations run back to back (plain first, then the service's), each
timed by this process's children's CPU (user + system, `RUSAGE_CHILDREN`), outside the sandbox:
the sandbox's own start-up is the same for both and is counted as isolation set-up by
`smolscript_stages.py`. Each pair's outputs are compared byte for byte (C# excepted: mcs
writes a fresh module id into every assembly). The precompiled headers are built here by the
service's own code (`prebuilt.build_all`) into a temporary folder, and that build is timed too.

Prints per language: checks, plain and service CPU-s per check, the ratio, identical outputs;
the compile stage as a whole; where a C++ compile's time goes (parse, code generation,
assembly + link) both ways; and the load average beside each figure (the machine may be
shared: compare ratios within one run, not figures across runs).

Usage: uv run python benchmarks/bench_smolscript_compile.py [--data data/smolscript]
       [--per-language N] [--languages cpp,rust]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

LANGUAGES = ("python", "javascript", "cpp", "c", "csharp", "rust", "lua")


def loadavg() -> str:
    """The 1/5/15-minute load averages, as one string."""
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def children_cpu() -> float:
    """CPU seconds (user + system) of this process's reaped children so far."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(argv: list[str], cwd: Path) -> tuple[float, int]:
    """(CPU seconds, exit status) of one compiler run."""
    before = children_cpu()
    done = subprocess.run(argv, cwd=cwd, capture_output=True, check=False)
    return children_cpu() - before, done.returncode


def sources(data: Path, per_language: int | None) -> dict[str, list[tuple[str, str, str]]]:
    """language -> [(check name, main file name, rendered text)] of every program check."""
    from smolscript.languages import render_job_files
    from smolscript_builder.validate import load_edition, plan_checks

    rows, solutions, _ = load_edition(data)
    by_id = {r["id"]: r for r in rows}
    found: dict[str, list[tuple[str, str, str]]] = {}
    for check in plan_checks(rows, solutions):
        row = by_id[check.task_id]
        if row.get("modality") != "program":
            continue
        files = render_job_files(row["language"], check.code, row["signature"],
                                 row["entry_point"])
        (name, text), = files.items()
        found.setdefault(row["language"], []).append((f"{check.task_id}/{check.role}", name,
                                                      text))
    if per_language:
        found = {lang: items[:: max(1, len(items) // per_language)][:per_language]
                 for lang, items in found.items()}
    return found


def host_argv(argv: tuple[str, ...], job: Path, prebuilt_root: Path) -> list[str]:
    """A sandbox argv with the job folder and the prebuilt mount replaced by host paths."""
    from smolscript_sandbox.isolation import JOB_MOUNT
    from smolscript_sandbox.prebuilt import PREBUILT_MOUNT

    return [part.replace(JOB_MOUNT, str(job)).replace(PREBUILT_MOUNT, str(prebuilt_root))
            for part in argv]


def output_of(job: Path, runtime: str) -> bytes | None:
    """The compiled binary's bytes (the argument after `-o`); None where a runtime writes none
    (Python, JavaScript, Lua: a syntax check), for C# (see the module docstring) and when the
    compile failed."""
    from smolscript_sandbox.runtimes import RUNTIMES

    argv = list(RUNTIMES[runtime].compile_argv or ())
    if runtime == "csharp" or "-o" not in argv:
        return None
    path = job / argv[argv.index("-o") + 1].replace("{dir}/", "")
    return path.read_bytes() if path.exists() else None


def compare_language(language: str, items: list[tuple[str, str, str]], prebuilt_root: Path,
                     scratch: Path) -> dict:
    """Compile every item both ways; returns CPU totals, counts and identical outputs."""
    from smolscript_sandbox.isolation import JOB_MOUNT
    from smolscript_sandbox.runtimes import RUNTIMES, build_program, expand_argv
    from smolscript_sandbox.schema import ProgramJob

    totals = {"plain": 0.0, "service": 0.0, "n": 0, "identical": 0, "compared": 0,
              "used_pch": 0, "status_differs": 0}
    for index, (_, name, text) in enumerate(items):
        job = ProgramJob(runtime=language, files={name: text}, tests=[])
        program = build_program(job)
        if program.compile_argv is None:
            continue
        plain_argv = tuple(expand_argv(RUNTIMES[language].compile_argv, JOB_MOUNT))
        outputs = []
        for way, argv in (("plain", plain_argv), ("service", program.compile_argv)):
            # One folder for both ways, emptied between them: compilers write the source's
            # path into their output (Rust's panic locations), as /job is the same in the
            # service.
            job_dir = scratch / f"{language}-{index}"
            shutil.rmtree(job_dir, ignore_errors=True)
            job_dir.mkdir()
            (job_dir / name).write_text(text, encoding="utf-8")
            cpu, status = timed(host_argv(argv, job_dir, prebuilt_root), job_dir)
            totals[way] += cpu
            outputs.append((status, output_of(job_dir, language)))
        totals["n"] += 1
        totals["used_pch"] += program.compile_argv != plain_argv
        totals["status_differs"] += outputs[0][0] != outputs[1][0]
        if outputs[0][1] is not None or outputs[1][1] is not None:
            totals["compared"] += 1
            totals["identical"] += outputs[0][1] == outputs[1][1]
    return totals


def cpp_phases(text: str, prebuilt_root: Path, scratch: Path, repeat: int = 10) -> None:
    """Print where one C++ compile's CPU goes, plain and with the precompiled header."""
    from smolscript_sandbox.runtimes import CPP_FLAGS, build_program
    from smolscript_sandbox.schema import ProgramJob

    extra = [a.replace("/prebuilt", str(prebuilt_root)) for a in
             build_program(ProgramJob(runtime="cpp", files={"main.cpp": text}, tests=[]))
             .compile_argv[1:3]]
    folder = scratch / "phases"
    folder.mkdir()
    (folder / "main.cpp").write_text(text, encoding="utf-8")
    print("\nwhere a C++ compile's CPU goes (one validation source, mean of "
          f"{repeat} runs, load average {loadavg()}):")
    print("| way | parse (-fsyntax-only) | + code generation (-S) | whole compile + link "
          "| assemble + link |")
    print("|---|---|---|---|---|")
    tails = (["-fsyntax-only"], ["-S", "-o", "main.s"], ["-o", "main"])
    ways = (("plain", []), ("precompiled header", extra))
    sums = {(way, i): 0.0 for way, _ in ways for i in range(len(tails))}
    for _ in range(repeat):  # round-robin, so that a change of load falls on every figure
        for way, flags in ways:
            for i, tail in enumerate(tails):
                sums[way, i] += timed(["/usr/bin/g++", *flags, *CPP_FLAGS, "main.cpp", *tail],
                                      folder)[0]
    for way, _ in ways:
        figures = [sums[way, i] / repeat for i in range(len(tails))]
        print(f"| {way} | {figures[0]:.3f} | {figures[1]:.3f} | {figures[2]:.3f} | "
              f"{figures[2] - figures[1]:.3f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=Path("data/smolscript"))
    parser.add_argument("--per-language", type=int, default=None,
                        help="at most this many checks per language (default: all 740)")
    parser.add_argument("--languages", default=",".join(LANGUAGES))
    parser.add_argument("--json", type=Path, default=None, help="also write the figures here")
    args = parser.parse_args()

    from smolscript_sandbox import prebuilt
    from smolscript_sandbox.runtimes import precompile_specs

    languages = [lang for lang in args.languages.split(",") if lang]
    found = sources(args.data, args.per_language)
    with tempfile.TemporaryDirectory(prefix="bench-compile-") as tmp:
        scratch = Path(tmp)
        root = scratch / "prebuilt"
        load, cpu0, wall0 = loadavg(), children_cpu(), time.monotonic()
        built = prebuilt.build_all(root, precompile_specs())
        print(f"precompiled headers built (once per service start, with their probes): "
              f"{len(built.built)} in {time.monotonic() - wall0:.1f} s, "
              f"{children_cpu() - cpu0:.1f} CPU-s (load average {load}); errors: {built.errors}")
        prebuilt.configure(built)
        print(f"\ncompile CPU per check, plain invocation vs the service's, same sources, same "
              f"run (outside the sandbox; load average {loadavg()} at the start)")
        print("| language | checks | plain CPU-s/check | service CPU-s/check | service/plain "
              "| with precompiled header | identical outputs | load average |")
        print("|---|---|---|---|---|---|---|---|")
        results = {}
        for language in languages:
            items = found.get(language, [])
            if not items:
                continue
            got = compare_language(language, items, root, scratch)
            results[language] = got
            n = max(got["n"], 1)
            same = f"{got['identical']}/{got['compared']}" if got["compared"] else "n/a"
            print(f"| {language} | {got['n']} | {got['plain'] / n:.3f} | "
                  f"{got['service'] / n:.3f} | {got['service'] / max(got['plain'], 1e-9):.2f} | "
                  f"{got['used_pch']} | {same} | {loadavg()} |", flush=True)
        plain = sum(r["plain"] for r in results.values())
        ours = sum(r["service"] for r in results.values())
        n = sum(r["n"] for r in results.values())
        print(f"compile stage, all {n} checks: plain {plain:.1f} CPU-s ({plain / n:.3f}/check), "
              f"service {ours:.1f} CPU-s ({ours / n:.3f}/check): service/plain = "
              f"{ours / plain:.2f} (load average {loadavg()})")
        from target_lines import Outcome

        outcome = Outcome()
        outcome.check(not any(r["status_differs"] for r in results.values()),
                      "a compile's exit status differs between the two ways")
        outcome.check(all(r["identical"] == r["compared"] for r in results.values()),
                      "a compiled program's output differs between the two ways")
        cpp = found.get("cpp")
        if cpp and "cpp" in languages:
            cpp_phases(cpp[0][2], root, scratch)
        if args.json:
            args.json.write_text(json.dumps(results, indent=1) + "\n")
        raise SystemExit(outcome.finish())


if __name__ == "__main__":
    main()
