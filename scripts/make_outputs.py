"""Regenerate each environment's committed evidence: one saved vf-eval run of 5 examples x 3
rollouts (`-n 5 -r 3 -s`, the Environments Hub's contribution template) from the local
SmolLM2-135M-Instruct, written to `environments/<pkg>/outputs/evals/<env>--<model>/evidence/`
(metadata.json + results.jsonl; the environment's earlier evidence run is removed first).

Each run sends its environment's documented sampling: pico-dsl-v1 greedy (`-t 256 -T 0`),
smolscript its own defaults (greedy, each task's budget, raw completions), smoltalkbench its
sampled replies (`-t 128`) judged by the same local model (mechanics only, not a measurement),
smol-slm-eval ARC-Easy (echoed log-likelihoods; never GPQA Diamond, whose licence forbids
publishing its rows). metadata.json gets run_baselines' `baseline` block (command, wall time,
load average, machine, model sha256, scorer fingerprint).

The model server must already run on $SMOL_ENVS_MODEL_PORT (default 8765):
`uv run smol-envs-serve start`. The smolscript scoring service at $SMOLSCRIPT_SANDBOX_URL
(default http://127.0.0.1:8790) is reused or started, and stopped at the end when started here.

Usage:
    uv run python scripts/make_outputs.py [--only pico-dsl-v1,smolscript] [--dry-run]
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import sys
from pathlib import Path

from run_baselines import MODELS, ROOT, Run, execute, model_file, reachable, sha256_of
from smol_envs_core.server import serve
from smol_envs_core.server.endpoints import KEY_VAR

MODEL = MODELS["smollm2-135m"]
SERVED = "SmolLM2-135M-Instruct"
EVIDENCE = ("-n", "5", "-r", "3")
# Cheap toolchains only (no browser, no Rust or C# build): one task of each.
SMOLSCRIPT_LANGUAGES = ["python", "javascript", "lua", "c", "cpp"]
# The committed run's folder name (vf-eval names its own runs by a random id, which .gitignore
# keeps out of git; only this folder is committed).
RUN_FOLDER = "evidence"


def sandbox_url() -> str:
    """The scoring service's URL: $SMOLSCRIPT_SANDBOX_URL, else 127.0.0.1:$SMOLSCRIPT_SANDBOX_PORT
    (default 8790)."""
    port = os.environ.get("SMOLSCRIPT_SANDBOX_PORT", "8790")
    return os.environ.get("SMOLSCRIPT_SANDBOX_URL", f"http://127.0.0.1:{port}")


def runs(base_url: str) -> tuple[tuple[str, Run], ...]:
    """(environment folder, run) of each evidence run; `base_url` is the model server's /v1,
    which also judges smoltalkbench."""
    return (
        ("pico_dsl_v1", Run("pico-dsl-v1", "pico-dsl-v1", {},
                            (*EVIDENCE, "-t", "256", "-T", "0"),
                            "first 5 of the fixed 480 rows, 3 greedy rollouts each",
                            package="pico_dsl_v1")),
        ("smolscript", Run("smolscript", "smolscript",
                           {"languages": SMOLSCRIPT_LANGUAGES, "per_language": 1}, EVIDENCE,
                           "first task of 5 languages (5 of 350), 3 greedy rollouts each",
                           api="completions", package="smolscript")),
        ("smoltalkbench", Run("smoltalkbench", "smoltalkbench",
                              {"dataset": "fixture", "judge_model": SERVED,
                               "judge_base_url": base_url, "judge_api_key_var": "",
                               "judge_label_bias": "tokens", "judge_timeout_s": 600},
                              (*EVIDENCE, "-t", "128", "-C", "judge"),
                              "first 5 rows of the 12-row offline fixture, 3 sampled replies "
                              "each, judged by SmolLM2-135M-Instruct: mechanics only, not a "
                              "valid measurement", package="smoltalkbench", judge=True)),
        ("smol_slm_eval", Run("smol-slm-eval-arc_easy", "smol-slm-eval",
                              {"task": "arc_easy", "num_examples": 5}, EVIDENCE,
                              "first 5 rows of ARC-Easy test, 3 rollouts each",
                              api="completions", package="smol_slm_eval")),
    )


def command(run: Run, base_url: str) -> list[str]:
    """The vf-eval command line of `run` against the server at `base_url` (without `-o`)."""
    client = ["--api-client-type", "openai_completions"] if run.api == "completions" else []
    return ["uv", "run", "vf-eval", run.env, "-b", base_url, "-k", KEY_VAR, "-m", SERVED,
            *client, "-a", json.dumps(run.env_args), *run.flags, "-s"]


def make(folder: str, run: Run, base_url: str, model_sha: str) -> Path:
    """Replace the environment's evidence run (every `outputs/evals/*/evidence/` folder of
    `environments/<folder>`; a developer's own `vf-eval -s` runs beside it stay, ignored by
    git) with one fresh run of `run`; returns its path."""
    evals = ROOT / "environments" / folder / "outputs" / "evals"
    for old in evals.glob(f"*/{RUN_FOLDER}"):
        shutil.rmtree(old)
    target = evals / f"{run.env}--{SERVED}" / RUN_FOLDER
    return execute(run, MODEL, model_sha, target, command(run, base_url))


def main(argv: list[str] | None = None) -> int:
    """Entry point; see the module docstring."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", default="",
                        help="comma-separated run names or prefixes (default: all four)")
    parser.add_argument("--dry-run", action="store_true", help="print the commands only")
    args = parser.parse_args(argv)
    base_url = serve.base_url("127.0.0.1", serve.default_port())
    wanted = [w for w in args.only.split(",") if w]
    chosen = [(f, r) for f, r in runs(base_url)
              if not wanted or any(r.name.startswith(w) for w in wanted)]
    if not chosen:
        parser.error(f"--only {args.only!r} matches no run")
    if args.dry_run:
        for folder, run in chosen:
            print(f"environments/{folder}:", shlex.join(command(run, base_url)))
        return 0
    if not reachable(f"{base_url}/models"):
        raise SystemExit(f"make_outputs: no model server at {base_url}: "
                         "`uv run smol-envs-serve start`")
    os.environ.setdefault(KEY_VAR, "EMPTY")
    if any(r.env == "smolscript" for _, r in chosen):
        from smolscript_sandbox import testing

        os.environ["SMOLSCRIPT_SANDBOX_URL"] = sandbox_url()
        testing.ensure_service(sandbox_url())
    model_sha = sha256_of(model_file(MODEL.key))
    for folder, run in chosen:
        make(folder, run, base_url, model_sha)
    return 0


if __name__ == "__main__":
    sys.exit(main())
