"""The serving engines of `smol-envs eval --engine`: what each can serve, how it is started on a
free port, when it is ready, how it is stopped, and its name and version for the manifest.

- `LlamaCpp` (the default): our llama-cpp-python server (`smol_envs_core.server.serve`) of a GGUF: a
  registered alias, a GGUF file, or a Hugging Face folder converted to GGUF (`convert`).
- `Vllm`: vLLM's own OpenAI server (`python -m vllm.entrypoints.openai.api_server`) of a
  Hugging Face folder, run by the vLLM installation the user names (`--vllm-python PATH` or
  $SMOL_ENVS_VLLM_PYTHON): the CPU build here, the GPU build on a GPU machine, with vLLM's own
  parallelism flags passed through `--vllm-args`. vLLM cannot load a GGUF, and no GGUF ->
  folder conversion exists here, so an alias or a GGUF is refused in one line.

Both are started through the one process manager (`procman`): ready once `/v1/models` answers
and one real completion succeeded; `stop` stops only the process group that was started.
An endpoint MODEL starts nothing, whichever engine is named. `serve` (numpy, llama.cpp's
bindings) is imported only when a server is started: `smol-envs --help` stays fast.
"""

from __future__ import annotations

import os
import shlex
import subprocess
from dataclasses import dataclass
from pathlib import Path

from .. import procman
from ..errors import InfrastructureError
from ..server import models
from . import manifest as manifests
from .model import ENDPOINT, HF_FOLDER, ModelError, ModelSpec, is_hf_folder, resolve

LLAMA_CPP = "llama.cpp"
VLLM = "vllm"
ENGINES = (LLAMA_CPP, VLLM)
VLLM_PYTHON_VAR = "SMOL_ENVS_VLLM_PYTHON"
VLLM_COMPONENT = "vLLM server"
VLLM_MODULE = "vllm.entrypoints.openai.api_server"
# float32: the checkpoints scored here are small and saved in fp32; vLLM's "auto" would run an
# fp32 checkpoint in half precision and move log-likelihoods. On a GPU pass e.g.
# `--vllm-args "--dtype auto --tensor-parallel-size 2"` (it replaces this default).
DEFAULT_VLLM_ARGS = ("--dtype", "float32")
# vLLM's CPU build reserves this many GiB of KV cache (its default, 4, is more than a 2-core,
# shared machine should give); the GPU build ignores it. A value the user set wins.
CPU_KVCACHE_GIB = "2"
VLLM_START_TIMEOUT_S = 1200.0  # measured about 4 min cold on 2 shared cores
VLLM_FIRST_COMPLETION_TIMEOUT_S = 300.0


class LlamaCpp:
    """Our llama-cpp-python server of a GGUF (the default engine)."""

    name = LLAMA_CPP

    def resolve(self, given: str, model_id: str | None, key_var: str | None) -> ModelSpec:
        """MODEL resolved as `model.resolve` does (a folder is converted to GGUF)."""
        return resolve(given, model_id, key_var)

    def start(self, spec: ModelSpec, host: str, port: int, threads: int,
              governed: bool) -> bool:
        """Start (or reuse ours) on host:port; True when this call started it. Raises
        InfrastructureError."""
        local = (models.get(spec.registry_key) if spec.registry_key is not None
                 else models.file_model(spec.gguf, spec.served_name))
        from ..server import serve

        return serve.start_with_owner(host, port, threads, local, governed)

    def stop(self, port: int) -> bool:
        """Stop our server on `port`; True when one was running."""
        from ..server import serve

        return serve.stop(port)

    def manifest(self, spec: ModelSpec) -> dict:
        """{"name", "version"} of what serves `spec` ("endpoint", version None, for one)."""
        return manifests.engine(spec.kind)


