"""Benchmark: RL-shaped scoring of smolscript completions through the environment's rubric.

Builds `--completions` (512) model-like continuations over the default edition's tasks, all
nine languages, in a fixed mix: the reference's continuation (passes), the negative control's
and the near-miss's (wrong answers), the reference with a stray `@@` line (compile or syntax
errors) and, for a few tasks, an endless loop (timeouts). They are scored the way a trainer
scores rollouts: `load_environment(...).rubric.score_group` on groups of `--group` rollout
states, `--concurrency` (32) completions in flight. Nothing is mocked: the real rubric, the
real client and the real scoring service.

Prints completions/s, the p50/p99 latency of one completion (the rubric's `scoring_s`), the
verdict mix, and the CPU seconds by stage, per test, from real process accounting:
- isolation setup: the service thread's CPU preparing and sweeping slots, plus the exact CPU of
  starting each sandbox (`sandbox_start_cpu_s` of /health: an empty sandbox measured on a
  slot's cpuacct cgroup at start-up) times the sandboxes started;
- compile / run: the slot's cpuacct cgroup around each compile and each test run (the
  reply's `stages`), less their sandbox start-ups;
- browser: the browsers' own CPU over the run (/health `cpu_s.browsers`);
- verdict: this process's CPU inside `judge_program` / `judge_browser` (`time.thread_time`);
- beside them, the service's Python CPU (/health `cpu_s.service`) and the rest of this
  process (rubric, assembly, HTTP client).

By default (`--mode both`) the same completions are scored twice in one invocation: full
scoring (every test, credit baselines: what vf-eval records), then reward-only scoring
(`load_environment(reward_only=True)`: a program job stops at its first failing test, no
credit baselines). It prints both modes' figures and the ratio, compares the reward, `passed`,
`syntax_ok`, `empty_response` and the verdict's status row by row, and exits non-zero when any
differs. Each mode's total CPU is also printed from the program slots' cpuacct counts (/health
`cpu_s.slots`: stopped jobs' cancelled tests included), the browsers, the service's Python and
this process.

Usage: uv run python benchmarks/bench_smolscript_rl.py [--url http://127.0.0.1:8797]
       [--completions 512] [--concurrency 32] [--group 8] [--timeouts 4]
       [--mode both|full|reward-only]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import time
from collections import Counter

# A line that no language of the nine parses (a stray token); the rest is the reference.
BROKEN_LINE = {"html": "<div <<@@\n", "css": "@@ { color: ; \n"}
# An endless loop at the start of the function body (volatile: C/C++ may not drop it).
ENDLESS = {
    "python": "    while True:\n        pass\n",
    "c": "    volatile int spin = 1;\n    while (spin) {}\n",
    "cpp": "    volatile int spin = 1;\n    while (spin) {}\n",
    "rust": "    loop {}\n",
    "lua": "  while true do end\n",
    "javascript": "  while (true) {}\n",
    "csharp": "        while (true) {}\n",
}
KINDS = ("pass", "wrong", "near_miss", "compile_error")
WEIGHTS = (8, 5, 3, 4)  # of every 20 completions


def loadavg() -> str:
    """The 1/5/15-minute load averages, as one string."""
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def continuation(task: dict, solution: dict, kind: str) -> str:
    """The model-like continuation of `kind` for one task (see the module docstring)."""
    from smolscript.assemble import body_of_reference

    reference = body_of_reference(task, solution["reference_solution"])
    if kind == "pass":
        return reference
    if kind == "compile_error":
        return BROKEN_LINE.get(task["language"], "    @@ ;\n") + reference
    if kind == "timeout":
        return ENDLESS[task["language"]] + reference
    source = solution["near_miss"] if kind == "near_miss" else solution["negative_control"]
    try:
        return body_of_reference(task, source)
    except ValueError:  # a control written without the prefix: the model wrote it all
        return source


def build_mix(tasks: list[dict], solutions: dict, total: int, timeouts: int) -> list[tuple]:
    """`total` (task, kind, continuation) triples cycling over tasks in a fixed kind mix;
    the first `timeouts` program tasks of distinct languages get an endless loop instead."""
    plan = [kind for kind, weight in zip(KINDS, WEIGHTS, strict=True) for _ in range(weight)]
    mix, looped = [], set()
    for i in range(total):
        task = tasks[(i * 37) % len(tasks)]  # a stride mixes languages and difficulties
        sol = solutions[task["id"]]
        kind = plan[i % len(plan)]
        if kind == "near_miss" and not sol.get("near_miss"):
            kind = "wrong"
        if (len(looped) < timeouts and task["modality"] == "program"
                and task["language"] in ENDLESS and task["language"] not in looped):
            kind = "timeout"
            looped.add(task["language"])
        mix.append((task, kind, continuation(task, sol, kind)))
    return mix


async def score_all(rubric, states: list[dict], group: int, concurrency: int) -> float:
    """Score `states` in groups through `rubric.score_group`, `concurrency` states in flight;
    returns the wall seconds."""
    groups = [states[i:i + group] for i in range(0, len(states), group)]
    gate = asyncio.Semaphore(max(1, concurrency // group))

    async def one(batch: list[dict]) -> None:
        async with gate:
            await rubric.score_group(batch)

    started = time.monotonic()
    await asyncio.gather(*(one(batch) for batch in groups))
    return time.monotonic() - started


MODES = {"full": False, "reward-only": True}
COMPARED = ("passed", "syntax_ok", "empty_response")  # every metric both modes compute


def run_mode(mode: str, mix: list[tuple], args: argparse.Namespace, rec) -> dict:
    """Score the mix once in `mode` (a fresh environment and fresh states); print its figures
    and return {"states", "wall", "cpu"}."""
    from smolscript import credit
    from smolscript.env import load_environment
    from smolscript_sandbox.testing import ensure_service
    from smolscript_stages import stage_table

    credit._CACHE.clear()  # each mode pays for its own baselines, as a fresh trainer would
    env = load_environment(service_url=args.url, concurrency=args.concurrency,
                           reward_only=MODES[mode])
    states = [{"info": {"id": task["id"]}, "completion": text, "prompt": "", "answer": "",
               "trajectory": [], "example_id": i} for i, (task, _, text) in enumerate(mix)]
    rec.program.clear()
    rec.browser.clear()
    rec.verdict_cpu = 0.0
    rec.browser_tests = rec.stopped = 0
    health0 = ensure_service(args.url)
    print(f"\n== {mode} scoring; load average {loadavg()}", flush=True)
    cpu0 = time.process_time()
    wall = asyncio.run(score_all(env.rubric, states, args.group, args.concurrency))
    host_cpu = time.process_time() - cpu0
    health1 = ensure_service(args.url)
    latencies = sorted(s["info"]["verdict"]["scoring_s"] for s in states)
    statuses = Counter(s["info"]["verdict"]["status"] for s in states)
    p99 = latencies[min(len(latencies) - 1, round(0.99 * (len(latencies) - 1)))]
    print(f"{mode}: scored {len(states)} completions in {wall:.1f} s: {len(states) / wall:.2f} "
          f"completions/s; latency p50 {statistics.median(latencies):.2f} s, p99 {p99:.2f} s, "
          f"max {latencies[-1]:.2f} s; load average {loadavg()}")
    print(f"verdicts: {dict(statuses)}; mean reward "
          f"{statistics.fmean(s['reward'] for s in states):.3f}")
    total = None
    if health1["cpu_s"].get("slots") is not None:
        used = {key: health1["cpu_s"][key] - health0["cpu_s"][key]
                for key in ("service", "slots", "browsers")}
        total = sum(used.values()) + host_cpu
        print(f"CPU in all: {total:.1f} s, {total / len(states) * 1000:.0f} ms per completion "
              f"(program slots {used['slots']:.1f} s - every compile and test process, "
              f"cancelled ones included -, browsers {used['browsers']:.1f} s, the service's "
              f"Python {used['service']:.1f} s, this process {host_cpu:.1f} s)")
    stage_table(rec, health0, health1, host_cpu, len(states))
    return {"states": states, "wall": wall, "cpu": total}


def compare(mix: list[tuple], before: list[dict], after: list[dict]) -> list[str]:
    """Row-by-row differences between two modes' scores: reward, the metrics both compute,
    and the verdict's status; [] when they agree on every completion."""
    diffs = []
    for i, ((task, kind, _), a, b) in enumerate(zip(mix, before, after, strict=True)):
        va, vb = a["info"]["verdict"], b["info"]["verdict"]
        ra, rb = a["smolscript"], b["smolscript"]
        fields = [("reward", a["reward"], b["reward"]), ("status", va["status"], vb["status"])]
        fields += [(m, ra["metrics"][m], rb["metrics"][m]) for m in COMPARED]
        diffs += [f"#{i} {task['id']} ({kind}) {name}: {x!r} -> {y!r}"
                  for name, x, y in fields if x != y]
    return diffs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", default=os.environ.get("SMOLSCRIPT_SANDBOX_TEST_URL",
                                                        "http://127.0.0.1:8797"))
    parser.add_argument("--completions", type=int, default=512)
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--group", type=int, default=8, help="rollouts per score_group call")
    parser.add_argument("--timeouts", type=int, default=4,
                        help="completions with an endless loop (each costs 3 s CPU per test)")
    parser.add_argument("--mode", choices=("both", *MODES), default="both",
                        help="both (default): full scoring, then reward-only scoring of the "
                             "same completions, compared row by row")
    args = parser.parse_args()

    from smolscript import data
    from smolscript_sandbox.testing import ensure_service
    from smolscript_stages import Recorder

    health0 = ensure_service(args.url)
    tasks = data.load_tasks("default", None, None)
    solutions = data.load_references("default")
    mix = build_mix(tasks, solutions, args.completions, args.timeouts)
    rec = Recorder()
    rec.install()
    print(f"{len(mix)} completions over {len({t['id'] for t, _, _ in mix})} tasks, "
          f"{len({t['language'] for t, _, _ in mix})} languages; kinds "
          f"{dict(Counter(kind for _, kind, _ in mix))}; concurrency {args.concurrency} "
          f"(groups of {args.group}); slots {health0['slots']}, browser slots "
          f"{health0['browser_slots']}; load average {loadavg()}", flush=True)
    modes = list(MODES) if args.mode == "both" else [args.mode]
    runs = {mode: run_mode(mode, mix, args, rec) for mode in modes}
    from target_lines import Outcome

    outcome = Outcome()
    for mode, run in runs.items():
        wrong = [(kind, s["info"]["verdict"]["status"])
                 for (_, kind, _), s in zip(mix, run["states"], strict=True)
                 if (kind == "pass") != bool(s["info"]["verdict"]["passed"])]
        outcome.check(not wrong, f"{mode}: {len(wrong)} completions scored against their "
                      f"kind: {wrong[:5]}")
    if len(runs) == 2:
        full, fast = runs["full"], runs["reward-only"]
        diffs = compare(mix, full["states"], fast["states"])
        print(f"\nreward-only vs full on the same {len(mix)} completions: "
              f"{full['wall'] / fast['wall']:.2f}x completions/s "
              f"({len(mix) / full['wall']:.2f} -> {len(mix) / fast['wall']:.2f}), "
              + (f"{full['cpu'] / fast['cpu']:.2f}x less CPU ({full['cpu']:.0f} -> "
                 f"{fast['cpu']:.0f} s); " if full["cpu"] and fast["cpu"] else "")
              + f"load average {loadavg()}")
        if outcome.check(not diffs, f"different scores on {len(diffs)} fields: "
                         + "; ".join(diffs[:10])):
            print(f"identical rewards, {', '.join(COMPARED)} and verdict statuses on all "
                  f"{len(mix)} completions")
    raise SystemExit(outcome.finish())


if __name__ == "__main__":
    main()
