"""Prompt processing of the local models with logits at every position (llama-cpp-python's
`logits_all`, what an echoed log-likelihood request without `echo_logprobs_from` pays), at the
last position only (what a request without log-probabilities pays:
`smol_envs_core.server.output_rows`) and at the positions a log-likelihood request reads
(`--read` positions at the prompt's end, as a continuation's: `output_rows.READ_ROWS`; the
server uses it for plain-attention models only, see `smol_envs_core.server.loglik`), against
plain transformers in float32 on the same model (the GGUF file's weights dequantized by
transformers' `gguf_file=` loader) and the same
prompt tokens, in one run; and greedy generation of both.

For each model (`--models`), a Llama loaded as the server loads it (n_ctx 2048, logits_all,
`--threads` for prompts and generation) evaluates the same prompt of about `--tokens` tokens
from an empty cache, `--rounds` times in each mode, alternating; then generates `-n` tokens
greedily after a short prompt (`Llama.generate`, the server's path, last row only). With
`--transformers-python` (a Python with torch, transformers and gguf; not the workspace's venv,
see README), the same is timed there in a subprocess at the same thread count: a forward pass
over the prompt (logits at every position, and with `logits_to_keep=1`) and `generate` of `-n`
new tokens. Prints prompt tokens/s and generation tokens/s (medians), the ratios, whether the
last and read rows' logits were bit-identical to every row's, and the 1-minute load average
before and after each model.

    uv run python benchmarks/bench_serve_prompt_rows.py [--models smollm2-135m,gemma-3-270m]
        [--threads 1] [--tokens 400] [--rounds 5] [--read 8] [-n 32]
        [--transformers-python /tmp/tf-venv/bin/python [--float32] [--copies f32,q8_0,q4_0]
         [--other-build /tmp/avx512-venv/bin/python]]

With `--copies` (and a transformers Python), ours is timed once more on each copy of the model
file that llama.cpp's own quantize tool writes from it (`model_copy`): `f32` holds the weights
transformers computes with, so it tells how much of the prompt gap is the quantized matrix
kernels; `q8_0` and `q4_0` are the types this llama.cpp multiplies in prompt batches on x86
(llamafile's tinyBLAS and the CPU repack), which the packaged Q4_1 (SmolLM2) is not. A copy is
requantized from the packaged file, not from the original weights, so its logits differ from
the served file's. `--float32` is `--copies f32`.

With `--other-build PYTHON` (a Python with another build of llama-cpp-python, e.g. one with
AVX-512 kernels: README of `smol_envs_core.server`), ours is timed once more there, on the
packaged file and each copy, in the same run.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import tempfile
import time

SENTENCE = "The quick brown fox jumps over the lazy dog. "
GEN_PROMPT = "def fibonacci(n):\n"
MODES = ("every row", "last row", "read rows")


def evaluate(llama, tokens: list[int], mode: str, read: frozenset[int]):
    """(seconds, logits at `read`'s positions (sorted), (len(read), n_vocab)) of one fresh
    evaluation of `tokens` in `mode`."""
    import numpy as np
    from smol_envs_core.server import output_rows

    llama.reset()
    every = output_rows.ALL_ROWS.set(mode == "every row")
    only = output_rows.READ_ROWS.set(read if mode == "read rows" else None)
    try:
        start = time.perf_counter()
        llama.eval(tokens)
        seconds = time.perf_counter() - start
    finally:
        output_rows.READ_ROWS.reset(only)
        output_rows.ALL_ROWS.reset(every)
    return seconds, np.array(llama.scores[sorted(read)])


def generate(llama, n: int) -> float:
    """Seconds to generate `n` greedy tokens after `GEN_PROMPT` (prompt included), as the
    server does for a request without log-probabilities (last row only, fresh cache)."""
    from smol_envs_core.server import output_rows

    prompt = llama.tokenize(GEN_PROMPT.encode(), add_bos=True)
    every = output_rows.ALL_ROWS.set(False)
    try:
        llama.reset()
        start = time.perf_counter()
        for count, _ in enumerate(llama.generate(prompt, temp=0.0, repeat_penalty=1.0), 1):
            if count == n:
                break
        return time.perf_counter() - start
    finally:
        output_rows.ALL_ROWS.reset(every)


COPY_TYPES = {"f32": 0, "q4_0": 2, "q8_0": 7}  # llama.cpp's LLAMA_FTYPE_ALL_F32, MOSTLY_Q4_0, _Q8_0


def model_copy(gguf: str, folder: str, kind: str) -> str:
    """The GGUF at `gguf` written again by llama.cpp's own quantize tool
    (`llama_model_quantize`, requantizing allowed) with every weight of type `kind` (a key of
    `COPY_TYPES`; `f32` dequantizes: the same weights transformers' `gguf_file=` loader
    computes with), into `folder`; its path.

    Raises:
        KeyError: `kind` is not a key of `COPY_TYPES`.
        RuntimeError: llama.cpp refused the conversion.
    """
    import ctypes

    import llama_cpp

    out = os.path.join(folder, f"{kind}-" + os.path.basename(gguf))
    params = llama_cpp.llama_model_quantize_default_params()
    params.ftype, params.allow_requantize, params.nthread = COPY_TYPES[kind], True, 1
    if llama_cpp.llama_model_quantize(gguf.encode(), out.encode(), ctypes.byref(params)):
        raise RuntimeError(f"llama.cpp could not write a {kind} copy of {gguf}")
    return out


def llama_side(gguf: str, args) -> tuple[list[int], dict[str, float], float, bool, bool]:
    """(prompt tokens, prompt tokens/s per mode, generation tokens/s, last row bit-identical,
    read rows bit-identical) of our server's path for the model file `gguf`, with the
    llama-cpp-python this Python imports and the server's context size `args.n_ctx`."""
    from llama_cpp import Llama
    from smol_envs_core.server import output_rows

    output_rows.selective_rows(Llama)
    llama = Llama(model_path=gguf, n_ctx=args.n_ctx,
                  n_threads=args.threads, n_threads_batch=args.threads, logits_all=True,
                  verbose=False)
    tokens = llama.tokenize((SENTENCE * (args.tokens // 10 + 1)).encode(), add_bos=True)
    tokens = tokens[:args.tokens]
    read = frozenset(range(len(tokens) - args.read, len(tokens)))
    timings: dict[str, list[float]] = {mode: [] for mode in MODES}
    rows = {}
    evaluate(llama, tokens, "last row", read)  # warm-up
    for _ in range(args.rounds):
        for mode in MODES:
            seconds, rows[mode] = evaluate(llama, tokens, mode, read)
            timings[mode].append(seconds)
    rate = {mode: len(tokens) / statistics.median(t) for mode, t in timings.items()}
    gen = args.n / statistics.median(generate(llama, args.n) for _ in range(args.rounds))
    import numpy as np

    last_same = np.array_equal(rows["last row"][-1], rows["every row"][-1])
    read_same = np.array_equal(rows["read rows"], rows["every row"])
    return tokens, rate, gen, bool(last_same), bool(read_same)


def run_llama(python: str, gguf: str, args) -> tuple[list[int], dict[str, float], float, bool,
                                                      bool]:
    """`llama_side` for the model file `gguf` in the Python at `python` (a subprocess: another
    build of llama-cpp-python; our `output_rows` is put on its path).

    Raises:
        RuntimeError: the subprocess failed (the message ends with its stderr's tail).
    """
    import smol_envs_core

    spec = {key: getattr(args, key) for key in ("threads", "tokens", "rounds", "read", "n",
                                                 "n_ctx")}
    package_root = os.path.dirname(os.path.dirname(smol_envs_core.__file__))
    done = subprocess.run([python, __file__, "--llama-side", json.dumps([gguf, spec])],
                          capture_output=True, text=True, check=False,
                          env={**os.environ, "PYTHONPATH": package_root})
    if done.returncode:
        raise RuntimeError(f"llama side in {python} failed:\n{done.stderr[-3000:]}")
    return tuple(json.loads(done.stdout.strip().splitlines()[-1]))


def transformers_side(spec: dict) -> dict[str, float]:
    """Run inside the transformers Python: prompt tokens/s of a float32 forward pass over
    `spec["tokens"]` (every position's logits, and the last's only) and generation tokens/s of
    `spec["n"]` greedy tokens after `spec["gen_prompt"]`, medians of `spec["rounds"]`."""
    import torch
    from transformers import AutoModelForCausalLM

    torch.set_num_threads(spec["threads"])
    folder, name = os.path.split(spec["gguf"])
    model = AutoModelForCausalLM.from_pretrained(folder, gguf_file=name, dtype=torch.float32)
    model.eval()
    ids = torch.tensor([spec["tokens"]])
    gen_ids = torch.tensor([spec["gen_prompt"]])
    timings: dict[str, list[float]] = {"every row": [], "last row": [], "generation": []}
    with torch.inference_mode():
        model(ids[:, :8])  # warm-up
        for _ in range(spec["rounds"]):
            for mode, keep in (("every row", 0), ("last row", 1)):
                start = time.perf_counter()
                model(ids, logits_to_keep=keep)
                timings[mode].append(time.perf_counter() - start)
            start = time.perf_counter()
            out = model.generate(gen_ids, attention_mask=torch.ones_like(gen_ids),
                                 max_new_tokens=spec["n"], min_new_tokens=spec["n"],
                                 do_sample=False, pad_token_id=0)
            timings["generation"].append(time.perf_counter() - start)
            assert out.shape[1] - gen_ids.shape[1] == spec["n"]
    rates = {mode: len(spec["tokens"]) / statistics.median(timings[mode])
             for mode in ("every row", "last row")}
    rates["generation"] = spec["n"] / statistics.median(timings["generation"])
    return rates


def run_transformers(python: str, gguf: str, tokens: list[int], args) -> dict[str, float]:
    """`transformers_side` for the model file `gguf` in the Python at `python` (a subprocess)."""
    from llama_cpp import Llama

    vocab_only = Llama(model_path=gguf, vocab_only=True, verbose=False)
    spec = {"gguf": gguf, "tokens": tokens, "threads": args.threads, "rounds": args.rounds,
            "n": args.n, "gen_prompt": vocab_only.tokenize(GEN_PROMPT.encode(), add_bos=True)}
    done = subprocess.run([python, __file__, "--transformers-side", json.dumps(spec)],
                          capture_output=True, text=True, check=False,
                          env={**os.environ, "OMP_NUM_THREADS": str(args.threads)})
    if done.returncode:
        raise RuntimeError(f"transformers side failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> None:
    """Command line entry: print a few lines per model."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--models", default="smollm2-135m,gemma-3-270m")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--tokens", type=int, default=400)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--read", type=int, default=8,
                        help="positions read at the prompt's end (a continuation's rows)")
    parser.add_argument("-n", type=int, default=32, help="generated tokens")
    parser.add_argument("--transformers-python", default=None)
    parser.add_argument("--float32", action="store_true", help="the same as --copies f32")
    parser.add_argument("--copies", default="",
                        help="also time ours on these copies of the model file: comma-separated "
                             f"types of {sorted(COPY_TYPES)}")
    parser.add_argument("--other-build", default=None, metavar="PYTHON",
                        help="also time ours (the packaged file and each copy) in this Python: "
                             "one whose llama-cpp-python was built with other flags")
    parser.add_argument("--transformers-side", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--llama-side", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    args.copies = [kind for kind in args.copies.split(",") if kind]
    if args.float32 and "f32" not in args.copies:
        args.copies.insert(0, "f32")
    if any(kind not in COPY_TYPES for kind in args.copies):
        parser.error(f"--copies takes types of {sorted(COPY_TYPES)}")
    if (args.copies or args.other_build) and not args.transformers_python:
        parser.error("--copies and --other-build compare against transformers: give "
                     "--transformers-python too")
    if args.transformers_side:
        print(json.dumps(transformers_side(json.loads(args.transformers_side))))
        return
    if args.llama_side:
        gguf, spec = json.loads(args.llama_side)
        print(json.dumps(llama_side(gguf, argparse.Namespace(**spec))))
        return
    from smol_envs_core.server.serve import N_CTX

    args.n_ctx = N_CTX
    print(f"{os.cpu_count()} CPUs, {args.threads} thread(s), medians of {args.rounds} rounds, "
          f"{args.read} read rows, {args.n} generated tokens")
    for key in args.models.split(","):
        with tempfile.TemporaryDirectory() as folder:
            compare_model(key, args, folder)


def compare_model(key: str, args, folder: str) -> None:
    """Print our figures for model `key`, transformers' (with --transformers-python), ours on
    each `--copies` copy of the model file (written into `folder`) and, with --other-build, all
    of ours again in that Python."""
    from smol_envs_core.server import models

    gguf = str(models.get(key).locate())
    before = os.getloadavg()[0]
    tokens, rate, gen, last_same, read_same = llama_side(gguf, args)
    print(f"{key}: {len(tokens)} prompt tokens; ours: every row {rate['every row']:.1f}, "
              f"last row {rate['last row']:.1f}, read rows {rate['read rows']:.1f} tokens/s "
              f"(last/every {rate['last row'] / rate['every row']:.2f}x, read/every "
              f"{rate['read rows'] / rate['every row']:.2f}x); generation {gen:.1f} tokens/s; "
              f"bit-identical: last row {last_same}, read rows {read_same}; load {before:.1f} "
              f"-> {os.getloadavg()[0]:.1f}", flush=True)
    if not args.transformers_python:
        return
    before = os.getloadavg()[0]
    theirs = run_transformers(args.transformers_python, gguf, tokens, args)
    print(f"{key}: transformers float32: every row {theirs['every row']:.1f}, last row "
          f"{theirs['last row']:.1f} tokens/s; generation {theirs['generation']:.1f} tokens/s; "
          f"load {before:.1f} -> {os.getloadavg()[0]:.1f}", flush=True)
    runs = [("ours", rate, gen)]
    files = [(kind, model_copy(gguf, folder, kind)) for kind in args.copies]
    builds = [("", None)] + ([(" (other build)", args.other_build)] if args.other_build else [])
    for build, python in builds:
        for kind, path in files if python is None else [("packaged", gguf)] + files:
            name = f"ours{build} on the {kind} {'file' if kind == 'packaged' else 'copy'}"
            before = os.getloadavg()[0]
            side = llama_side(path, args) if python is None else run_llama(python, path, args)
            _, copy_rate, copy_gen, copy_last, copy_read = side
            print(f"{key}: {name}: every row {copy_rate['every row']:.1f}, last row "
                  f"{copy_rate['last row']:.1f}, read rows {copy_rate['read rows']:.1f} "
                  f"tokens/s; generation {copy_gen:.1f} tokens/s; bit-identical: last row "
                  f"{copy_last}, read rows {copy_read}; load {before:.1f} -> "
                  f"{os.getloadavg()[0]:.1f}", flush=True)
            runs.append((name, copy_rate, copy_gen))
    for name, ours, ours_gen in runs:
        print(f"{key}: {name}/transformers: prompt every row "
              f"{ours['every row'] / theirs['every row']:.2f}x, last row "
              f"{ours['last row'] / theirs['last row']:.2f}x, read rows "
              f"{ours['read rows'] / theirs['every row']:.2f}x (vs their every row), "
              f"generation {ours_gen / theirs['generation']:.2f}x", flush=True)


if __name__ == "__main__":
    main()
