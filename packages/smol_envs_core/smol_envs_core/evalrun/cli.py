"""The `smol-envs eval` subcommand: its arguments and its entry (`run_eval`).

    smol-envs eval MODEL [MODEL ...] [--suite quick|full] [--env ID ...] [--limit N]
                   [--output DIR] [--resume] [--judge J [--judge-model ID]
                   [--judge-key-var VAR]] [--model-id ID] [--api-key-var VAR] [--threads N]
    smol-envs eval --sweep DIR [...]      every checkpoint in DIR, then the curve
    smol-envs eval --list                 the suites
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from . import interrupt, suites
from .engines import ENGINES, LLAMA_CPP, VLLM_PYTHON_VAR

DESCRIPTION = """Score MODEL across the collection in one command.

MODEL is a registered alias (smollm2-135m, gemma-3-270m), a GGUF file, a Hugging Face checkpoint
folder (converted once to GGUF by llama.cpp's own converter, cached by content hash), or an
OpenAI-compatible base URL with --model-id (and --api-key-var). The command starts what the run
needs (a model server on a free port, the smolscript scoring service, the judge), runs every
environment of the suite through vf-eval's own entry point with the API it needs, saves one run
set (a folder per run that `smol-envs report` reads, and manifest.json), prints a summary table
with 95% intervals and stops what it started (also on Ctrl-C: one line says what was saved and
how to resume). Several MODELs, or --sweep DIR, evaluate each in turn into OUTPUT/<model>/ and
then draw one chart per headline metric across them, with the paired comparison of consecutive
checkpoints. Exit status: 0 done; 1 an infrastructure failure; 2 a bad argument; 130 Ctrl-C."""


def add_eval_parser(sub, formatter) -> argparse.ArgumentParser:
    """Add the `eval` subcommand to the `smol-envs` subparsers `sub`."""
    p = sub.add_parser("eval", help="score a model (alias, GGUF, HF folder or endpoint) "
                                    "across the collection", description=DESCRIPTION,
                       formatter_class=formatter)
    p.add_argument("models", nargs="*", metavar="MODEL", help="what to evaluate (see above)")
    p.add_argument("--suite", choices=suites.SUITES, default="quick",
                   help="quick: a fixed subset that finishes in minutes on 2 cores (labelled "
                        "a subset wherever shown); full: every benchmark in full")
    p.add_argument("--env", action="append", default=None, metavar="ID",
                   help="only this run or environment id (repeatable; --list names them)")
    p.add_argument("--limit", type=int, default=None, metavar="N",
                   help="at most N rows per run")
    p.add_argument("--output", "-o", type=Path, default=Path("eval-runs"), metavar="DIR",
                   help="the run set folder (with several models: one subfolder per model)")
    p.add_argument("--resume", action="store_true",
                   help="keep what DIR holds: skip complete runs, and run only the missing "
                        "or errored rows of the others (kept rows are never rescored)")
    p.add_argument("--judge", default=None, metavar="J",
                   help="smoltalkbench's judge: an endpoint URL (with --judge-model) or a "
                        "MODEL served locally; default: the bundled local SmolLM2 judge, "
                        "whose figures are labelled mechanics only")
    p.add_argument("--judge-model", default=None, help="the judge endpoint's model id")
    p.add_argument("--judge-key-var", default=None, help="the variable holding its key")
    p.add_argument("--model-id", default=None,
                   help="an endpoint MODEL's id (what its /v1/models lists); for a file, the "
                        "id to serve it under (default: its name)")
    p.add_argument("--api-key-var", default=None, help="the variable holding the endpoint's key")
    p.add_argument("--sweep", type=Path, default=None, metavar="DIR",
                   help="evaluate every checkpoint in DIR (GGUF files and Hugging Face "
                        "folders, in name order), then chart them")
    p.add_argument("--threads", type=int, default=2,
                   help="llama.cpp threads per server (the most a decode uses)")
    p.add_argument("--fixed-threads", action="store_true",
                   help="always use --threads (default: each decode uses only the cores other "
                        "programs leave free, which keeps a shared machine from stalling it)")
    p.add_argument("--engine", choices=ENGINES, default=LLAMA_CPP,
                   help="what serves a model file: llama.cpp (our llama-cpp-python server; "
                        "GGUF, alias, HF folder converted to GGUF) or vllm (vLLM's OpenAI "
                        "server of a Hugging Face folder; README: Engines)")
    p.add_argument("--vllm-python", default=None, metavar="PATH",
                   help=f"the python of a vLLM installation (default: ${VLLM_PYTHON_VAR})")
    p.add_argument("--vllm-args", default=None, metavar="ARGS",
                   help="vLLM server arguments replacing the default '--dtype float32' "
                        "(e.g. '--dtype auto --tensor-parallel-size 2' on GPUs)")
    p.add_argument("--list", action="store_true", help="print the suites and exit")
    p.add_argument("--debug", action="store_true",
                   help="show the traceback of an error instead of one line")
    return p


def run_eval(args: argparse.Namespace, argv: list[str] | None) -> int:
    """Entry of `smol-envs eval`; returns the exit status. Raises SmolEnvsError / ValueError
    (one line through `cli.guarded`)."""
    if args.list:
        print(suites.table())
        return 0
    from .run import environment_ready

    given = list(args.models)
    if args.sweep is not None:
        from .sweep import checkpoints

        given += [str(p) for p in checkpoints(args.sweep)]
    if not given:
        raise ValueError("smol-envs eval: name a MODEL (or --sweep DIR, or --list)")
    suites.runs(args.suite, args.env)  # a bad --env fails before anything starts
    environment_ready()
    raw = list(sys.argv[2:] if argv is None else argv[1:])
    with interrupt.redelivered():  # a Ctrl-C that a library swallowed is sent again
        try:
            return _evaluate_all(args, given, raw)
        except KeyboardInterrupt:  # between runs or during the summary: every run is saved
            print(f"smol-envs eval: interrupted after the runs; they are saved in "
                  f"{args.output} (`smol-envs report {args.output}` shows them)",
                  file=sys.stderr)
            return interrupt.handled()


def _evaluate_all(args: argparse.Namespace, given: list[str], raw: list[str]) -> int:
    """Evaluate each MODEL in turn, print its summary, then the sweep's charts."""
    from .engines import select
    from .run import EvalOptions, guarded_evaluate
    from .summary import print_summary

    engine = select(args.engine, args.vllm_python, args.vllm_args)
    outputs = []
    for model in given:
        spec = engine.resolve(model, args.model_id if len(given) == 1 else None, args.api_key_var)
        output = args.output if len(given) == 1 else args.output / spec.label
        opts = EvalOptions(suite=args.suite, envs=args.env, limit=args.limit, output=output,
                           resume=args.resume, judge=args.judge, judge_model=args.judge_model,
                           judge_key_var=args.judge_key_var, threads=args.threads,
                           fixed_threads=args.fixed_threads, argv=raw, engine=engine)
        status = guarded_evaluate(spec, opts)
        if status != 0:
            return status
        print_summary(output, f"{spec.label}: suite {args.suite}")
        outputs.append(output)
    if len(outputs) > 1:
        from .sweep import chart_sweep

        chart_sweep(outputs, args.output)
    return 0
