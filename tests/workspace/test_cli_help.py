"""Every command-line entry point answers `--help` with a description, a help text for every
argument and the default of every argument that has one.

Each entry point's real `main(["--help"])` runs in-process; the parsers it builds are captured
on their way through argparse, so the check reads exactly what a user sees.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import sys
from pathlib import Path
from unittest import mock

import pytest

pytestmark = pytest.mark.unit

ROOT = Path(__file__).resolve().parents[2]

# (name, module or script path, subcommands whose --help is checked too)
ENTRY_POINTS = [
    ("smol-envs", "smol_envs_core.cli", ["report"]),
    ("smol-envs-serve", "smol_envs_core.server.serve", []),
    ("python -m smol_envs_core.report.runs", "smol_envs_core.report.runs", []),
    ("smolscript", "smolscript.cli", ["evaluate", "report", "example-prompts"]),
    ("smoltalkbench-report", "smoltalkbench.cli", []),
    ("smol-slm-eval", "smol_slm_eval.cli", ["tasks", "report", "int-index", "eval-avg"]),
    ("generate_pico_dsl_v1_benchmark.py", "scripts/generate_pico_dsl_v1_benchmark.py", []),
    ("create_smoltalkbench_dataset.py", "scripts/create_smoltalkbench_dataset.py", []),
    ("build_smolscript.py", "scripts/build_smolscript.py", []),
    ("validate_smolscript.py", "scripts/validate_smolscript.py", []),
    ("smolscript_run_to_predictions.py", "scripts/smolscript_run_to_predictions.py", []),
    ("smolscript_compare_runs.py", "scripts/smolscript_compare_runs.py", []),
    ("check_imports.py", "scripts/check_imports.py", []),
    ("serve_local_model.py", "scripts/serve_local_model.py", []),
    ("grpo_cpu_pico.py", "scripts/grpo_cpu_pico.py", []),
]


def _load(target: str):
    if not target.endswith(".py"):
        return importlib.import_module(target)
    path = ROOT / target
    if path.name == "grpo_cpu_pico.py":
        pytest.importorskip("torch", reason="the GRPO script needs torch (the rl group)")
    spec = importlib.util.spec_from_file_location(f"_cli_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    sys.path.insert(0, str(path.parent))
    try:
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(path.parent))
    return module


def help_of(target: str, argv: list[str]) -> tuple[str, list[argparse.ArgumentParser]]:
    """Run the entry point's main(argv + ["--help"]); return its output and every parser that
    parsed arguments."""
    module = _load(target)
    seen: list[argparse.ArgumentParser] = []
    original = argparse.ArgumentParser.parse_known_args

    def spy(self, *args, **kwargs):
        seen.append(self)
        return original(self, *args, **kwargs)

    out = []
    with mock.patch.object(argparse.ArgumentParser, "parse_known_args", spy), \
            mock.patch.object(argparse.ArgumentParser, "_print_message",
                              lambda self, message, file=None: out.append(message)), \
            pytest.raises(SystemExit) as stopped:
        module.main([*argv, "--help"])
    assert stopped.value.code == 0
    return "".join(out), seen


def problems(parser: argparse.ArgumentParser) -> list[str]:
    """What a user would miss in this parser's --help."""
    found = []
    if not (parser.description or "").strip():
        found.append(f"{parser.prog}: no description")
    shows_defaults = issubclass(parser.formatter_class, argparse.ArgumentDefaultsHelpFormatter)
    for action in parser._actions:
        if isinstance(action, argparse._HelpAction | argparse._SubParsersAction):
            continue
        name = "/".join(action.option_strings) or action.dest
        if not action.help or action.help == argparse.SUPPRESS:
            found.append(f"{parser.prog} {name}: no help text")
            continue
        default = action.default
        if default in (None, False, argparse.SUPPRESS) or action.required or default == []:
            continue
        if not (shows_defaults or "%(default)" in action.help or "default" in action.help):
            found.append(f"{parser.prog} {name}: default {default!r} not shown")
    return found


@pytest.mark.parametrize(("name", "target", "subcommands"), ENTRY_POINTS,
                         ids=[e[0] for e in ENTRY_POINTS])
def test_help_has_descriptions_and_defaults(name, target, subcommands):
    text, parsers = help_of(target, [])
    assert "usage:" in text
    found = problems(parsers[0])
    for sub in subcommands:
        text, parsers = help_of(target, [sub])
        assert "usage: " in text and sub in text
        found += problems(parsers[-1])
    assert not found, "\n".join(found)
