"""Agreement of `smolscript evaluate --model` (llama.cpp in process) with vf-eval against the
local model server, on the same GGUF file and the same prompts.

For a selection of smolscript tasks, vf-eval runs the environment against the local server
(`smol-envs-serve`, started on $SMOL_ENVS_MODEL_PORT if none of ours runs there, stopped again
only if started here), and `LlamaCppBackend` continues the same prompts in this process; the
raw continuations are compared byte for byte. Both sides are made truly greedy: temperature 0
(the environment's default), the same budgets, the same stop (end of text), the same context
(2,048) and, through `-S '{"extra_body": {"repeat_penalty": 1.0}}'`, no repetition penalty on
the server, whose own default is 1.1 (`llama_cpp.server.types`); with `--server-defaults` the
server's defaults are measured too, to show what that penalty changes.

    uv run python benchmarks/bench_smolscript_inprocess_agreement.py --per-language 4
        [--max-tokens N] [--server-defaults] [--service-url URL] [--threads 1]

Prints one table row per sampling setting: prompts, identical continuations, differing ones
and where the first difference falls (token index of the in-process continuation).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

GREEDY = {"extra_body": {"repeat_penalty": 1.0}}


def vf_eval_continuations(base_url: str, model: str, env_args: Mapping[str, Any],
                          sampling_args: Mapping[str, Any] | None, out_dir: Path,
                          timeout_s: float = 3600) -> dict[str, str]:
    """Run `vf-eval smolscript` (raw completions API, one rollout per task, saved) and return
    each task's raw continuation (`info.raw_completion`). Raises RuntimeError when vf-eval
    fails (its stderr tail)."""
    cmd = [str(Path(sys.executable).parent / "vf-eval"), "smolscript",
           "--api-client-type", "openai_completions", "-m", model, "-b", base_url,
           "-k", "SMOL_ENVS_LOCAL_KEY", "-n", "-1", "-r", "1", "-c", "1", "-s", "-d",
           "-o", str(out_dir), "-a", json.dumps(dict(env_args))]
    if sampling_args:
        cmd += ["-S", json.dumps(dict(sampling_args))]
    run = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout_s,
                         env=dict(os.environ, SMOL_ENVS_LOCAL_KEY="local"))
    if run.returncode != 0:
        raise RuntimeError(f"vf-eval failed ({run.returncode}): {run.stderr[-2000:]}")
    [results] = list(out_dir.rglob("results.jsonl"))
    rows = [json.loads(line) for line in results.read_text().splitlines() if line.strip()]
    return {row["info"]["id"]: row["info"]["raw_completion"] for row in rows}


def inprocess_continuations(tasks: Sequence[Mapping[str, Any]], max_tokens: int | None,
                            threads: int | None = None):
    """The in-process llama.cpp continuations of the tasks' prompts under their budgets (or
    `max_tokens`); returns ({task id: text}, the backend)."""
    from smol_envs_core.server.serve import model_path
    from smolscript.backends import LlamaCppBackend
    from smolscript.prompts import build_prompt, token_budget

    backend = LlamaCppBackend(model_path(), threads=threads)
    prompts = [build_prompt(t) for t in tasks]
    budgets = [token_budget(t["language"], t["difficulty"], max_tokens) for t in tasks]
    made = backend.generate(prompts, budgets)
    return {t["id"]: g.text for t, g in zip(tasks, made, strict=True)}, backend


def first_token_difference(a: str, b: str, tokenize) -> int | None:
    """Index of the first token where the tokenizations of `a` and `b` differ (None when the
    texts are equal). Pure given `tokenize`."""
    if a == b:
        return None
    ta, tb = tokenize(a), tokenize(b)
    pairs = zip(ta, tb, strict=False)  # the shorter side may end first
    return next((i for i, (x, y) in enumerate(pairs) if x != y), min(len(ta), len(tb)))


def compare(ours: Mapping[str, str], theirs: Mapping[str, str], tokenize) -> dict[str, Any]:
    """Counts of identical and differing continuations (same ids on both sides required) and
    the first differing token index of each difference. Raises ValueError on other ids."""
    if set(ours) != set(theirs):
        raise ValueError(f"different task ids: {sorted(set(ours) ^ set(theirs))[:5]}")
    firsts = {k: first_token_difference(ours[k], theirs[k], tokenize) for k in sorted(ours)}
    differing = {k: v for k, v in firsts.items() if v is not None}
    return {"prompts": len(ours), "identical": len(ours) - len(differing),
            "differing": differing}


def main(argv: list[str] | None = None) -> int:
    """Run the agreement check and print its table; exit 0 (1 when vf-eval fails)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--per-language", type=int, default=4)
    parser.add_argument("--languages", nargs="+", default=None)
    parser.add_argument("--max-tokens", type=int, default=None,
                        help="replace every budget (default: the versioned budgets)")
    parser.add_argument("--server-defaults", action="store_true",
                        help="also measure the server's default sampling (repeat_penalty 1.1)")
    parser.add_argument("--service-url", default=None)
    parser.add_argument("--threads", type=int, default=None)
    args = parser.parse_args(argv)

    from rich.console import Console
    from rich.table import Table
    from smol_envs_core import procman
    from smol_envs_core.server import serve
    from smolscript import data
    from smolscript.verdict import resolve_service_url

    tasks = data.select_tasks("default", args.languages, None, args.per_language)
    env_args: dict[str, Any] = {"per_language": args.per_language,
                                "service_url": resolve_service_url(args.service_url)}
    if args.languages:
        env_args["languages"] = args.languages
    if args.max_tokens:
        env_args["max_tokens"] = args.max_tokens
    started = time.monotonic()
    ours, backend = inprocess_continuations(tasks, args.max_tokens, args.threads)
    inprocess_s = time.monotonic() - started

    def tokenize(text: str) -> list[int]:
        return backend.llm.tokenize(text.encode(), add_bos=False, special=True)

    port = serve.default_port()
    state = serve.state_dir(port)
    procman.add_user(state)
    started_here = serve.start_with_owner(serve.DEFAULT_HOST, port, threads=2)
    table = Table(title=f"in-process llama.cpp vs vf-eval on the local server "
                        f"({len(tasks)} prompts, load average {os.getloadavg()[0]:.1f})")
    for column in ("server sampling", "prompts", "identical", "differing",
                   "first differing token (min-max)", "vf-eval s"):
        table.add_column(column)
    settings = [("greedy (repeat_penalty 1.0)", GREEDY)]
    if args.server_defaults:
        settings.append(("server defaults (repeat_penalty 1.1)", None))
    try:
        for label, sampling in settings:
            with tempfile.TemporaryDirectory() as folder:
                began = time.monotonic()
                theirs = vf_eval_continuations(serve.base_url(serve.DEFAULT_HOST, port),
                                               serve.MODEL_NAME, env_args, sampling,
                                               Path(folder))
                result = compare(ours, theirs, tokenize)
                firsts = sorted(result["differing"].values())
                table.add_row(label, str(result["prompts"]), str(result["identical"]),
                              str(len(firsts)),
                              f"{firsts[0]}-{firsts[-1]} (median {firsts[len(firsts) // 2]})"
                              if firsts else "-", f"{time.monotonic() - began:.0f}")
    except RuntimeError as exc:
        print(exc, file=sys.stderr)
        return 1
    finally:
        procman.release(state, started_here)
    Console().print(table)
    print(f"in-process generation: {inprocess_s:.0f} s")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    sys.exit(main())
