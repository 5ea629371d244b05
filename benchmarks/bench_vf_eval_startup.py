"""Time from `vf-eval ENV ...` to its first model request, per environment, and what verifiers'
own start-up costs of it.

A stub OpenAI-compatible endpoint on loopback (this file) records the moment of the first POST
it receives and answers every request with a short fixed reply; the benchmark starts
`vf-eval ENV -b STUB -n 1 -r 1 -a ARGS` in its own process group, waits for that first request,
then ends the run (its whole process group). It also times, each in a fresh interpreter:
`vf-eval --help`; `import verifiers.legacy.scripts.eval` (what vf-eval imports before it parses
its arguments: verifiers' floor, not ours); `import ENV_MODULE` and `load_environment(**ARGS)`
after that import (our part). Wall seconds and the CPU seconds of the processes (user + system,
children included, from `resource.getrusage`), which a busy machine inflates less than wall
time. With `--env-server`, vf-eval runs with verifiers' env server (SMOL_ENVS_ENV_SERVER=1: a
router and a worker process that import everything and load the environment again), without
it as the collection's environments run by default (rollouts in the vf-eval process); with
`--compare` both, and the ratio. With `--bytecode`, verifiers' floor, `--help` and the first
requests are timed a second time without the installed bytecode (PYTHONPYCACHEPREFIX set to an
empty folder, so every module is compiled from source, as in a venv installed without
`compile-bytecode` where .pyc files cannot be written), and the ratio printed. Medians over
`--rounds`, and the 1-minute load average at the start and end of each row. The CPU seconds of
a vf-eval run stopped at its first request count only the processes it had reaped: the env
server's processes are not in them (compare the wall seconds there).

    uv run python benchmarks/bench_vf_eval_startup.py [--rounds 3] [--compare] [--bytecode]
        [--envs pico-dsl-v1,...]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

VF_EVAL = Path(sys.executable).parent / "vf-eval"
KEY_VAR = "SMOL_ENVS_BENCH_KEY"
REPLY = "<answer>\nx\n</answer>"
FIRST_REQUEST_TIMEOUT_S = 600.0


def env_args(env_id: str, stub_url: str) -> dict:
    """The `-a` arguments of each environment's run: one row, no other service needed before
    the first model request (the smoltalkbench judge is the stub too)."""
    return {
        "pico-dsl-v1": {"num_examples": 1},
        "smol-slm-eval": {"task": "arc_easy", "num_examples": 1},
        "smolscript": {"languages": ["python"], "per_language": 1},
        "smoltalkbench": {"dataset": "fixture", "num_examples": 1, "judge_base_url": stub_url,
                          "judge_model": "stub", "judge_api_key_var": ""},
    }[env_id]


class Stub:
    """A loopback endpoint answering chat and completions requests with `REPLY`; `first` is
    the time.monotonic() of the first POST since the last `reset()` (None before)."""

    def __init__(self) -> None:
        self.first: float | None = None
        self.seen = threading.Event()
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args) -> None:  # quiet
                return

            def do_GET(self) -> None:  # noqa: N802 - http.server's name
                self._json({"object": "list", "data": [{"id": "stub", "object": "model"}]})

            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                if stub.first is None:
                    stub.first = time.monotonic()
                    stub.seen.set()
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0))
                                  or b"{}")
                usage = {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}
                if "messages" in body:
                    choice = {"index": 0, "finish_reason": "stop", "logprobs": None,
                              "message": {"role": "assistant", "content": REPLY}}
                    kind = "chat.completion"
                else:
                    choice = {"index": 0, "finish_reason": "stop", "logprobs": None,
                              "text": REPLY}
                    kind = "text_completion"
                self._json({"id": "stub", "object": kind, "created": 0, "model": "stub",
                            "choices": [choice], "usage": usage})

            def _json(self, payload: dict) -> None:
                raw = json.dumps(payload).encode()
                try:
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(raw)))
                    self.end_headers()
                    self.wfile.write(raw)
                except OSError:  # the benchmark ended the run after its first request
                    return

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def reset(self) -> None:
        self.first = None
        self.seen.clear()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def children_cpu() -> float:
    """CPU seconds (user + system) of every waited-for child process so far."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


