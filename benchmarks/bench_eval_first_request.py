"""Time from the command to the first model request: `smol-envs eval` (after) against one
`vf-eval` process per environment (before: what a user ran before `smol-envs eval` existed).

Both runs point at the same loopback stub endpoint (`bench_vf_eval_startup.Stub`: it lists the
model id "stub", records the moment of its first POST and answers with a short fixed reply), so
no model server's start is counted and the two commands differ only in what they do before the
first request. Before: `vf-eval ENV -b STUB -m stub -n 1 -r 1` (`bench_vf_eval_startup.
first_request`, rollouts in the vf-eval process as the collection runs them by default). After:
`smol-envs eval STUB --model-id stub --env ENV --limit 1` into a temporary run set (it checks the
endpoint's /v1/models, writes its endpoints file and manifest, then calls vf-eval's entry point
in its own process). Each command is started in its own process group and ended (SIGKILL) at the
stub's first request. Wall seconds and CPU seconds (user + system of the reaped processes), the
median over `--rounds`, and the 1-minute load average at the start and end of each row: on a
shared machine read the CPU seconds first.

    uv run python benchmarks/bench_eval_first_request.py [--rounds 3] [--envs pico-dsl-v1,...]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
from pathlib import Path

from bench_vf_eval_startup import KEY_VAR, Stub, first_request, until_first_request


def eval_first_request(stub: Stub, env_id: str, workdir: Path) -> tuple[float, float]:
    """(wall s, CPU s) from starting `smol-envs eval` on `env_id` against the stub to the
    stub's first request; the command is then ended (SIGKILL to its process group).

    Raises RuntimeError when it ends or times out before any request."""
    stub.reset()
    out = Path(tempfile.mkdtemp(dir=workdir))
    command = [sys.executable, "-m", "smol_envs_core.cli", "eval", stub.url, "--model-id", "stub",
               "--api-key-var", KEY_VAR, "--env", env_id, "--limit", "1", "--output", str(out)]
    return until_first_request(stub, command, {**os.environ, KEY_VAR: "EMPTY"}, workdir,
                               f"smol-envs eval {env_id}")


def load() -> float:
    return os.getloadavg()[0]


def row(label: str, rounds: int, measure) -> None:
    """Print one row: the medians of `rounds` calls of `measure` (-> (wall, cpu))."""
    before = load()
    got = [measure() for _ in range(rounds)]
    wall = statistics.median(g[0] for g in got)
    cpu = statistics.median(g[1] for g in got)
    print(f"| {label} | {wall:.1f} | {cpu:.1f} | {rounds} | {before:.1f} -> {load():.1f} |",
          flush=True)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--envs", default="pico-dsl-v1")
    args = parser.parse_args(argv)
    stub = Stub()
    print(f"cores {os.cpu_count()}; medians of {args.rounds} rounds\n")
    print("| command to first request | wall s | CPU s | N | load 1 min |")
    print("| :--- | ---: | ---: | ---: | :--- |")
    try:
        with tempfile.TemporaryDirectory() as tmp:
            work = Path(tmp)
            for env_id in args.envs.split(","):
                row(f"before: vf-eval {env_id}", args.rounds,
                    lambda e=env_id: first_request(stub, e, False, work))
                row(f"after: smol-envs eval --env {env_id}", args.rounds,
                    lambda e=env_id: eval_first_request(stub, e, work))
    finally:
        stub.close()


if __name__ == "__main__":
    main()
