"""Endpoint safety: a model alias must exist, and a server must serve the model asked for.

Two traps of verifiers 0.3.1's vf-eval (`verifiers.legacy.scripts.eval`), both seen in use:

- `-m NAME` that is not an `endpoint_id` of the endpoints file (`-e PATH`, default
  `./configs/endpoints.toml`) falls back to verifiers' default *hosted* provider (`prime`,
  https://api.pinference.ai): a typo in a local alias would send the prompts to a remote host
  when that host's key is set. `alias_problem` finds that case from vf-eval's own arguments:
  without `-b` (an explicit base URL) or `-p` (an explicit provider), the model must be an
  alias of the endpoints file; the line it returns names the closest aliases.
- `-b URL -m OTHER` is answered by whatever the server at URL serves. `served_models` and
  `ensure_served` read the server's `GET /v1/models` before the first rollout and raise when
  the requested id is not listed, naming what the server serves.

`alias_problem`, `closest` and `parse_vf_eval_args` are pure apart from reading the endpoints
file; `ensure_served` makes one HTTP request.
"""

from __future__ import annotations

import argparse
import difflib
import json
import tomllib
import urllib.error
import urllib.request
from collections.abc import Sequence
from pathlib import Path
from typing import NamedTuple

from ..errors import InfrastructureError

# vf-eval 0.3.1's defaults (verifiers/legacy/scripts/eval.py): its model when -m is absent and
# the registry it reads when -e is absent.
VF_EVAL_DEFAULT_MODEL = "openai/gpt-4.1-mini"
VF_EVAL_DEFAULT_ENDPOINTS = "./configs/endpoints.toml"
LIST_TIMEOUT_S = 30.0


class VfEvalTarget(NamedTuple):
    """What a vf-eval command line asks for, as far as the endpoint goes.

    Attributes:
        env_or_config: the first positional argument (an environment id or a TOML config).
        model: `-m` (vf-eval's default model when absent).
        endpoints_path: `-e` (vf-eval's default when absent).
        base_url: `-b`, or None.
        provider: `-p`, or None.
    """

    env_or_config: str | None
    model: str
    endpoints_path: str
    base_url: str | None
    provider: str | None


def parse_vf_eval_args(argv: Sequence[str]) -> VfEvalTarget | None:
    """The endpoint-relevant arguments of a vf-eval command line (`argv` without the program
    name), or None when they cannot be read (help, a malformed line: vf-eval reports those
    itself). Pure."""
    parser = argparse.ArgumentParser(add_help=False, allow_abbrev=True)
    parser.add_argument("env_or_config", nargs="?")
    parser.add_argument("--model", "-m", default=VF_EVAL_DEFAULT_MODEL)
    parser.add_argument("--endpoints-path", "-e", default=VF_EVAL_DEFAULT_ENDPOINTS)
    parser.add_argument("--api-base-url", "-b", default=None)
    parser.add_argument("--provider", "-p", default=None)
    parser.add_argument("--help", "-h", action="store_true")
    try:
        args, _ = parser.parse_known_args(list(argv))
    except (SystemExit, argparse.ArgumentError):
        return None
    if args.help:
        return None
    return VfEvalTarget(args.env_or_config, args.model, args.endpoints_path,
                        args.api_base_url, args.provider)


def endpoints_file(path: str) -> Path:
    """The TOML file vf-eval reads for `-e path` (a folder means its endpoints.toml)."""
    candidate = Path(path)
    return candidate / "endpoints.toml" if candidate.is_dir() else candidate


def aliases(path: Path) -> list[str]:
    """The `endpoint_id`s of an endpoints.toml (`[[endpoint]]` tables), in file order; [] when
    the file does not exist.

    Raises:
        ValueError: the file is not valid TOML.
    """
    if not path.is_file():
        return []
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    entries = data.get("endpoint", [])
    ids = [e.get("endpoint_id") for e in entries if isinstance(e, dict)]
    return list(dict.fromkeys(i for i in ids if isinstance(i, str)))


