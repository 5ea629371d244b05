"""Every command a README shows still parses with the real argument parser of what it runs.

Commands are read from the READMEs' fenced shell blocks (continuation lines and multi-line
quotes joined, comments and `VAR=value` prefixes dropped, `&&` chains split) and from inline
`uv run ...` spans. `vf-eval` lines go through verifiers' own `parse_args`, their `-a` JSON must
load and name only arguments of the environment's `load_environment`; the collection's entry
points and scripts run their real `main` until argparse has parsed the line (nothing is
executed after that).
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import inspect
import re
import shlex
import sys
from importlib.metadata import entry_points
from pathlib import Path
from unittest import mock

import pytest

pytestmark = pytest.mark.unit

REPO = Path(__file__).resolve().parents[2]
READMES = sorted({*REPO.glob("README.md"), *REPO.glob("environments/**/README.md"),
                  *REPO.glob("packages/*/README.md"), *REPO.glob("data/*/README.md")})
# Commands shown in READMEs that are not ours to parse (their own tools).
FOREIGN = {"pytest", "pip", "docker", "ruff", "uv", "apt-get", "git"}
# The venv the READMEs make beside verifiers 0.4 (its pip, and 0.4's own vf-eval, whose flags
# are another CLI's): tests/workspace/test_wheel_installs.py installs the same way and
# tests/contract_rl/test_vf_eval_040.py runs the documented command for real.
VENV_040 = ".venv-vf04/bin/"
# What the CPU GRPO script needs (the rl group); without it the script cannot even import.
OPTIONAL_MODULES = {"torch", "transformers"}
FENCE = re.compile(r"```(?:bash|sh)\n(.*?)```", re.DOTALL)  # plain fences hold output
INLINE = re.compile(r"`((?:uv run|python) [^`]+)`")


def shell_commands(block: str) -> list[str]:
    """Logical command lines of a shell block: continuations and open quotes joined."""
    commands, buffer = [], ""
    for line in block.splitlines():
        buffer = f"{buffer}\n{line}" if buffer else line
        if buffer.endswith("\\"):
            buffer = buffer[:-1]
            continue
        try:
            shlex.split(buffer, comments=True)
        except ValueError:  # an open quote: the command goes on
            continue
        if buffer.strip():
            commands.append(buffer)
        buffer = ""
    return commands


def readme_commands() -> list[tuple[str, list[str]]]:
    """(where, argv) of every command the READMEs show."""
    found = []
    for readme in READMES:
        text = readme.read_text()
        lines = [c for block in FENCE.findall(text) for c in shell_commands(block)]
        lines += INLINE.findall(FENCE.sub("", text))
        for line in lines:
            tokens = shlex.split(line, comments=True)
            chain: list[list[str]] = [[]]
            for token in tokens:
                if token in ("&&", "||", ";"):
                    chain.append([])
                else:
                    chain[-1].append(token)
            for argv in chain:
                while argv and re.fullmatch(r"[A-Z_][A-Z0-9_]*=.*", argv[0]):
                    argv = argv[1:]
                if argv:
                    found.append((f"{readme.relative_to(REPO)}: {' '.join(argv)[:90]}", argv))
    return found


class Parsed(Exception):
    """Raised by the spy once argparse has parsed a command line."""


def parse_with_main(main, argv: list[str]) -> None:
    """Run `main(argv)` until its parser has parsed argv; fail with argparse's message."""
    original = argparse.ArgumentParser.parse_args
    errors: list[str] = []

    def spy(self, args=None, namespace=None):
        original(self, args, namespace)
        raise Parsed

    def error(self, message):
        errors.append(f"{self.prog}: {message}")
        raise SystemExit(2)

    with mock.patch.object(argparse.ArgumentParser, "parse_args", spy), \
            mock.patch.object(argparse.ArgumentParser, "error", error), \
            pytest.raises((Parsed, SystemExit)) as stopped:
        main(argv)
    assert stopped.type is Parsed, f"does not parse: {errors}"


def script_main(path: Path):
    spec = importlib.util.spec_from_file_location(f"_readme_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    sys.path.insert(0, str(path.parent))
    try:
        spec.loader.exec_module(module)
    except ModuleNotFoundError as exc:
        if exc.name not in OPTIONAL_MODULES:
            raise
        pytest.skip(f"{path.name} needs {exc.name} (an optional group, not in CI)")
    finally:
        sys.path.remove(str(path.parent))
    return module.main


def check_vf_eval(argv: list[str]) -> None:
    from verifiers.legacy.scripts.eval import parse_args

    args = parse_args(argv)  # -a is parsed as JSON here
    env_id = args.env_id_or_config
    module = importlib.import_module(env_id.replace("-", "_"))
    valid = inspect.signature(module.load_environment).parameters
    if all(p.kind is p.VAR_KEYWORD for p in valid.values()):  # a lazy wrapper: read env.py's
        valid = inspect.signature(
            importlib.import_module(f"{module.__name__}.env").load_environment).parameters
    unknown = sorted(set(args.env_args) - set(valid))
    assert not unknown, f"-a names no argument of {env_id}: {unknown}"


def check(argv: list[str]) -> None:
    """Parse one README command with the real parser of what it runs."""
    if argv[0] == "sudo":
        argv = argv[1:]
    if argv[:2] == ["uv", "run"]:
        argv = argv[2:]
    if argv[0] in ("python", "python3"):
        if argv[1] == "-m":
            module = importlib.import_module(argv[2])
            main = getattr(module, "main", None) or importlib.import_module(
                f"{argv[2]}.__main__").main
            return parse_with_main(main, argv[3:])
        return parse_with_main(script_main(REPO / argv[1]), argv[2:])
    if argv[0] == "eval" and len(argv) == 2:  # eval "$(command)": check the command inside
        return check(shlex.split(argv[1].removeprefix("$(").removesuffix(")")))
    if argv[0] == "bash":
        assert (REPO / argv[1]).is_file(), f"{argv[1]} does not exist"
        return None
    if argv[0] == "vf-eval":
        return check_vf_eval(argv[1:])
    if argv[0] in FOREIGN or argv[0].startswith(VENV_040):
        return None
    scripts = {ep.name: ep for ep in entry_points(group="console_scripts")}
    assert argv[0] in scripts, f"{argv[0]}: no such command in the workspace"
    return parse_with_main(scripts[argv[0]].load(), argv[1:])


COMMANDS = readme_commands()


def test_the_readmes_show_commands():
    names = {argv[2] if argv[:2] == ["uv", "run"] else argv[0] for _, argv in COMMANDS}
    assert {"vf-eval", "smol-envs", "smol-envs-serve", "smolscript", "smoltalkbench-report",
            "smol-slm-eval"} <= names


@pytest.mark.parametrize("argv", [c[1] for c in COMMANDS], ids=[c[0] for c in COMMANDS])
def test_readme_command_parses(argv):
    check(argv)