@dataclass
class Vllm:
    """vLLM's OpenAI server of a Hugging Face folder, from the user's vLLM installation.

    Attributes:
        python: the interpreter of that installation (checked by `version`).
        extra_args: arguments after `--model/--served-model-name/--host/--port`
            (default DEFAULT_VLLM_ARGS).
    """

    python: Path
    extra_args: tuple[str, ...] = DEFAULT_VLLM_ARGS
    _version: str | None = None

    name = VLLM

    def version(self) -> str:
        """vLLM's version in that installation (asked once). Raises InfrastructureError when
        the interpreter is missing or cannot import vllm."""
        if self._version is None:
            try:
                done = subprocess.run([str(self.python), "-c",
                                       "import vllm; print(vllm.__version__)"],
                                      capture_output=True, text=True, timeout=300)
            except (OSError, subprocess.TimeoutExpired) as exc:
                raise InfrastructureError(VLLM_COMPONENT, f"{self.python}: {exc}") from None
            if done.returncode != 0:
                raise InfrastructureError(
                    VLLM_COMPONENT, f"{self.python} cannot import vllm: "
                    f"{(done.stderr or done.stdout).strip()[-400:]}")
            self._version = done.stdout.strip().splitlines()[-1]
        return self._version

    def resolve(self, given: str, model_id: str | None, key_var: str | None) -> ModelSpec:
        """MODEL as vLLM serves it: an endpoint as given, a Hugging Face folder as it is
        (identified by its content hash). Raises ModelError for anything else (an alias or a
        GGUF: vLLM cannot load a GGUF)."""
        if given.startswith(("http://", "https://")):
            return resolve(given, model_id, key_var)
        path = Path(given).expanduser()
        if is_hf_folder(path):
            from .convert import folder_sha256

            folder = path.resolve()
            return ModelSpec(given, HF_FOLDER, model_id or folder.name,
                             sha256=folder_sha256(folder), source=folder)
        raise ModelError(f"--engine vllm serves a Hugging Face checkpoint folder (config.json "
                         f"with *.safetensors) or an endpoint; {given!r} is not one (vLLM cannot "
                         "load a GGUF or a registered alias: use the default engine for those)")

    def service(self, spec: ModelSpec, host: str, port: int) -> procman.Service:
        """The process-manager description of vLLM serving `spec` on host:port."""
        from ..server import serve

        env = dict(os.environ)
        env.setdefault("VLLM_CPU_KVCACHE_SPACE", CPU_KVCACHE_GIB)
        return procman.Service(
            name=VLLM_COMPONENT, host=host, port=port, url=serve.base_url(host, port),
            state_dir=state_dir(port),
            argv=[str(self.python), "-m", VLLM_MODULE, "--model", str(spec.source),
                  "--served-model-name", spec.served_name, "--host", host, "--port", str(port),
                  *self.extra_args],
            ready=lambda: bool(serve.models_answer(host, port, timeout=10.0)),
            confirm=lambda: serve.first_completion(host, port, VLLM_FIRST_COMPLETION_TIMEOUT_S,
                                                   spec.served_name),
            env=env, start_timeout_s=VLLM_START_TIMEOUT_S, confirm_what="first completion")

    def start(self, spec: ModelSpec, host: str, port: int, threads: int,
              governed: bool) -> bool:
        """Start vLLM on host:port (threads and governed are llama.cpp's: unused). Raises
        InfrastructureError (with the log tail) when it dies or hangs before it is ready."""
        self.version()
        _, started = procman.start(self.service(spec, host, port))
        return started

    def stop(self, port: int) -> bool:
        """Stop the vLLM process group started on `port`; True when one was running."""
        return procman.stop(state_dir(port))

    def manifest(self, spec: ModelSpec) -> dict:
        """{"name": "vllm", "version", "python"} ("endpoint" for an endpoint MODEL)."""
        if spec.kind == ENDPOINT:
            return {"name": "endpoint", "version": None}
        return {"name": VLLM, "version": self.version(), "python": str(self.python),
                "args": list(self.extra_args)}


def state_dir(port: int) -> Path:
    """The process manager's folder of a vLLM server on `port` (beside our servers')."""
    from ..server import serve

    return serve.state_dir(port).parent / f"vllm-{port}"


def select(name: str = LLAMA_CPP, vllm_python: str | None = None,
           vllm_args: str | None = None) -> LlamaCpp | Vllm:
    """The engine named `name` (one of ENGINES). For VLLM, its python is `vllm_python`, else
    $SMOL_ENVS_VLLM_PYTHON, and `vllm_args` (a shell-quoted string) replaces DEFAULT_VLLM_ARGS.

    Raises:
        ValueError: an unknown engine, or VLLM with no python named or one that does not exist.
    """
    if name == LLAMA_CPP:
        return LlamaCpp()
    if name != VLLM:
        raise ValueError(f"unknown engine {name!r}; choose one of {', '.join(ENGINES)}")
    python = vllm_python or os.environ.get(VLLM_PYTHON_VAR)
    if not python:
        raise ValueError(f"--engine vllm needs a vLLM installation: --vllm-python PATH (its "
                         f"python) or {VLLM_PYTHON_VAR}")
    if not Path(python).is_file():
        raise ValueError(f"--vllm-python {python}: no such file")
    extra = tuple(shlex.split(vllm_args)) if vllm_args is not None else DEFAULT_VLLM_ARGS
    return Vllm(Path(python), extra)


__all__ = ["ENGINES", "LLAMA_CPP", "VLLM", "LlamaCpp", "Vllm", "select"]
