"""Run the committed baselines: every environment on a local model, through the user's own
`vf-eval` commands, into `results/baselines/<model>/<run>/` (results.jsonl + metadata.json).

Each run's metadata.json gets a `baseline` block beside what vf-eval records: the command, the
subset it covers (or "full"), wall time, load average before and after, the machine (CPU model,
cores, memory), the model file and its sha256, the scorer fingerprint (behaviour version and a
sha256 over the environment package's Python sources; the scoring service's fingerprint for
smolscript) and the dataset sha256 values the rows carry. vf-eval's worker logs are dropped.

The servers must already run (`smol-envs-serve start [--model gemma-3-270m]`, and for
smolscript `python -m smolscript_sandbox start`); an unreachable one stops the script before any
run. A failed vf-eval run stops it with vf-eval's exit status; nothing half-written is kept.

Usage:
    uv run python scripts/run_baselines.py --model smollm2-135m [--only pico,smolscript] [--dry-run]
    uv run smol-envs report results/baselines            # the tables
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass, replace
from pathlib import Path

from smol_envs_core.server.model_files import sha256_of

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "results" / "baselines"
# Sampled runs (`--seed`): a second and third run of one model, for a seed-to-seed comparison;
# kept out of the leaderboard's folder.
OUT_SEEDS = ROOT / "results" / "extra"


@dataclass(frozen=True)
class Model:
    """A local model: its endpoint aliases (configs/endpoints.toml) and serve port."""

    key: str
    chat: str
    completions: str
    port: int


MODELS = {
    "smollm2-135m": Model("smollm2-135m", "smollm2-135m", "smollm2-135m-completions", 8765),
    "gemma-3-270m": Model("gemma-3-270m", "gemma-3-270m", "gemma-3-270m-completions", 8766),
}


@dataclass(frozen=True)
class Run:
    """One baseline run: vf-eval's env id, arguments and flags, and what it covers.

    api: "chat" or "completions" (which endpoint alias of the model); judge: True when the
    run needs the SmolLM2 server on 8765 as its judge.
    """

    name: str
    env: str
    env_args: dict
    flags: tuple[str, ...]
    subset: str
    api: str = "chat"
    package: str = ""
    judge: bool = False


SLM = "smol_slm_eval"
RUNS = (
    Run("pico-dsl-v1", "pico-dsl-v1", {}, ("-n", "48", "-r", "1", "-t", "256", "-T", "0"),
        "first 48 of the fixed 480 rows (2 per slice x level cell; the fixed order cycles the "
        "24 cells)", package="pico_dsl_v1"),
    Run("smolscript", "smolscript", {"per_language": 6}, ("-n", "-1", "-r", "1"),
        "first 6 tasks of each of the 9 languages (54 of 350)", api="completions",
        package="smolscript"),
    Run("smoltalkbench", "smoltalkbench",
        {"dataset": "fixture", "judge_model": "SmolLM2-135M-Instruct",
         "judge_base_url": "http://127.0.0.1:8765/v1", "judge_api_key_var": "",
         "judge_label_bias": "tokens", "judge_timeout_s": 600},
        ("-n", "12", "-r", "1", "-t", "128", "-C", "judge"),
        "the 12-row offline fixture, judged by SmolLM2-135M-Instruct: shows the mechanics, "
        "not a valid measurement", package="smoltalkbench", judge=True),
    *(Run(f"smol-slm-eval-{task}", "smol-slm-eval", {"task": task, "num_examples": n},
          ("-n", str(n)), "full" if n < 0 else f"first {n} rows", api="completions",
          package=SLM)
      for task, n in (("hellaswag", 50), ("arc_easy", -1), ("arc_challenge", -1),
                      ("gpqa_diamond", -1), ("math_500", 20))),
    Run("smol-slm-eval-bfcl_v4-simple_python", "smol-slm-eval",
        {"task": "bfcl_v4", "bfcl_category": "simple_python", "num_examples": 10}, ("-n", "10"),
        "first 10 rows of the simple_python category", api="completions", package=SLM),
)


def sources_sha256(package: str) -> str:
    """sha256 over an installed package's .py files (relative path and bytes, sorted)."""
    import importlib.util

    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit(f"run_baselines: package {package!r} is not installed")
    base = Path(next(iter(spec.submodule_search_locations)))
    digest = hashlib.sha256()
    for path in sorted(base.rglob("*.py")):
        digest.update(str(path.relative_to(base)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def model_file(key: str) -> Path:
    """The GGUF file the local server serves for model `key`."""
    from smol_envs_core.server import models

    return Path(models.get(key).locate())


def machine() -> dict:
    """CPU model, cores, memory (GiB) and platform of this machine."""
    cpu = next((line.split(":", 1)[1].strip() for line in
                Path("/proc/cpuinfo").read_text().splitlines() if line.startswith("model name")),
               platform.processor())
    pages = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    return {"cpu": cpu, "cores": os.cpu_count(), "memory_gib": round(pages / 2**30, 1),
            "platform": platform.platform()}


def reachable(url: str) -> bool:
    """True when GET url answers within 60 s (a busy llama.cpp server answers between
    generations)."""
    try:
        with urllib.request.urlopen(url, timeout=60):
            return True
    except OSError:
        return False


def sandbox_fingerprint() -> str | None:
    """The running scoring service's fingerprint (its /health record), None when not up."""
    port = os.environ.get("SMOLSCRIPT_SANDBOX_PORT", "8790")
    url = os.environ.get("SMOLSCRIPT_SANDBOX_URL", f"http://127.0.0.1:{port}")
    try:
        with urllib.request.urlopen(url.rstrip("/") + "/health", timeout=5) as answer:
            return json.load(answer).get("fingerprint")
    except OSError:
        return None


def command(run: Run, model: Model) -> list[str]:
    """The vf-eval command line of `run` on `model` (without the output folder)."""
    alias = model.completions if run.api == "completions" else model.chat
    return ["uv", "run", "vf-eval", run.env, "-e", "configs/endpoints.toml", "-m", alias,
            "-a", json.dumps(run.env_args), *run.flags, "-s"]


def execute(run: Run, model: Model, model_sha: str, target: Path | None = None,
            argv: list[str] | None = None) -> Path:
    """Run one baseline and move its folder to `target` (default
    results/baselines/<model>/<run>/).

    argv: the vf-eval command line without `-o` (default `command(run, model)`, the endpoint
    aliases of configs/endpoints.toml); scripts/make_outputs.py passes its own.
    """
    argv = argv or command(run, model)
    print("$", shlex.join(argv), flush=True)
    with tempfile.TemporaryDirectory(prefix="baseline-") as tmp:
        load_before = os.getloadavg()
        start = time.monotonic()
        done = subprocess.run([*argv, "-o", tmp], cwd=ROOT, check=False)
        wall = time.monotonic() - start
        load_after = os.getloadavg()
        if done.returncode != 0:
            raise SystemExit(f"run_baselines: {run.name} failed (vf-eval exit "
                             f"{done.returncode}); nothing kept")
        found = list(Path(tmp).rglob("results.jsonl"))
        if len(found) != 1:
            raise SystemExit(f"run_baselines: {run.name}: expected one results.jsonl, found "
                             f"{len(found)}")
        source = found[0].parent
        rows = [json.loads(line) for line in found[0].read_text().splitlines() if line.strip()]
        infos = [r["info"] if isinstance(r.get("info"), dict) else json.loads(r.get("info") or "{}")
                 for r in rows]
        meta_path = source / "metadata.json"
        metadata = json.loads(meta_path.read_text())
        metadata["baseline"] = {
            "command": shlex.join(argv),
            "subset": run.subset,
            "rows": len(rows),
            "wall_time_s": round(wall, 1),
            "load_average_before": [round(x, 2) for x in load_before],
            "load_average_after": [round(x, 2) for x in load_after],
            "machine": machine(),
            "model_key": model.key,
            "model_file": model_file(model.key).name,
            "model_sha256": model_sha,
            "scorer": {"behaviour_version": metadata.get("behaviour_version"),
                       "package": run.package, "sources_sha256": sources_sha256(run.package),
                       **({"service": sandbox_fingerprint()} if run.env == "smolscript" else {})},
            "dataset_sha256": sorted({str(i["dataset_sha256"]) for i in infos
                                      if i.get("dataset_sha256")}),
        }
        meta_path.write_text(json.dumps(metadata, indent=2) + "\n")
        for log in source.glob("*.log"):
            log.unlink()
        target = target or OUT / model.key / run.name
        if target.exists():
            shutil.rmtree(target)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.move(str(source), target)
    print(f"run_baselines: {run.name}: {len(rows)} rows in {wall:.0f} s -> "
          f"{target.relative_to(ROOT)}", flush=True)
    return target


def fewer_rows(run: Run, rows: int) -> Run:
    """`run` cut to its first `rows` rows: vf-eval's -n and the env's num_examples replaced,
    the subset label saying so."""
    flags = list(run.flags)
    flags[flags.index("-n") + 1] = str(rows)
    env_args = ({**run.env_args, "num_examples": rows} if "num_examples" in run.env_args
                else run.env_args)
    return replace(run, flags=tuple(flags), env_args=env_args,
                   subset=f"first {rows} rows of the plan's selection ({run.subset})")


def sampled(run: Run, seed: int) -> Run:
    """`run` sampled at temperature 1.0 with the endpoint's sampling seed `seed` (`-T 1.0 -S
    '{"seed": N}'`), labelled as such: two seeds give two runs to compare row by row."""
    flags = list(run.flags)
    if "-T" in flags:
        del flags[flags.index("-T"):flags.index("-T") + 2]
    return replace(run, flags=(*flags, "-T", "1.0", "-S", json.dumps({"seed": seed})),
                   subset=f"{run.subset}; sampled at temperature 1.0, seed {seed}")


def main(argv: list[str] | None = None) -> int:
    """Entry point; see the module docstring."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", choices=sorted(MODELS), required=True)
    parser.add_argument("--only", default="",
                        help="comma-separated run names or prefixes (default: every run)")
    parser.add_argument("--rows", type=int, default=None,
                        help="run only the first ROWS rows of each selected run (vf-eval -n, "
                             "and num_examples where the run sets it), labelled as such")
    parser.add_argument("--seed", type=int, default=None,
                        help="sample at temperature 1.0 with this seed, into "
                             "results/extra/<model>-<run>-seed<SEED>/ (not the leaderboard)")
    parser.add_argument("--dry-run", action="store_true", help="print the commands only")
    args = parser.parse_args(argv)
    model = MODELS[args.model]
    wanted = [w for w in args.only.split(",") if w]
    runs = [r for r in RUNS if not wanted or any(r.name.startswith(w) for w in wanted)]
    if args.rows is not None:
        runs = [fewer_rows(r, args.rows) for r in runs]
    if args.seed is not None:
        runs = [sampled(r, args.seed) for r in runs]
    if not runs:
        parser.error(f"--only {args.only!r} matches no run ({', '.join(r.name for r in RUNS)})")
    if args.dry_run:
        for run in runs:
            print(shlex.join(command(run, model)), " # ", run.subset)
        return 0
    needed = {model.port} | ({8765} if any(r.judge for r in runs) else set())
    for port in sorted(needed):
        if not reachable(f"http://127.0.0.1:{port}/v1/models"):
            raise SystemExit(f"run_baselines: no model server on port {port}: start it with "
                             "`uv run smol-envs-serve start` (--model gemma-3-270m for 8766)")
    if any(r.env == "smolscript" for r in runs) and sandbox_fingerprint() is None:
        raise SystemExit("run_baselines: the scoring service is not up: "
                         "`uv run python -m smolscript_sandbox start`")
    model_sha = sha256_of(model_file(model.key))
    for run in runs:
        execute(run, model, model_sha, None if args.seed is None
                else OUT_SEEDS / f"{model.key}-{run.name}-seed{args.seed}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