# Variables every timed process gets (`--bytecode`: an empty bytecode cache for the second pass).
EXTRA_ENV: dict[str, str] = {}


def timed(command: list[str]) -> tuple[float, float]:
    """(wall s, CPU s) of one command run to its end (its output discarded).

    Raises subprocess.CalledProcessError when it fails."""
    cpu, start = children_cpu(), time.monotonic()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                   env={**os.environ, **EXTRA_ENV})
    return time.monotonic() - start, children_cpu() - cpu


def first_request(stub: Stub, env_id: str, env_server: bool, workdir: Path
                  ) -> tuple[float, float]:
    """(wall s, CPU s) from starting vf-eval on `env_id` to the stub's first request; the run
    is then ended (SIGKILL to its process group, which this function started).

    Raises RuntimeError when vf-eval ends or times out before any request."""
    stub.reset()
    env = {**os.environ, **EXTRA_ENV, KEY_VAR: "EMPTY",
           "SMOL_ENVS_ENV_SERVER": "1" if env_server else "0"}
    command = [str(VF_EVAL), env_id, "-b", stub.url, "-k", KEY_VAR, "-m", "stub", "-n", "1",
               "-r", "1", "-a", json.dumps(env_args(env_id, stub.url))]
    if env_id == "smolscript":
        command += ["--api-client-type", "openai_completions"]
    return until_first_request(stub, command, env, workdir, f"vf-eval {env_id}")


def until_first_request(stub: Stub, command: list[str], env: dict[str, str], workdir: Path,
                        label: str) -> tuple[float, float]:
    """(wall s, CPU s) from starting `command` (in its own process group, in `workdir`, with
    `env`) to the stub's first request, or FIRST_REQUEST_TIMEOUT_S; the group is then ended
    with SIGKILL. The stub must have been reset by the caller.

    Raises RuntimeError (naming `label` and the end of its stderr) when the command ends or
    times out before any request."""
    cpu, start = children_cpu(), time.monotonic()
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            env=env, cwd=workdir, start_new_session=True)
    deadline = start + FIRST_REQUEST_TIMEOUT_S
    while not stub.seen.wait(0.05):
        if proc.poll() is not None or time.monotonic() > deadline:
            break
    seen = stub.first
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    _, err = proc.communicate()
    if seen is None:
        raise RuntimeError(f"{label} made no request: {err.decode()[-2000:]}")
    return seen - start, children_cpu() - cpu


def module_of(env_id: str) -> str:
    return env_id.replace("-", "_")


def load_script(env_id: str, stub_url: str) -> str:
    """Python that imports verifiers' vf-eval module, then times our import and
    `load_environment` and prints the seconds as JSON."""
    return (
        "import json, time\n"
        "import verifiers.legacy.scripts.eval\n"
        f"t0 = time.monotonic(); import {module_of(env_id)} as m; t1 = time.monotonic()\n"
        f"m.load_environment(**json.loads({json.dumps(json.dumps(env_args(env_id, stub_url)))}))\n"
        "t2 = time.monotonic()\n"
        "print(json.dumps({'import': t1 - t0, 'load': t2 - t1}))\n")


def our_part(env_id: str, stub_url: str) -> dict[str, float]:
    """Wall seconds of `import ENV` and of `load_environment` after verifiers is imported."""
    out = subprocess.run([sys.executable, "-c", load_script(env_id, stub_url)], check=True,
                         capture_output=True, text=True, env={**os.environ, KEY_VAR: "EMPTY"})
    return json.loads(out.stdout.strip().splitlines()[-1])