def closest(name: str, known: Sequence[str], n: int = 2) -> list[str]:
    """Up to `n` names of `known` closest to `name` (difflib ratio >= 0.5). Pure."""
    return difflib.get_close_matches(name, list(known), n=n, cutoff=0.5)


def unknown_alias_line(model: str, where: str, known: Sequence[str]) -> str:
    """The one line refusing an alias missing from the endpoints file `where`. Pure."""
    hint = closest(model, known)
    listed = ", ".join(known) if known else "none (no such file, or no [[endpoint]] in it)"
    did_you_mean = f" (did you mean {' or '.join(hint)}?)" if hint else ""
    return (f"smol-envs: error: model alias '{model}' is not in {where}{did_you_mean}; its "
            f"aliases: {listed}. Nothing was sent: a hosted endpoint is used only when named "
            "explicitly (-b URL, or -p PROVIDER)")


def classic_vf_eval() -> bool:
    """True when the installed verifiers is a 0.3.x release, whose vf-eval reads `-m` as an
    alias of the endpoints file and falls back to a hosted default (the trap guarded here);
    verifiers 0.4's vf-eval takes its endpoint from `--client.*` options instead. Reads the
    distribution's metadata only (no import of verifiers)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        major, minor = (int(part) for part in version("verifiers").split(".")[:2])
    except (PackageNotFoundError, ValueError):
        return False
    return (major, minor) < (0, 4)


def alias_problem(argv: Sequence[str], cwd: Path | None = None) -> str | None:
    """The one line refusing a vf-eval command whose `-m` would fall back to verifiers' hosted
    default, or None when the command names its endpoint (an alias of the endpoints file, `-b`,
    `-p`) or is not a single-environment run (a TOML config, help).

    `argv` is vf-eval's arguments without the program name; relative paths resolve against
    `cwd` (default: the working directory). Reads the endpoints file. Only the classic (0.3.x)
    vf-eval is checked (`classic_vf_eval`).
    """
    if not classic_vf_eval():
        return None  # verifiers 0.4's vf-eval: its own flags (--client.base-url), no aliases
    target = parse_vf_eval_args(argv)
    if target is None or target.env_or_config is None:
        return None
    if target.env_or_config.endswith(".toml"):
        return None  # an eval config file: vf-eval resolves its endpoints itself
    if target.base_url is not None or target.provider is not None:
        return None
    path = endpoints_file(target.endpoints_path)
    if cwd is not None and not path.is_absolute():
        path = cwd / path
    try:
        known = aliases(path)
    except (OSError, ValueError) as exc:
        return f"smol-envs: error: cannot read the endpoints file {path}: {exc}"
    if target.model in known:
        return None
    return unknown_alias_line(target.model, str(target.endpoints_path), known)


def served_models(base_url: str, api_key: str | None = None,
                  timeout_s: float = LIST_TIMEOUT_S) -> list[str]:
    """The model ids `GET {base_url}/models` lists (OpenAI's list-models route).

    Raises:
        InfrastructureError: no answer, an HTTP error or a reply without a `data` list
            (component "model endpoint").
    """
    url = f"{base_url.rstrip('/')}/models"
    headers = {"authorization": f"Bearer {api_key}"} if api_key else {}
    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers=headers),
                                    timeout=timeout_s) as reply:
            data = json.load(reply).get("data")
        return [str(m["id"]) for m in data]
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        raise InfrastructureError("model endpoint", f"cannot list the served models: {exc!r}",
                                  url) from None


def ensure_served(base_url: str, model: str, api_key: str | None = None) -> list[str]:
    """Check that the server at `base_url` lists `model` in `/v1/models`; return its ids.

    Raises:
        InfrastructureError: it does not (the message names what it serves), or the list
            cannot be read.
    """
    ids = served_models(base_url, api_key)
    if model not in ids:
        raise InfrastructureError(
            "model endpoint", f"it serves {', '.join(map(repr, ids)) or 'no model'}, not the "
            f"requested model {model!r}; nothing was run (ask for a model it serves, or point "
            "at the server of that model)", base_url)
    return ids
