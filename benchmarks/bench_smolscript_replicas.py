"""Benchmark: scoring throughput over 1, 2 and 3 local service containers (scale-out).

Runs the same workload (the program references of the default edition, the first
--per-language of each language, with all their hidden tests) through one multi-URL client
against 1, then 2, then 3 replicas of the service image (1 CPU, 2 slots, 1 browser each, the
production settings of container.py), and prints jobs/s, tests/s and the CPU seconds per test
the replicas used (service, sandboxes and browsers: the containers' cpuacct cgroups). On a
2-core host the jobs/s curve flattens after 2 replicas; CPU-s per test shows what each replica
costs. Needs a Docker engine and the image (dockerd.sh and build_sandbox_image.sh in
services/smolscript_sandbox/scripts/).

Usage: uv run python benchmarks/bench_smolscript_replicas.py [--image TAG] [--port 8830]
       [--per-language 6] [--replicas 1,2,3]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_smolscript_validation import run_sample, sample  # noqa: E402


def cpu_seconds(container_id: str) -> float:
    """CPU seconds used so far by every process of a container (cgroup v1 cpuacct)."""
    path = Path(f"/sys/fs/cgroup/cpuacct/docker/{container_id}/cpuacct.usage")
    return int(path.read_text()) / 1e9


def measure(image: str, ports: list[int], rows, solutions, hidden) -> dict:
    """Start one container per port, run the workload over all of them, stop them."""
    from smolscript_sandbox.container import start_container, stop_container

    with ThreadPoolExecutor(len(ports)) as pool:
        started = list(pool.map(lambda p: start_container(image, p, slots=2), ports))
    try:
        os.environ["SMOLSCRIPT_SANDBOX_URL"] = ",".join(s.url for s in started)
        before = [cpu_seconds(s.container_id) for s in started]
        load = os.getloadavg()[0]
        result = asyncio.run(run_sample(rows, solutions, hidden, per_test=False,
                                        concurrency=4 * len(ports)))
        cpu = sum(cpu_seconds(s.container_id) - b for s, b in zip(started, before, strict=True))
        result.update(cpu_s=cpu, load_before=load, load_after=os.getloadavg()[0])
        return result
    finally:
        for s in started:
            stop_container(s.container_id)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=Path("data/smolscript"))
    parser.add_argument("--image", default="smolscript-sandbox:0.1.0")
    parser.add_argument("--port", type=int, default=8830, help="first of the replicas' ports")
    parser.add_argument("--per-language", type=int, default=6)
    parser.add_argument("--replicas", default="1,2,3")
    args = parser.parse_args()

    from smolscript_builder.validate import load_edition

    rows, solutions, hidden = load_edition(args.data)
    picked = sample(rows, args.per_language)
    jobs = len(picked)
    print(f"cores={os.cpu_count()} image={args.image} workload: {jobs} program jobs "
          f"({args.per_language} per language), every hidden test; 1 CPU, 2 slots per replica")
    print("| replicas | jobs | tests | passed | wall s | jobs/s | tests/s | CPU-s/test "
          "| load before/after |")
    print("|---|---|---|---|---|---|---|---|---|")
    for count in (int(n) for n in args.replicas.split(",")):
        r = measure(args.image, [args.port + i for i in range(count)], picked, solutions, hidden)
        print(f"| {count} | {jobs} | {r['tests']} | {r['passed']} | {r['wall_s']:.1f} "
              f"| {jobs / r['wall_s']:.2f} | {r['tests_per_s']:.1f} "
              f"| {r['cpu_s'] / r['tests']:.3f} | {r['load_before']:.1f}/{r['load_after']:.1f} |",
              flush=True)


if __name__ == "__main__":
    main()