def median_of(rounds: int, measure) -> tuple[float, float]:
    values = [measure() for _ in range(rounds)]
    return (statistics.median(v[0] for v in values), statistics.median(v[1] for v in values))


def load() -> float:
    return os.getloadavg()[0]


def one_pass(args: argparse.Namespace, stub: Stub, label: str) -> dict[str, float]:
    """Print the rows of one pass (`label` names it); return the wall seconds by row name."""
    workdir = Path(os.environ.get("TMPDIR", "/tmp"))
    walls: dict[str, float] = {}
    row_load = load()
    wall, cpu = median_of(args.rounds, lambda: timed([sys.executable, "-c",
                                                      "import verifiers.legacy.scripts.eval"]))
    walls["floor"] = wall
    print(f"[{label}] import verifiers.legacy.scripts.eval (verifiers' floor): {wall:.2f} "
          f"[{cpu:.2f}]  load {row_load:.1f} -> {load():.1f}", flush=True)
    row_load = load()
    wall, cpu = median_of(args.rounds, lambda: timed([str(VF_EVAL), "--help"]))
    walls["help"] = wall
    print(f"[{label}] vf-eval --help: {wall:.2f} [{cpu:.2f}]  load {row_load:.1f} -> "
          f"{load():.1f}", flush=True)
    modes = [True, False] if args.compare else [args.env_server]
    for env_id in args.envs.split(","):
        row_load = load()
        parts = [our_part(env_id, stub.url) for _ in range(args.rounds)]
        ours = {k: statistics.median(p[k] for p in parts) for k in ("import", "load")}
        timings = {mode: median_of(args.rounds, lambda mode=mode, env_id=env_id: first_request(
            stub, env_id, mode, workdir)) for mode in modes}
        walls.update({f"{env_id} {'env server' if mode else 'in process'}": w
                      for mode, (w, _) in timings.items()})
        cells = "  ".join(
            f"{'env server' if mode else 'in process'}: {w:.2f} [{c:.2f}]"
            for mode, (w, c) in timings.items())
        ratio = ""
        if args.compare:
            ratio = (f"  ratio env server / in process: wall "
                     f"{timings[True][0] / timings[False][0]:.2f}x, CPU "
                     f"{timings[True][1] / timings[False][1]:.2f}x")
        print(f"[{label}] {env_id}: first request {cells}{ratio}; our import "
              f"{ours['import']:.2f}, load_environment {ours['load']:.2f}  load "
              f"{row_load:.1f} -> {load():.1f}", flush=True)
    return walls


def main(argv: list[str] | None = None) -> None:
    """Command line entry: print the table (seconds; CPU in brackets)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--envs", default="pico-dsl-v1,smol-slm-eval,smolscript,smoltalkbench")
    parser.add_argument("--env-server", action="store_true",
                        help="time vf-eval with verifiers' env server processes")
    parser.add_argument("--compare", action="store_true",
                        help="time with and without the env server, and print the ratio")
    parser.add_argument("--bytecode", action="store_true",
                        help="time everything again without the installed bytecode")
    args = parser.parse_args(argv)
    print(f"{os.cpu_count()} CPUs; medians of {args.rounds} rounds; wall s [CPU s]; "
          "load = 1-minute load average at start -> end of the row")
    stub = Stub()
    try:
        with_bytecode = one_pass(args, stub, "installed bytecode")
        if args.bytecode:
            with tempfile.TemporaryDirectory() as empty:
                EXTRA_ENV["PYTHONPYCACHEPREFIX"] = empty
                EXTRA_ENV["PYTHONDONTWRITEBYTECODE"] = "1"
                without = one_pass(args, stub, "no bytecode")
                EXTRA_ENV.clear()
            for row, wall in with_bytecode.items():
                print(f"ratio no bytecode / installed bytecode, {row}: "
                      f"{without[row] / wall:.2f}x")
    finally:
        stub.close()


if __name__ == "__main__":
    main()
